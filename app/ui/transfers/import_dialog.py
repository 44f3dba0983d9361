"""Import payment file… (Transfers, and the File menu): a pain.001 file read and checked, its
preview — every payment with its fee, the totals per account, the payments refused with their
reasons —, one confirmation, then each payment sent once with the counts in sight and a stop
between two payments, and the report saved as CSV or pain.002. The work is
app/forms/payment_import.py's; this window shows it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.api.errors import ApiError
from app.core.money import format_minor
from app.ui.common.csv_file import choose_file
from app.ui.common.names import NamedDialog, name_box, named
from app.ui.common.notice import NoticeLabel
from app.ui.common.progress import ProgressBar
from app.ui.common.table_model import Index, ReadOnlyTableModel
from app.ui.common.widgets import row_table
from app.ui.shell.errors import NotSignedIn

if TYPE_CHECKING:
    import asyncio

    from app.forms.payment_import import ImportPlan, PlannedPayment
    from app.ui.shell.areas import AreaContext

PROBLEM_STYLE = "color: #b3261e;"
COLOURS = {"accepted": "#1b7f3b", "refused": "#b3261e", "unknown": "#8a5a00"}
WIDTHS = (35, 50, 120, 150, 240, 95, 60)  # the outcome takes the rest
REFUSED_LISTED = 8  # refused payments named under the table (all of them in the report)


def outcome_text(each: PlannedPayment) -> str:
    """What became (or will become) of a payment, in words."""
    if each.earlier:
        return "Accepted before (not sent again)"
    if not each.sendable:
        return f"Refused: {each.problem}"
    if each.outcome == "accepted":
        return f"Accepted ({each.status})" if each.status else "Accepted"
    if each.outcome == "refused":
        return f"Refused: {each.reason}"
    if each.outcome == "unknown":
        return f"Outcome unknown: {each.reason}"
    return "To send"


class PaymentsModel(ReadOnlyTableModel):
    columns = ("#", "Line", "EndToEndId", "Creditor", "Creditor IBAN", "Amount", "Fee", "Outcome")

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.payments: list[PlannedPayment] = []

    def set_payments(self, payments: list[PlannedPayment]) -> None:
        self.beginResetModel()
        self.payments = payments
        self.endResetModel()

    def payment_changed(self, row: int) -> None:
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.columns) - 1))

    def row_count(self) -> int:
        return len(self.payments)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        each = self.payments[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            payment = each.payment
            fee = "" if each.fee is None else format_minor(each.fee, "EUR", with_code=False)
            cells = (
                str(payment.number),
                str(payment.line),
                payment.end_to_end_id,
                payment.creditor_name,
                payment.creditor_iban,
                f"{payment.amount} {payment.currency}",
                fee,
                outcome_text(each),
            )
            return cells[index.column()]
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == len(self.columns) - 1:
            state = "refused" if not each.sendable and not each.earlier else each.outcome
            return QColor(COLOURS[state]) if state in COLOURS else None
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() in (0, 1, 5, 6):
            return Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        return None


class PaymentImportDialog(NamedDialog):
    def __init__(self, context: AreaContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("paymentImportDialog")
        self.setWindowTitle("Import payment file")
        self.resize(1100, 620)
        self._context = context
        self.plan: ImportPlan | None = None
        self.source: Path | None = None  # the payment file read
        self.task: asyncio.Task[None] | None = None
        self.sending = False
        self.close_when_stopped = False
        self.confirmation: QMessageBox | None = None
        self._stop: asyncio.Event | None = None
        self.file_label = named(QLabel("No file read yet."), "importFile")
        self.file_label.setWordWrap(True)
        self.file_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.problem = NoticeLabel("")
        self.problem.setObjectName("importProblem")
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet(PROBLEM_STYLE)
        self.problem.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.progress = named(ProgressBar(), "importProgress", "Progress of the import")
        self.progress.setVisible(False)
        self.step = NoticeLabel("")
        self.step.setObjectName("importStep")
        self.model = PaymentsModel(self)
        self.table = row_table("importPayments", "The file's payments")
        self.table.setTabKeyNavigation(False)  # Tab goes on to the buttons, not cell by cell
        self.table.setModel(self.model)
        header = self.table.horizontalHeader()
        for column, width in enumerate(WIDTHS):
            header.resizeSection(column, width)
        header.setStretchLastSection(True)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.refused = named(QLabel(""), "importRefused")
        self.refused.setWordWrap(True)
        self.refused.setStyleSheet(PROBLEM_STYLE)
        self.refused.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.totals = named(QLabel(""), "importTotals")
        self.totals.setWordWrap(True)
        self.counts = NoticeLabel("")
        self.counts.setObjectName("importCounts")
        self.send_button = named(QPushButton("Send…"), "importSend")
        self.send_button.setEnabled(False)
        self.stop_button = named(QPushButton("Stop after this payment"), "importStop")
        self.stop_button.setEnabled(False)
        self.csv_button = named(QPushButton("Save report as CSV…"), "importReportCsv")
        self.pain_button = named(QPushButton("Save as pain.002…"), "importReportPain002")
        for button in (self.csv_button, self.pain_button):
            button.setEnabled(False)
        self.close_button = named(QPushButton("Close"), "importClose")
        for button in (self.csv_button, self.pain_button, self.stop_button, self.send_button):
            button.setAutoDefault(False)  # Enter never sends nor saves: Close is the default
        self.close_button.setDefault(True)
        # texts from the file and the service: shown as they are, never read as rich text
        for label in (self.file_label, self.problem, self.step, self.refused, self.totals):
            label.setTextFormat(Qt.TextFormat.PlainText)

        buttons = QHBoxLayout()
        buttons.addWidget(self.csv_button)
        buttons.addWidget(self.pain_button)
        buttons.addStretch(1)
        buttons.addWidget(self.stop_button)
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.file_label)
        layout.addWidget(self.problem)
        layout.addWidget(self.step)
        layout.addWidget(self.progress)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.refused)
        layout.addWidget(self.totals)
        layout.addWidget(self.counts)
        layout.addLayout(buttons)
        self.send_button.clicked.connect(self.confirm_send)
        self.stop_button.clicked.connect(self.stop)
        self.csv_button.clicked.connect(lambda: self._choose_report("csv"))
        self.pain_button.clicked.connect(lambda: self._choose_report("xml"))
        self.close_button.clicked.connect(self.reject)

    # -- reading and the preview

    def load(self, path: Path) -> asyncio.Task[None]:
        """Read the file and make its preview (the file dialog of the area calls this)."""
        self.task = self._context.tasks.spawn(self._load(path))
        return self.task

    async def _load(self, path: Path) -> None:
        import asyncio

        from app.files.pain001 import read_payment_file
        from app.files.xml_input import FileRefused
        from app.forms.import_journal import ImportJournal, read_states
        from app.forms.payment_import import plan_import

        self.source = path
        self.file_label.setText(f"{path.name}")
        self._busy(f"Reading {path.name}…")
        try:
            # parsed and checked against its schema off the GUI thread: a big file takes time
            payment_file = await asyncio.to_thread(read_payment_file, path)
        except FileRefused as exc:
            self._idle()
            self.problem.setText(f"Nothing can be sent from this file. {exc}")
            return
        self.file_label.setText(
            f"{path.name}: {payment_file.version}, message {payment_file.message_id}, "
            f"{len(payment_file.payments)} payments, created {payment_file.created_at}"
        )
        journal = ImportJournal(self._context.data_dir, payment_file.message_id)
        try:
            plan = await plan_import(
                self._context.banking, payment_file, self._step, read_states(journal.path)
            )
        except (ApiError, NotSignedIn) as exc:
            self._idle()
            self.problem.setText(f"The preview could not be made: {exc}")
            return
        self._idle()
        self.plan = plan
        self.model.set_payments(plan.payments)
        self._show_totals()

    def _show_totals(self) -> None:
        plan = self.plan
        assert plan is not None
        lines = [
            f"Account {total.iban}: {total.payments} payments, "
            f"{format_minor(total.amount, total.currency)} + fees "
            f"{format_minor(total.fees, total.currency)}"
            for total in plan.totals()
        ]
        to_send = [each for each in plan.sendable() if not each.earlier]
        counts = plan.counts()
        lines.append(
            f"Fees in all: {format_minor(plan.fee_total(), 'EUR')}. {len(to_send)} to send, "
            f"{counts.earlier} accepted before, {counts.checked_out} refused before sending."
        )
        self.totals.setText("\n".join(lines))
        refused = plan.refused_before()
        named_lines = [
            f"Payment {each.payment.number} (line {each.payment.line}, "
            f"{each.payment.end_to_end_id}): {each.problem}"
            for each in refused[:REFUSED_LISTED]
        ]
        if len(refused) > REFUSED_LISTED:
            named_lines.append(f"… and {len(refused) - REFUSED_LISTED} more: see the report")
        heading = "Refused before sending, nothing sent for them:\n" if refused else ""
        self.refused.setText(heading + "\n".join(named_lines))
        self.send_button.setText(f"Send {len(to_send)} payment{'s' if len(to_send) != 1 else ''}…")
        self.send_button.setEnabled(bool(to_send))
        for button in (self.csv_button, self.pain_button):
            button.setEnabled(True)

    # -- sending

    def confirm_send(self) -> None:
        plan = self.plan
        if plan is None or self.sending:
            return
        to_send = [each for each in plan.sendable() if not each.earlier]
        amounts = sum(each.amount or 0 for each in to_send)
        fees = sum(each.fee or 0 for each in to_send)
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Send the payments?",
            f"Send {len(to_send)} SEPA transfers, {format_minor(amounts, 'EUR')} plus fees "
            f"{format_minor(fees, 'EUR')}? Each payment is sent once: importing this file "
            "again sends only what was not accepted.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        name_box(box, "importConfirmation")
        box.finished.connect(
            lambda result: self.send() if result == QMessageBox.StandardButton.Yes else None
        )
        self.confirmation = box
        box.open()  # never exec(): the loop keeps running

    def send(self) -> asyncio.Task[None]:
        import asyncio

        self.sending = True
        self._stop = asyncio.Event()
        self.send_button.setEnabled(False)
        self.stop_button.setEnabled(True)
        self.task = self._context.tasks.spawn(self._send())
        return self.task

    async def _send(self) -> None:
        from app.forms.import_journal import ImportJournal, JournalBusy
        from app.forms.payment_import import run_import

        plan = self.plan
        assert plan is not None and self._stop is not None
        sendable = plan.sendable()
        self.progress.setRange(0, len(sendable))
        self.progress.setValue(0)
        self.progress.setVisible(True)
        self._show_counts()
        rows = {id(each): row for row, each in enumerate(plan.payments)}
        try:
            with ImportJournal(self._context.data_dir, plan.file.message_id) as journal:

                def progress(done: int, _of: int, _what: str) -> None:
                    self.model.payment_changed(rows[id(sendable[done - 1])])
                    self.progress.setValue(done)
                    self._show_counts()

                counts = await run_import(
                    self._context.banking, plan, journal, progress=progress, stop=self._stop
                )
            if counts.stopped.startswith("the connection was lost"):
                self.problem.setText(
                    f"The import stopped: {counts.stopped}. Import the file again once the "
                    "service answers: it resumes there."
                )
        except JournalBusy as exc:
            self.problem.setText(str(exc))
        except (ApiError, NotSignedIn) as exc:
            self.problem.setText(f"The import stopped: {exc}. Import the file again to resume.")
        finally:
            self.sending = False
            self.stop_button.setEnabled(False)
            self._finished()

    def _show_counts(self) -> None:
        assert self.plan is not None
        counts = self.plan.counts()
        self.counts.setText(
            f"Sent {counts.sent}: accepted {counts.accepted}, refused {counts.refused}, "
            f"outcome unknown {counts.unknown}"
        )

    def _finished(self) -> None:
        plan = self.plan
        assert plan is not None
        for account in {each.account.account_id for each in plan.sendable() if each.account}:
            self._context.events.transfer_changed.emit(account)
        left = [each for each in plan.sendable() if each.outcome == "not sent"]
        unknown = [each for each in plan.sendable() if each.outcome == "unknown"]
        if left:
            self.step.setText(
                f"Stopped: {len(left)} not sent. Import the file again to send them; what was "
                "accepted is not sent twice."
            )
        elif unknown:
            self.step.setText(
                f"Done, but {len(unknown)} outcome(s) unknown: import the file again to settle "
                "them (each is looked up by its id, never sent twice)."
            )
        else:
            counts = plan.counts()
            refused = counts.refused + counts.checked_out
            self.step.setText(
                f"Done: {counts.accepted} accepted"
                + (f", {counts.earlier} accepted before" if counts.earlier else "")
                + (f", {refused} refused (see the reasons)" if refused else "")
                + ". Save the report if needed."
            )
        self._show_counts()
        if self.close_when_stopped:
            super().reject()

    def stop(self) -> None:
        if self._stop is not None and self.sending:
            self._stop.set()
            self.stop_button.setEnabled(False)
            self.step.setText("Stopping after this payment…")

    def keyPressEvent(self, event: Any) -> None:  # noqa: N802 - Qt's name
        # a stray Escape while sending ends no batch: Stop or Close say it on purpose
        if event.key() == Qt.Key.Key_Escape and self.sending:
            self.step.setText(
                "Sending… To stop, press Stop after this payment (or Close): what was sent "
                "stays, and importing the file again sends the rest."
            )
            return
        super().keyPressEvent(event)

    def reject(self) -> None:
        """Close while sending: stop after the payment on its way, then close."""
        if self.sending:
            self.close_when_stopped = True
            self.stop()
            return
        if self.task is not None and not self.task.done():
            self.task.cancel()  # reading or asking fees: nothing was sent
        super().reject()

    # -- the report

    def _choose_report(self, kind: str) -> QFileDialog | None:
        plan = self.plan
        if plan is None:
            return None
        stem = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in plan.file.message_id)
        if kind == "xml":
            title, suggested, name_filter = "Save as pain.002", f"status-{stem}.xml", "XML (*.xml)"
        else:
            title, suggested, name_filter = (
                "Save report as CSV",
                f"import-{stem}.csv",
                "CSV (*.csv)",
            )
        return choose_file(
            self,
            self._context.settings,
            title,
            suggested,
            name_filter,
            lambda path: self.save_report(path),
        )

    def save_report(self, path: Path) -> None:
        """The report as pain.002 when the name ends in .xml, else CSV."""
        from app.files.pain002 import status_report, write_status_report
        from app.files.report import write_csv_report

        plan = self.plan
        assert plan is not None
        source = self.source
        if source is not None and path.exists() and source.exists() and path.samefile(source):
            self.problem.setText(
                f"{path.name} is the payment file itself: the report would replace it (and the "
                "import could not be resumed from it). Choose another name."
            )
            return
        try:
            if path.suffix.lower() == ".xml":
                data = status_report(plan.file.message_id, plan.file.version, plan.outcomes())
                write_status_report(path, data)
            else:
                write_csv_report(path, plan.outcomes())
        except OSError as exc:
            self.problem.setText(f"The report could not be written to {path}: {exc.strerror}")
            return
        self.step.setText(f"Report saved to {path}")

    # -- progress

    def _busy(self, text: str) -> None:
        self.problem.setText("")
        self.step.setText(text)
        self.progress.setRange(0, 0)  # busy: no count to give yet
        self.progress.setVisible(True)

    def _step(self, done: int, of: int, text: str) -> None:
        self.step.setText(f"{text}… {done:,} of {of:,}")
        self.progress.setRange(0, of)
        self.progress.setValue(done)

    def _idle(self) -> None:
        self.progress.setVisible(False)
        self.step.setText("")
