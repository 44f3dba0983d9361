"""``partner-desk selftest``: support's check of an installation — the embedded sandbox
started, and one call of each kind, a line each."""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from app.api import banking as m
from app.api.banking import BankingClient
from app.api.banking.transport import banking_transport
from app.api.errors import ApiError
from app.api.profile import Profile
from app.cli.common import EXIT_API_FAILURE
from app.core.money import format_minor
from app.sandbox.app import SandboxSettings
from app.sandbox.server import BackgroundSandbox

T = TypeVar("T")


def run() -> int:
    """One line per check, exit 0 when every one passed."""

    started = time.perf_counter()
    sandbox = BackgroundSandbox(SandboxSettings(demo_statement_records=1000))
    try:
        url = sandbox.start()
    except Exception as exc:  # said, never a traceback
        print(f"FAIL sandbox       the embedded sandbox did not start: {exc}")
        return EXIT_API_FAILURE
    print(f"ok   sandbox       started at {url} in {time.perf_counter() - started:.1f} s")
    try:
        return asyncio.run(_selftest_calls(url))
    finally:
        sandbox.stop()


async def _camt053(client: BankingClient, account_id: str, start: dt.date, end: dt.date) -> int:
    """A statement written as camt.053 and checked against the bundled schema: the XML
    library, the schemas and the writer are all there (in the frozen app too)."""
    import tempfile
    from pathlib import Path

    from lxml import etree

    from app.files.xml_input import schema
    from app.forms.statement_export import export_camt053

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "statement.xml"
        count = await export_camt053(client, "C0000001", account_id, start, end, path)
        checker = schema("camt.053.001.08")
        if not checker.validate(etree.parse(str(path))):
            raise ValueError(f"not valid camt.053.001.08: {checker.error_log.last_error}")
    return count


async def _selftest_calls(url: str) -> int:

    client = BankingClient(
        banking_transport(
            Profile(
                base_url=url,
                user="demo",
                password="demo",  # noqa: S106 - the embedded sandbox's published demo password
                partner_code="selftest",
            )
        )
    )
    failed = 0

    async def check(name: str, call: Awaitable[T], describe: Callable[[T], str]) -> T | None:
        nonlocal failed
        clock = time.perf_counter()
        try:
            result = await call
        except (ApiError, OSError, ValueError) as exc:
            failed += 1
            print(f"FAIL {name:<13} {exc}")
            return None
        ms = (time.perf_counter() - clock) * 1000
        print(f"ok   {name:<13} {describe(result)} ({ms:.0f} ms)")
        return result

    try:
        await check("health", client.healthcheck(), lambda _r: "the API answers")
        await check(
            "iban",
            client.iban_check("DE89370400440532013000"),
            lambda r: f"DE89 3704 0044 0532 0130 00 is {getattr(r, 'bic', '?')}",
        )
        clients = await check(
            "clients",
            client.list_clients(limit=5),
            lambda r: f"{len(r)} clients listed",
        )
        accounts = await check(
            "accounts",
            client.list_accounts("C0000001"),
            lambda r: f"the demo person's accounts: {len(r)}",
        )
        if accounts:
            account = accounts[0]
            today = dt.date.today()
            await check(
                "statement",
                client.get_statement("C0000001", account.id, today - dt.timedelta(days=30), today),
                lambda r: "a month of the demo account read",
            )
            await check(
                "fee",
                client.sepa_fee(
                    account.id,
                    m.SepaFeeParameters(amount=10_000, recipient_iban="DE89370400440532013000"),
                ),
                lambda r: (
                    "a SEPA transfer of EUR 100.00 costs "
                    + format_minor(r.fee.amount, r.fee.currency, with_code=True)
                ),
            )
            await check(
                "camt.053",
                _camt053(client, account.id, today - dt.timedelta(days=30), today),
                lambda count: f"a month written as camt.053.001.08, valid: {count} entries",
            )
        elif clients is not None:
            failed += 1
            print("FAIL statement     no demo account to read")
    finally:
        await client.aclose()
    print("All checks passed" if not failed else f"{failed} check(s) failed")
    return 0 if not failed else EXIT_API_FAILURE
