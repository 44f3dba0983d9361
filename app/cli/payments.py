"""``partner-desk payments import FILE``: a pain.001 payment file sent as SEPA transfers, each
once (app/forms/payment_import.py), with a preview (``--dry-run``) and a report per payment
(``--report FILE``: pain.002 when the name ends in .xml, else CSV).

Exit status: 0 when every payment was accepted (with --dry-run: every one can be sent), 1 when
some were refused or their outcome is unknown, or the API failed; 2 when the file cannot be
read or is invalid — and then nothing is sent."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from app.api.errors import ApiError
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
from app.core.data_folder import data_folder
from app.core.money import format_minor
from app.core.text import printable
from app.files.pain001 import PaymentFile, read_payment_file
from app.files.pain002 import status_report, write_status_report
from app.files.report import write_csv_report
from app.files.whole_file import writable_target
from app.files.xml_input import FileRefused
from app.forms.import_journal import ImportJournal, JournalBusy, read_states
from app.forms.payment_import import (
    EARLIER,
    ImportPlan,
    PlannedPayment,
    Progress,
    plan_import,
    run_import,
)

COMMAND = "payments import"
SAID_EVERY_SECONDS = 1.0  # the preview's progress, on stderr


def plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def run(file: Path, *, dry_run: bool, report: Path | None, base_url: str | None, user: str) -> int:
    try:
        payment_file = read_payment_file(file)
    except FileRefused as exc:
        fail(COMMAND, f"{printable(file.name, 200)}: {exc}")
        return EXIT_INVALID_INPUT
    if report is not None:  # refused before anything is sent, not after
        problem = _report_problem(report, file)
        if problem:
            fail(COMMAND, f"--report {printable(str(report), 200)}: {problem}")
            return EXIT_INVALID_INPUT
    base_url, password = password_for(COMMAND, base_url, user, BASE_URL_ENV, LOCAL_API)
    if password is None:
        return EXIT_INVALID_INPUT
    try:
        return asyncio.run(_import(payment_file, dry_run, report, base_url, user, password))
    except KeyboardInterrupt:
        print("Stopped. What was sent is kept: run the same command again to resume.")
        return 130


def _report_problem(report: Path, payment_file: Path) -> str:
    """Why the report cannot be written there ("" when it can)."""
    try:
        target = writable_target(report)
    except OSError as exc:
        return str(exc.strerror or exc)
    if target.exists() and payment_file.exists() and target.samefile(payment_file):
        return "it is the payment file itself: the report would replace it"
    return ""


async def _import(
    payment_file: PaymentFile,
    dry_run: bool,
    report: Path | None,
    base_url: str,
    user: str,
    password: str,
) -> int:
    client = banking_client(COMMAND, base_url, user, password)
    if client is None:
        return EXIT_INVALID_INPUT
    try:
        journal = ImportJournal(data_folder(), payment_file.message_id)
        plan = await plan_import(
            client, payment_file, progress=_looking(), known=read_states(journal.path)
        )
        _print_preview(plan)
        if not dry_run and plan.sendable():
            with journal:
                counts = await run_import(client, plan, journal, progress=_said(plan))
            earlier = f"; {counts.earlier} accepted before, not sent again" * bool(counts.earlier)
            before = f"; {counts.checked_out} refused before sending" * bool(counts.checked_out)
            print(
                f"Sent {counts.sent}: accepted {counts.accepted}, refused {counts.refused}, "
                f"outcome unknown {counts.unknown}{earlier}{before}"
            )
            if counts.stopped:
                fail(COMMAND, f"stopped: {counts.stopped}; run it again to resume there")
    except JournalBusy as exc:
        fail(COMMAND, exc)
        return EXIT_API_FAILURE
    except ApiError as exc:
        fail(COMMAND, describe(exc))
        return EXIT_API_FAILURE
    finally:
        await client.aclose()
    if report is not None:
        outcomes = plan.outcomes()
        try:
            if report.suffix.lower() == ".xml":
                data = status_report(payment_file.message_id, payment_file.version, outcomes)
                write_status_report(report, data)
            else:
                write_csv_report(report, outcomes)
        except OSError as exc:  # a full disk: what was sent is in the journal all the same
            fail(COMMAND, f"the report could not be written to {report}: {exc.strerror or exc}")
            return EXIT_API_FAILURE
        print(f"Report written to {report}")
    if dry_run:
        return 0 if not plan.refused_before() else EXIT_API_FAILURE
    every = all(each.outcome == "accepted" for each in plan.payments)
    return 0 if every else EXIT_API_FAILURE


def _looking() -> Progress:
    """The preview's work said on stderr about once a second (the debtor accounts looked for
    among many clients, the fees asked): a slow server made minutes of silence."""
    said_at = -SAID_EVERY_SECONDS

    def progress(done: int, of: int, what: str) -> None:
        nonlocal said_at
        now = time.monotonic()
        if now - said_at >= SAID_EVERY_SECONDS:
            said_at = now
            print(f"  {what}: {done:,} of {of:,}…", file=sys.stderr, flush=True)

    return progress


def _said(plan: ImportPlan) -> Progress:
    """Each payment's outcome printed once it is known."""
    by_number = {each.payment.number: each for each in plan.sendable()}

    def progress(_done: int, _of: int, what: str) -> None:
        number = int(what.rsplit(" ", 1)[-1])
        each = by_number[number]
        status = f" ({each.status})" if each.status else ""
        reason = f": {printable(each.reason, 300)}" if each.reason else ""
        print(f"  payment {number} {_e2e(each)}: {each.outcome}{status}{reason}")

    return progress


def _e2e(each: PlannedPayment) -> str:
    return printable(each.payment.end_to_end_id, 35)


def _print_preview(plan: ImportPlan) -> None:
    payment_file = plan.file
    print(
        f"{payment_file.version} {printable(payment_file.message_id, 35)}: "
        f"{plural(len(plan.payments), 'payment')}, {len(plan.sendable())} to send, "
        f"{len(plan.refused_before())} refused"
    )
    for each in plan.payments:
        payment = each.payment
        head = f"  {payment.number:>4} line {payment.line:<6} {_e2e(each):<35}"
        amount = f"{printable(payment.amount, 20)} {printable(payment.currency, 3)}"
        creditor = f"{printable(payment.creditor_name, 70)} {printable(payment.creditor_iban, 34)}"
        if each.earlier:
            print(f"{head} {amount:>16}  {EARLIER}")
        elif each.sendable:
            fee = format_minor(each.fee or 0, "EUR")
            print(f"{head} {amount:>16}  fee {fee:>12}  to {creditor}")
        else:
            print(f"{head} {amount:>16}  REFUSED: {printable(each.problem, 500)}")
    for total in plan.totals():
        print(
            f"Account {total.iban}: {plural(total.payments, 'payment')}, "
            f"{format_minor(total.amount, total.currency)} + fees "
            f"{format_minor(total.fees, total.currency)}"
        )
    print(f"Fees in all: {format_minor(plan.fee_total(), 'EUR')}")
