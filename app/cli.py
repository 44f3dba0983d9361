"""The ``partner-desk`` command: the GUI by default, plus ``sandbox``, ``iban``,
``gateway`` and ``webhooks``."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TextIO, TypeVar, cast

if TYPE_CHECKING:
    # the window starts without these: they are imported where a command needs them
    import argparse
    import datetime as dt
    from decimal import Decimal

    from app.webhooks.store import EventStore

T = TypeVar("T")

EXIT_INVALID_INPUT = 2
EXIT_API_FAILURE = 1


PASSWORD_ENV = "PARTNER_DESK_PASSWORD"  # noqa: S105 - the name of a variable, not a secret
GATEWAY_URL_ENV = "PARTNER_DESK_GATEWAY_URL"
LOCAL_GATEWAY = "http://127.0.0.1:8080/gateway"  # partner-desk sandbox's default port


def _parser() -> argparse.ArgumentParser:
    import argparse

    class PrintVersion(argparse.Action):
        """--version, read from the package's metadata only when asked (a faster start)."""

        def __call__(
            self, parser: argparse.ArgumentParser, *args: object, **kwargs: object
        ) -> None:
            from app.core.resources import version

            print(f"partner-desk {version()}")
            parser.exit()

    parser = argparse.ArgumentParser(
        prog="partner-desk",
        description="Partner Desk: the desktop client of the Partner Banking API. "
        "Without a command it opens the window against the embedded sandbox.",
    )
    parser.add_argument(
        "--version", action=PrintVersion, nargs=0, help="print the version and exit"
    )
    commands = parser.add_subparsers(dest="command")
    commands.add_parser(
        "selftest",
        help="start the embedded sandbox, sign in and run one call of each kind (support's check "
        "of an installation)",
    )
    sandbox = commands.add_parser("sandbox", help="run the embedded sandbox in the foreground")
    sandbox.add_argument("--port", type=int, default=8080, help="port; 0 picks a free one")
    sandbox.add_argument("--host", default="127.0.0.1")
    sandbox.add_argument(
        "--with-parent",
        action="store_true",
        help="stop when stdin closes (how the window runs its embedded sandbox)",
    )
    sandbox.add_argument(
        "--settle-seconds",
        type=float,
        default=2.0,
        help="seconds before a transfer in progress becomes done (default 2)",
    )
    iban = commands.add_parser("iban", help="validate an IBAN and show the API's bank data")
    iban.add_argument("iban", nargs="+", help="the IBAN; spaces are allowed")
    iban.add_argument(
        "--base-url",
        help="the API's address (with or without /v1); the embedded sandbox when omitted",
    )
    iban.add_argument(
        "--deadline",
        type=float,
        default=30.0,
        help="seconds the whole API check may take, retries included (default 30)",
    )
    gateway = commands.add_parser("gateway", help="look at the card gateway")
    gateway_commands = gateway.add_subparsers(dest="gateway_command", required=True)
    order = gateway_commands.add_parser(
        "order", help="print an order's status, amounts and history"
    )
    order.add_argument("order_id", help="the order's id")
    order.add_argument(
        "--base-url",
        help="the gateway's address (such as https://gateway.bank.example); when omitted, "
        f"${GATEWAY_URL_ENV} or the local sandbox of 'partner-desk sandbox' ({LOCAL_GATEWAY})",
    )
    order.add_argument(
        "--user",
        default="demo",
        help="the merchant user (default demo); the password comes from the environment "
        f"variable {PASSWORD_ENV} or is asked for",
    )
    webhooks = commands.add_parser("webhooks", help="the registration webhook receiver")
    webhook_commands = webhooks.add_subparsers(dest="webhooks_command", required=True)
    serve = webhook_commands.add_parser("serve", help="run the receiver in the foreground")
    serve.add_argument("--port", type=int, required=True, help="port; 0 picks a free one")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument(
        "--public-key",
        help="the service's public key (PEM file): deliveries must then be signed with it",
    )
    serve.add_argument("--db", help="a SQLite file or a postgresql:// URL (default: user data)")
    listing = webhook_commands.add_parser("list", help="print the stored events")
    listing.add_argument("--db", help="a SQLite file or a postgresql:// URL (default: user data)")
    listing.add_argument("--json", action="store_true", help="one JSON object a line")
    return parser


