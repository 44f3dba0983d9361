"""``partner-desk statement CLIENT_ID ACCOUNT_ID --from DATE --to DATE --camt053 FILE``: an
account's statement written as camt.053.001.08 (app/forms/statement_export.py), streaming,
the count of entries shown as it goes.

Exit status: 0 written; 2 refused before anything was asked (dates, the file's folder, an
address the desk must not call) or by the API with 400; 1 when the API cannot be reached,
fails, or the answer cannot be used."""

from __future__ import annotations

import asyncio
import datetime as dt
import sys
from pathlib import Path

from app.api.errors import ApiError, InvalidInput
from app.cli.common import (
    BASE_URL_ENV,
    EXIT_API_FAILURE,
    EXIT_INVALID_INPUT,
    LOCAL_API,
    banking_client,
    describe,
    fail,
    password_for,
)
from app.files.whole_file import writable_target

COMMAND = "statement"
SHOWN_EVERY = 50_000  # entries between two progress lines


def run(
    client_id: str,
    account_id: str,
    *,
    date_from: dt.date,
    date_to: dt.date,
    camt053: Path,
    currency: str | None,
    base_url: str | None,
    user: str,
) -> int:
    if date_from > date_to:
        fail(COMMAND, f"--from {date_from} is after --to {date_to}")
        return EXIT_INVALID_INPUT
    try:
        writable_target(camt053)
    except OSError as exc:
        fail(COMMAND, f"--camt053 {camt053}: {exc.strerror or exc}")
        return EXIT_INVALID_INPUT
    base_url, password = password_for(COMMAND, base_url, user, BASE_URL_ENV, LOCAL_API)
    if password is None:
        return EXIT_INVALID_INPUT
    period = (date_from, date_to)
    try:
        return asyncio.run(
            _export(client_id, account_id, period, camt053, currency, (base_url, user, password))
        )
    except KeyboardInterrupt:
        print("Stopped: no file was written.", file=sys.stderr)
        return 130


async def _export(
    client_id: str,
    account_id: str,
    period: tuple[dt.date, dt.date],
    path: Path,
    currency: str | None,
    credentials: tuple[str, str, str],
) -> int:
    from app.forms.statement_export import export_camt053

    date_from, date_to = period
    client = banking_client(COMMAND, *credentials)
    if client is None:
        return EXIT_INVALID_INPUT
    shown = 0

    def progress(written: int) -> None:
        nonlocal shown
        if written - shown >= SHOWN_EVERY:
            shown = written
            print(f"  {written:,} entries…", file=sys.stderr)

    try:
        count = await export_camt053(
            client,
            client_id,
            account_id,
            date_from,
            date_to,
            path,
            currency=currency,
            progress=progress,
        )
    except InvalidInput as exc:
        fail(COMMAND, exc)
        return EXIT_INVALID_INPUT
    except ApiError as exc:
        fail(COMMAND, describe(exc))
        return EXIT_INVALID_INPUT if exc.status == 400 else EXIT_API_FAILURE
    except OSError as exc:
        fail(COMMAND, f"{path}: {exc.strerror or exc}")
        return EXIT_INVALID_INPUT
    finally:
        await client.aclose()
    print(f"Wrote {count:,} entries ({date_from} to {date_to}) as camt.053.001.08 to {path}")
    return 0
