"""The ``partner-desk`` command: the window by default, plus ``sandbox``, ``iban``,
``gateway``, ``payments``, ``statement``, ``webhooks`` and ``selftest``, one module each.
Nothing of a command is imported before it is asked for, so the window (no arguments) starts
at once."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse


def main(argv: Sequence[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    if not arguments:
        from app.cli.gui import run

        return run()  # the window at once: no parser to build for no arguments
    serving = arguments[0] == "sandbox" or list(arguments[:2]) == ["webhooks", "serve"]
    if serving:
        from app.serving.stopping import stop_signals_taken

        stop_signals_taken()  # a server: stopped gracefully by a signal from the first moment
    from app.cli.parser import parser

    args = parser().parse_args(argv)
    if args.command is None:
        from app.cli.gui import run

        # it installs the redaction once its window shows (a faster start)
        return run(args.base_url, args.gateway_url, args.profile)
    from app.cli.common import terminal_safe_output
    from app.core import redaction

    redaction.install()  # no card number or security code in any log record
    terminal_safe_output()
    try:
        return _run(args)
    except BrokenPipeError:
        # the reader went away (| head): no traceback, and none at exit either
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    finally:
        if serving:
            from app.serving.stopping import stop_signals_held

            stop_signals_held()


def _run(args: argparse.Namespace) -> int:
    if args.command == "sandbox":
        from app.cli import sandbox

        return sandbox.run(args.port, args.host, args.settle_seconds, with_parent=args.with_parent)
    if args.command == "iban":
        from app.cli import iban

        return iban.run(" ".join(args.iban), args.base_url, args.deadline)
    if args.command == "selftest":
        from app.cli import selftest

        return selftest.run()
    if args.command == "gateway":
        from app.cli import gateway

        return gateway.order(args.order_id, args.base_url, args.user)
    if args.command == "statement":
        from app.cli import statement

        return statement.run(
            args.client_id,
            args.account_id,
            date_from=args.date_from,
            date_to=args.date_to,
            camt053=args.camt053,
            currency=args.currency,
            base_url=args.base_url,
            user=args.user,
        )
    if args.command == "payments":
        from app.cli import payments

        return payments.run(
            args.file,
            dry_run=args.dry_run,
            report=args.report,
            base_url=args.base_url,
            user=args.user,
        )
    from app.cli import webhooks

    if args.webhooks_command == "serve":
        from app.webhooks.workers import default_workers

        workers = default_workers() if args.workers is None else args.workers
        return webhooks.serve(
            args.host, args.port, args.public_key, args.db, workers, grace_seconds=args.grace
        )
    return webhooks.list_events(args.db, as_json=args.json)


def own_command() -> list[str]:
    """How to run this program again: the frozen executable itself, or Python on this package."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    return [sys.executable, "-m", "app.cli"]
