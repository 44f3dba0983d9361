"""A statement exported as camt.053.001.08, for the window and the command line alike: the
account and its booked balances asked from the API (the opening one at the end of the day
before the period, the closing one at the end of its last day), then the statement of each
currency streamed into the file a piece at a time (app/files/camt053.py), so a million
records cost the memory of a piece. The file appears only when whole: a cancel or a failure
leaves no half file, and a file it was to replace as it was."""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from app.api.errors import InvalidInput, ResponseValidationError
from app.core.money import is_currency
from app.files.camt053 import Camt053Writer, StatementPart
from app.files.whole_file import written_whole

if TYPE_CHECKING:
    from app.api.banking import BankingClient

Progress = Callable[[int], None]  # entries written so far


async def export_camt053(
    banking: BankingClient,
    client_id: str,
    account_id: str,
    date_from: dt.date,
    date_to: dt.date,
    path: Path,
    *,
    currency: str | None = None,
    progress: Progress | None = None,
) -> int:
    """The statement written to ``path``; the number of entries. ApiError as the API said."""
    from app.api.banking.columns import StatementColumns

    if date_from > date_to:
        raise InvalidInput("date_from", f"{date_from} is after date_to {date_to}")
    account = await banking.get_account(client_id, account_id)
    at_end = await banking.get_balance(client_id, account_id, date=date_to, currency=currency)
    closing = {balance.currency: balance.balance for balance in at_end}
    currencies = [currency] if currency else sorted(closing)
    for code in currencies:
        if not is_currency(code):
            raise ResponseValidationError(f"The account's balance is in {code[:8]!r}: no currency")
    # the balance at the end of the day before (the first day of the calendar has none)
    before = date_from - dt.timedelta(days=1) if date_from > dt.date.min else date_from
    created = dt.datetime.now(dt.UTC)
    seed = f"{account.iban}|{date_from}|{date_to}|{created.isoformat()}"
    message_id = f"PD-STMT-{hashlib.sha256(seed.encode()).hexdigest()[:24]}"
    with written_whole(path, "wb") as handle:
        writer = Camt053Writer(handle, message_id, created)
        writer.begin()
        for code in currencies:
            opening = await banking.get_balance(client_id, account_id, date=before, currency=code)
            tail = "".join(ch for ch in account.iban if ch.isalnum())[-10:]
            writer.statement(
                StatementPart(
                    statement_id=f"{tail}-{date_from:%Y%m%d}-{date_to:%Y%m%d}-{code}",
                    iban=account.iban,
                    bic=account.bic,
                    currency=code,
                    date_from=date_from,
                    date_to=date_to,
                    opening=next((b.balance for b in opening if b.currency == code), 0),
                    closing=closing.get(code, 0),
                )
            )
            columns = StatementColumns()
            async for _added in banking.iter_statement(
                client_id, account_id, date_from, date_to, currency=code, into=columns
            ):
                writer.entries(columns, range(len(columns)))
                columns.drop_rows()
                if progress is not None:
                    progress(writer.entries_written)
            writer.end_statement()
        writer.finish()
    return writer.entries_written
