"""The ``partner-desk`` command: the GUI by default, plus ``sandbox`` and ``iban``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

EXIT_INVALID_INPUT = 2
EXIT_API_FAILURE = 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="partner-desk",
        description="Partner Desk: the desktop client of the Partner Banking API. "
        "Without a command it opens the window against the embedded sandbox.",
    )
    commands = parser.add_subparsers(dest="command")
    sandbox = commands.add_parser("sandbox", help="run the embedded sandbox in the foreground")
    sandbox.add_argument("--port", type=int, default=8080, help="port; 0 picks a free one")
    sandbox.add_argument("--host", default="127.0.0.1")
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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from app.core import redaction

    redaction.install()  # no card number or security code in any log record
    args = _parser().parse_args(argv)
    if args.command == "sandbox":
        return _sandbox(args.port, args.host, args.settle_seconds)
    if args.command == "iban":
        return _iban(" ".join(args.iban), args.base_url, args.deadline)
    return _gui()


def _sandbox(port: int, host: str, settle_seconds: float) -> int:
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
    from app.api.errors import ApiError
    from app.api.transport import Bounds, Profile, RetryPolicy, Transport
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
        transport = Transport(profile, retry=RetryPolicy(attempts=2))
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


def _gui() -> int:
    from app.ui.shell.app import run_gui

    stops: list[Callable[[], None]] = []

    def start_sandbox() -> str:
        # imported here, off the GUI thread and after the window shows: a faster start
        from app.sandbox.server import BackgroundSandbox

        sandbox = BackgroundSandbox()
        stops.append(sandbox.stop)
        return sandbox.start()

    try:
        return run_gui(start_sandbox)
    finally:
        for stop in stops:
            stop()


if __name__ == "__main__":
    sys.exit(main())
