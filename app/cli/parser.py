"""The command line: every command, its arguments and their help."""

from __future__ import annotations

import argparse
from pathlib import Path

from app.cli.common import BASE_URL_ENV, GATEWAY_URL_ENV, LOCAL_API, LOCAL_GATEWAY, PASSWORD_ENV


def _date(text: str) -> object:
    import datetime as dt

    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a date yyyy-mm-dd") from None


def _api_address_and_user(command: argparse.ArgumentParser) -> None:
    """--base-url and --user of a command that calls the banking API."""
    command.add_argument(
        "--base-url",
        metavar="URL",
        help=f"the API's address; when omitted, ${BASE_URL_ENV} or the local sandbox of "
        f"'partner-desk sandbox' ({LOCAL_API})",
    )
    command.add_argument(
        "--user",
        default="demo",
        help="the API user (default demo); the password comes from the environment variable "
        f"{PASSWORD_ENV} or is asked for",
    )


def parser() -> argparse.ArgumentParser:
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
    parser.add_argument(
        "--base-url",
        help="open the window on this server (the API's root, with or without /v1); its "
        "profile is saved, named after its host or --profile",
    )
    parser.add_argument(
        "--gateway-url", help="the card gateway's address, with --base-url or --profile"
    )
    parser.add_argument("--profile", help="open the window with this saved profile")
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
    payments = commands.add_parser("payments", help="payment files (ISO 20022 pain.001)")
    payment_commands = payments.add_subparsers(dest="payments_command", required=True)
    payment_import = payment_commands.add_parser(
        "import",
        help="send a pain.001 file's payments as SEPA transfers, each once (resumes where an "
        "earlier import of the file stopped)",
    )
    payment_import.add_argument(
        "file", type=Path, metavar="FILE", help="the pain.001.001.03 or .09 file"
    )
    payment_import.add_argument(
        "--dry-run",
        action="store_true",
        help="check the file and print the preview with each fee; send nothing",
    )
    payment_import.add_argument(
        "--report",
        type=Path,
        metavar="FILE",
        help="write what became of each payment: pain.002 when the name ends in .xml, else CSV",
    )
    _api_address_and_user(payment_import)
    statement = commands.add_parser(
        "statement", help="write an account's statement as ISO 20022 camt.053.001.08"
    )
    statement.add_argument("client_id", help="the client's ID")
    statement.add_argument("account_id", help="the account's ID (its IBAN)")
    statement.add_argument(
        "--from",
        dest="date_from",
        type=_date,
        required=True,
        metavar="DATE",
        help="the first day, yyyy-mm-dd",
    )
    statement.add_argument(
        "--to",
        dest="date_to",
        type=_date,
        required=True,
        metavar="DATE",
        help="the last day, yyyy-mm-dd",
    )
    statement.add_argument(
        "--camt053",
        type=Path,
        required=True,
        metavar="FILE",
        help="the file to write (replaced when whole)",
    )
    statement.add_argument(
        "--currency",
        metavar="CCY",
        help="one currency (ISO 4217) of the account; all of them when omitted",
    )
    _api_address_and_user(statement)
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
    serve.add_argument(
        "--workers",
        type=int,
        default=None,
        help="processes sharing the port (Linux; default: 2 with two cores or more, else 1)",
    )
    serve.add_argument(
        "--grace",
        type=float,
        default=None,
        metavar="SECONDS",
        help="how long a stop waits for the answers under way (default: 5); those cut are "
        "answered 503, unacknowledged, and sent again",
    )
    listing = webhook_commands.add_parser("list", help="print the stored events")
    listing.add_argument("--db", help="a SQLite file or a postgresql:// URL (default: user data)")
    listing.add_argument("--json", action="store_true", help="one JSON object a line")
    return parser