class _TerminalSafe:
    """A text stream that lets no control character through to the terminal: whatever a
    command prints (a server's message, a stored event, a log line) cannot move the cursor,
    recolour the terminal or rewrite a line."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        from app.core.text import terminal_safe

        self._stream.write(terminal_safe(text))
        return len(text)

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


def _terminal_safe_output() -> None:
    sys.stdout = cast("TextIO", _TerminalSafe(sys.stdout))
    sys.stderr = cast("TextIO", _TerminalSafe(sys.stderr))


def main(argv: Sequence[str] | None = None) -> int:
    if not (sys.argv[1:] if argv is None else argv):
        return _gui()  # the window at once: no parser to build for no arguments
    args = _parser().parse_args(argv)
    if args.command is None:
        return _gui()  # it installs the redaction once its window shows (a faster start)
    from app.core import redaction

    redaction.install()  # no card number or security code in any log record
    _terminal_safe_output()
    if args.command == "sandbox":
        return _sandbox(args.port, args.host, args.settle_seconds, with_parent=args.with_parent)
    if args.command == "iban":
        return _iban(" ".join(args.iban), args.base_url, args.deadline)
    if args.command == "selftest":
        return _selftest()
    if args.command == "gateway":
        return _gateway_order(args.order_id, args.base_url, args.user)
    if args.command == "webhooks" and args.webhooks_command == "serve":
        return _webhooks_serve(args.host, args.port, args.public_key, args.db)
    if args.command == "webhooks":
        return _webhooks_list(args.db, as_json=args.json)
    return _gui()


def _sandbox(port: int, host: str, settle_seconds: float, *, with_parent: bool = False) -> int:
    from app.sandbox.server import serve_forever

    if not 0 <= port <= 65535:
        print(f"partner-desk sandbox: --port must be from 0 to 65535, not {port}", file=sys.stderr)
        return EXIT_INVALID_INPUT
    try:
        serve_forever(
            port,
            host=host,
            settle_seconds=settle_seconds,
            announce=lambda line: print(line, flush=True),
            with_parent=with_parent,
        )
    except OSError as exc:
        print(f"partner-desk sandbox: cannot listen on {host}:{port}: {exc}", file=sys.stderr)
        return EXIT_API_FAILURE
    return 0


def _iban(text: str, base_url: str | None, deadline: float) -> int:
    import asyncio

    from app.core.iban import IbanError, validate

    try:
        info = validate(text)
    except IbanError as exc:
        print(exc, file=sys.stderr)
        return EXIT_INVALID_INPUT
    if not 0 < deadline <= 600:
        print("partner-desk iban: --deadline must be from 0 to 600 seconds", file=sys.stderr)
        return EXIT_INVALID_INPUT
    print(f"IBAN      {info.formatted}")
    print(f"Offline   valid; country {info.country}, bank code {info.bank_code}")
    if base_url is None:
        from app.sandbox.app import SandboxSettings
        from app.sandbox.server import BackgroundSandbox

        sandbox = BackgroundSandbox(SandboxSettings(demo_statement_records=0))
        try:
            url = sandbox.start()
            return asyncio.run(_iban_check(info.iban, url, "embedded sandbox", deadline))
        finally:
            sandbox.stop()
    return asyncio.run(_iban_check(info.iban, base_url, base_url, deadline))


async def _iban_check(iban: str, base_url: str, where: str, deadline: float) -> int:
    from app.api.banking import BankingClient
    from app.api.banking.transport import banking_transport
    from app.api.errors import ApiError
    from app.api.http import Bounds, RetryPolicy
    from app.api.profile import Profile
    from app.core.text import printable

    # the IBAN check is an open operation: no credentials are sent
    profile = Profile(
        base_url=base_url,
        user="",
        password="",
        partner_code="partner-desk-cli",
        bounds=Bounds(deadline=deadline, step_timeout=min(15.0, deadline)),
    )
    try:
        transport = banking_transport(profile, retry=RetryPolicy(attempts=2))
    except ApiError as exc:  # an address the desk must not call
        print(f"partner-desk iban: {exc}", file=sys.stderr)
        return EXIT_INVALID_INPUT
    client = BankingClient(transport)
    try:
        data = await client.iban_check(iban)
    except ApiError as exc:
        print(f"API check ({where}) failed: {_describe(exc)}", file=sys.stderr)
        return EXIT_INVALID_INPUT if exc.status == 400 else EXIT_API_FAILURE
    finally:
        await client.aclose()
    print(f"API check ({where})")
    # the server's text, never its control characters: a terminal would obey them
    print(f"  BIC     {printable(data.bic)}")
    print(f"  Bank    {printable(data.bank)}")
    print(f"  Address {printable(data.address)}")
    print(f"  Country {printable(data.country)}")
    print(f"  SEPA    {'yes' if data.sepa else 'no'}")
    return 0


def _describe(error: object) -> str:
    from app.api.errors import ApiError
    from app.core.text import printable

    assert isinstance(error, ApiError)
    if error.has_error_body:
        title, message = printable(error.title or ""), printable(error.failure_message or "")
        return f"{title}: {message} (Error: {printable(error.error_id or '', 80)})"
    return printable(str(error), 500)


def _gateway_order(order_id: str, base_url: str | None, user: str) -> int:
    import asyncio
    import getpass
    import os

    given = os.environ.get(PASSWORD_ENV)
    if base_url is None:
        base_url = os.environ.get(GATEWAY_URL_ENV) or LOCAL_GATEWAY
        if base_url == LOCAL_GATEWAY and given is None and user == "demo":
            given = "demo"  # the local sandbox's published demo password
    if given is None and not sys.stdin.isatty():
        print(
            f"partner-desk gateway: set {PASSWORD_ENV} or run it in a terminal to be asked",
            file=sys.stderr,
        )
        return EXIT_INVALID_INPUT
    password = given if given is not None else getpass.getpass(f"Password of {user}: ")
    return asyncio.run(_print_order(order_id, base_url, user, password))


async def _print_order(order_id: str, base_url: str, user: str, password: str) -> int:
    from app.api.errors import ApiError, InvalidInput
    from app.api.gateway import GatewayClient, gateway_transport
    from app.api.http import RetryPolicy
    from app.api.profile import Profile
    from app.core.gateway.amounts import format_amount
    from app.core.gateway.matrix import BY_CODE, NAMES
    from app.core.money import MoneyError
    from app.core.text import printable

    profile = Profile(base_url=base_url, user=user, password=password, partner_code="")
    try:
        client = GatewayClient(gateway_transport(profile, retry=RetryPolicy(attempts=2)))
    except ApiError as exc:  # an address the desk must not call
        print(f"partner-desk gateway: {exc}", file=sys.stderr)
        return EXIT_INVALID_INPUT
    try:
        order = await client.get_order(order_id)
    except InvalidInput as exc:  # refused before anything was sent: a usage error
        print(f"partner-desk gateway: {exc}", file=sys.stderr)
        return EXIT_INVALID_INPUT
    except ApiError as exc:
        print(f"Order {printable(order_id, 80)}: {_describe(exc)}", file=sys.stderr)
        return EXIT_INVALID_INPUT if exc.status == 400 else EXIT_API_FAILURE
    finally:
        await client.aclose()

    import datetime as dt

    currency = printable(order.currency, 3)

    def money(amount: Decimal) -> str:
        try:
            return f"{format_amount(amount, order.currency)} {currency}"
        except MoneyError:  # a currency this desk does not know: the amount as sent
            return f"{amount} {currency}"

    def when(moment: dt.datetime | None) -> str:
        if moment is None:
            return "-"
        return moment.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")

    named = [NAMES[BY_CODE[c]] if c in BY_CODE else printable(c, 40) for c in order.capabilities]
    scenario = NAMES[BY_CODE[order.scenario]]
    print(f"Order      {printable(order.id)}")
    print(f"Status     {printable(order.status)}")
    print(f"Scenario   {scenario}" + (f"; {', '.join(named)}" if named else ""))
    print(f"Amount     {money(order.amount)}")
    reserved = money(order.amount_reserved)
    if order.reserved_until is not None and order.amount_reserved > 0:
        reserved += f" (until {when(order.reserved_until)})"
    print(f"Reserved   {reserved}")
    print(f"Captured   {money(order.amount_captured)}")
    print(f"Refunded   {money(order.amount_refunded)}")
    print(f"Created    {when(order.created_at)}")
    if order.paid_at is not None:
        print(f"Paid       {when(order.paid_at)}")
    if order.card is not None:
        print(f"Card       {printable(order.card.brand)} {order.card.masked}")
    if order.avs_status is not None:
        avs = order.avs_status
        raw = f" ({printable(avs.raw_code, 8)})" if avs.raw_code else ""
        print(f"AVS        {printable(avs.code, 40)}{raw}: {printable(avs.description, 200)}")
    if order.cof_trace_id:
        print(f"COF trace  {printable(order.cof_trace_id, 64)}")
    print("History")
    for entry in order.history:
        amount = money(entry.amount) if entry.amount is not None else ""
        event, status = printable(entry.event, 30), printable(entry.status, 20)
        print(
            f"  {when(entry.at)}  {event:<22} {status:<18} {amount:>16}  "
            f"{printable(entry.message, 300)}"
        )
    return 0


def _selftest() -> int:
    """One line per check, exit 0 when every one passed."""
    import asyncio
    import time

    from app.sandbox.app import SandboxSettings
    from app.sandbox.server import BackgroundSandbox

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


async def _selftest_calls(url: str) -> int:
    import datetime as dt
    import time
    from collections.abc import Awaitable

    from app.api import banking as m
    from app.api.banking import BankingClient
    from app.api.banking.transport import banking_transport
    from app.api.errors import ApiError
    from app.api.profile import Profile
    from app.core.money import format_minor

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
        except ApiError as exc:
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
        elif clients is not None:
            failed += 1
            print("FAIL statement     no demo account to read")
    finally:
        await client.aclose()
    print("All checks passed" if not failed else f"{failed} check(s) failed")
    return 0 if not failed else EXIT_API_FAILURE


def _open_store(db: str | None) -> EventStore:
    from app.webhooks.store import default_store_path, open_store

    return open_store(db or default_store_path())


def _webhooks_serve(host: str, port: int, public_key: str | None, db: str | None) -> int:
    import logging
    from pathlib import Path

    from app.webhooks.receiver import serve_forever
    from app.webhooks.signature import UnusableKey, load_public_key
    from app.webhooks.store import StoreError

    if not 0 <= port <= 65535:
        print(f"partner-desk webhooks: --port must be from 0 to 65535, not {port}", file=sys.stderr)
        return EXIT_INVALID_INPUT
    # a headless service says what it does on stderr: unknown types, store failures
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    key = None
    if public_key is not None:
        try:
            key = load_public_key(Path(public_key).read_bytes())
        except (OSError, UnusableKey) as exc:
            print(f"partner-desk webhooks: --public-key {public_key}: {exc}", file=sys.stderr)
            return EXIT_INVALID_INPUT
    try:
        store = _open_store(db)
    except StoreError as exc:
        print(f"partner-desk webhooks: {exc}", file=sys.stderr)
        return EXIT_API_FAILURE
    try:
        serve_forever(
            store, key, host=host, port=port, announce=lambda line: print(line, flush=True)
        )
    except OSError as exc:
        print(f"partner-desk webhooks: cannot listen on {host}:{port}: {exc}", file=sys.stderr)
        return EXIT_API_FAILURE
    finally:
        store.close()
    return 0


def _webhooks_list(db: str | None, *, as_json: bool) -> int:
    import json

    from app.core.text import printable
    from app.webhooks.store import StoreError

    try:
        store = _open_store(db)
    except StoreError as exc:
        print(f"partner-desk webhooks: {exc}", file=sys.stderr)
        return EXIT_API_FAILURE
    try:
        offset = 0
        while batch := store.list(limit=1000, offset=offset):
            for event in batch:
                if as_json:
                    print(json.dumps(event.as_json(), ensure_ascii=False))
                else:
                    verified = "signed" if event.signature_verified else "unsigned"
                    print(
                        f"{event.occurred_at}  {printable(event.event_type, 100):<28} "
                        f"{printable(event.status or '-', 20):<10} "
                        f"{printable(event.data_id or '-', 64):<20} {event.event_id} {verified}"
                        + (f" duplicates {event.duplicates}" if event.duplicates else "")
                    )
            offset += len(batch)
    finally:
        store.close()
    return 0


def own_command() -> list[str]:
    """How to run this program again: the frozen executable itself, or Python on this module."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    return [sys.executable, "-m", "app.cli"]


def _gui() -> int:
    from app.ui.shell.app import run_gui

    stops: list[Callable[[], None]] = []

    def start_sandbox() -> str:
        # imported here, off the GUI thread and after the window shows: a faster start
        from app.sandbox.server import SandboxProcess

        sandbox = SandboxProcess(own_command())
        stops.append(sandbox.stop)
        return sandbox.start()

    try:
        return run_gui(start_sandbox)
    finally:
        for stop in stops:
            stop()


if __name__ == "__main__":
    sys.exit(main())
