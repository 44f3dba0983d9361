"""The New transfer window: the widgets of a transfer draft (app.forms.transfer).

Every input is shown with what the draft says of it as it is typed; Submit stays disabled,
saying why, until the draft can be sent. The fee is asked for about 250 ms after the last
change of what it depends on; a newer change cancels the request in flight, and an answer for
older input is never shown. Once created, the window follows the transfer until it is done or
in error; New transfer starts a fresh draft with a fresh id and key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTabBar,
    QVBoxLayout,
    QWidget,
)

from app.api.errors import ApiError, InvalidInput
from app.core.money import format_minor
from app.forms.transfer import (
    CHARGES,
    COMMON_CURRENCIES,
    FEE_INPUTS,
    FIELDS,
    KIND_TITLES,
    KINDS,
    PRIORITIES,
    Field,
    Kind,
    TransferDraft,
)
from app.ui.common.form import (
    NOTE_STYLE,
    PROBLEM_STYLE,
    FormRows,
    ReasonLabel,
    ask_before_discarding,
)
from app.ui.common.names import NamedDialog, named
from app.ui.common.notice import NoticeLabel
from app.ui.shell.areas import AreaContext
from app.ui.shell.dialogs import confirmed as confirmed_by_user
from app.ui.shell.tasks import LiveCall

if TYPE_CHECKING:
    import asyncio
    from collections.abc import Coroutine
    from typing import Any

    from app.api.action import ActionKey
    from app.api.banking import FeeQuote
    from app.api.banking.transfers import Transfer

# the fee is asked once typing pauses this long, and while it goes on at most this often:
# at a person's pace (a key every 120 ms) a call every third key and one 0.09 s after the last
FEE_PAUSE_S = 0.09
FEE_SPACING_S = 0.3
FOLLOW_MS = 1000  # how often a transfer in progress is asked about


class TransferDialog(NamedDialog):
    def __init__(
        self,
        context: AreaContext,
        client_id: str,
        account_id: str,
        *,
        kind: Kind = "sepa",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._context = context
        self._presenter = context.presenter
        self._tasks = context.tasks
        self.client_id = client_id
        self.account_id = account_id
        self.draft = TransferDraft(client_id, account_id, kind)
        self._task: asyncio.Task[None] | None = None
        self._sending = False
        self._filling = False  # the draft's own fills are being shown: not the user's typing
        self.confirmation: QMessageBox | None = None
        self.discard: QMessageBox | None = None
        self.setObjectName("transferDialog")
        self.setWindowTitle("New transfer")
        self.setMinimumWidth(900)

        self.kinds = QTabBar()
        named(self.kinds, "transferKinds", "Kind of transfer")
        for each in KINDS:
            self.kinds.addTab(KIND_TITLES[each])
        self.source = QLabel(f"From account {account_id} of client {client_id}")
        self.source.setObjectName("transferSource")
        self.source.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        grid = QGridLayout()
        self.form = FormRows(grid)
        self.inputs: dict[str, QLineEdit | QComboBox] = {}
        for field in FIELDS:
            widget = _input(field)
            self.inputs[field.key] = widget
            self.form.add(field.key, field.label, widget, name=f"transfer.{field.key}")

        self.fee = NoticeLabel("")
        self.fee.setObjectName("transferFee")
        self.total = QLabel("")
        self.total.setObjectName("transferTotal")
        self.available = QLabel("")
        self.available.setObjectName("transferAvailable")
        self.warning = QLabel("")
        self.warning.setObjectName("transferWarning")
        self.warning.setStyleSheet(PROBLEM_STYLE)
        self.status = NoticeLabel("")
        self.status.setObjectName("transferStatus")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        for label in (self.fee, self.total, self.available):
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.buttons = QDialogButtonBox()
        self.submit_button = QPushButton("Submit…")
        self.submit_button.setObjectName("transferSubmit")
        self.submit_button.setDefault(True)
        self.new_button = QPushButton("New transfer")
        self.new_button.setObjectName("transferNew")
        self.new_button.setAutoDefault(False)
        close = self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        assert close is not None
        close.setAutoDefault(False)
        named(close, "transferClose", "Close")
        self.buttons.addButton(self.new_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.buttons.addButton(self.submit_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.buttons.rejected.connect(self.reject)
        self.submit_button.clicked.connect(self.submit)
        self.new_button.clicked.connect(self.start_new)

        layout = QVBoxLayout(self)
        layout.addWidget(self.kinds)
        layout.addWidget(self.source)
        layout.addLayout(grid)
        for label in (self.fee, self.total, self.available, self.warning, self.status):
            layout.addWidget(label)
        layout.addStretch(1)  # the room a smaller kind leaves goes here, not between rows
        self.reason = ReasonLabel()
        footer = QHBoxLayout()
        footer.addWidget(self.reason, 1)
        footer.addWidget(self.buttons)
        layout.addLayout(footer)

        self.live_fee = LiveCall(self._tasks, FEE_PAUSE_S, FEE_SPACING_S, self.ask_fee)
        self._follow_timer = QTimer(self)
        self._follow_timer.setInterval(FOLLOW_MS)
        self._follow_timer.timeout.connect(self._follow)
        self.form.edited.connect(self._edited)
        # typing into a value the form filled in (a country from the IBAN) replaces it
        self._replacing = _ReplaceFilled(self)
        for key, widget in self.inputs.items():
            if isinstance(widget, QLineEdit):
                widget.setProperty("inputKey", key)
                widget.installEventFilter(self._replacing)
        self.kinds.currentChanged.connect(lambda _index: self._kind_changed())
        self.kinds.setCurrentIndex(KINDS.index(kind))
        self.start_new()
        self._tasks.spawn(self._load_currencies())

    # -- what the draft holds

    @property
    def action(self) -> ActionKey:
        return self.draft.action

    @property
    def created(self) -> Transfer | None:
        return self.draft.created

    @property
    def quote(self) -> FeeQuote | None:
        return self.draft.quote

    @property
    def kind(self) -> Kind:
        return KINDS[max(self.kinds.currentIndex(), 0)]

    def value(self, key: str) -> str:
        """An input's value as the draft takes it (a choice's code, not its words)."""
        widget = self.inputs[key]
        if isinstance(widget, QComboBox):
            data = widget.currentData()
            if data is not None and widget.currentText() == widget.itemText(widget.currentIndex()):
                return str(data)
            return widget.currentText().strip()
        return widget.text().strip()

    def set_value(self, key: str, text: str) -> None:
        widget = self.inputs[key]
        if isinstance(widget, QComboBox):
            index = widget.findData(text)
            if index < 0:
                index = widget.findText(text)
            if index >= 0:
                widget.setCurrentIndex(index)
            else:
                widget.setEditText(text)
        else:
            widget.setText(text)

    def _read(self) -> None:
        """The inputs into the draft: it answers for what is on the screen."""
        self.draft.kind = self.kind
        for key in self.inputs:
            self.draft.values[key] = self.value(key)

    def _kind_changed(self) -> None:
        kind = self.kind
        for field in FIELDS:
            self.form.rows[field.key].set_visible(kind in field.kinds)
        self._lock_currency()
        if kind == "sepa":
            self.set_value("currency", "EUR")
        self.setWindowTitle(f"New {KIND_TITLES[kind]} transfer")
        self.refresh()
        self._fee_input_changed()
        # fewer rows shown: the form shrinks back to them (it keeps the width it was given)
        QTimer.singleShot(0, self._fit_height)

    def _lock_currency(self) -> None:
        """A SEPA transfer is in euro: its currency is not for the user to change."""
        self.inputs["currency"].setEnabled(self.kind != "sepa" and self.created is None)

    def _fit_height(self) -> None:
        layout = self.layout()
        if layout is not None:
            layout.activate()
            self.resize(self.width(), self.sizeHint().height())

    def _edited(self, key: str) -> None:
        if self._filling:
            return
        self._read()
        fills = self.draft.fills(key)
        self._filling = True
        try:
            for name, text in fills.items():
                self.set_value(name, text)
        finally:
            self._filling = False
        self.refresh()
        if key in FEE_INPUTS or FEE_INPUTS & set(fills):
            self._fee_input_changed()

    def refresh(self) -> None:
        self._read()
        found, notes = self.draft.problems()
        reason = self.draft.reason() or self.form.show(found, notes)
        self.submit_button.setEnabled(not reason and not self._sending)
        self.submit_button.setToolTip(reason)
        self.reason.setText(reason)
        self._show_total()

    # -- the fee, live

    def _fee_input_changed(self) -> None:
        """Anything the fee depends on changed: the fee shown is no longer right, and the
        question goes out once the typing stops."""
        # an answer on its way is for older input: it ends unseen (the draft drops it), and
        # the call for this input follows it, never beside it
        self.draft.fee_inputs_changed()
        self.fee.setStyleSheet("")
        self.fee.setText("Fee: …")
        self._show_total()
        self.live_fee.changed()

    def ask_fee(self) -> Coroutine[Any, Any, None] | None:
        """The fee of what the form holds now, to be asked and shown; None (and why, said)
        while the form cannot say it."""
        self._read()
        parameters = self.draft.fee_parameters()
        if parameters is None:
            self.fee.setText("Fee: enter the amount and the recipient to see it")
            return None
        return self._fee(parameters)

    async def _fee(self, parameters: dict[str, Any]) -> None:
        try:
            quote = await self.draft.ask_fee(self._context.banking, parameters)
        except ApiError as exc:
            self._fee_failed(exc)
            return
        if quote is None:
            return  # an answer for older input is never shown
        self.fee.setStyleSheet("")
        self.fee.setText(f"Fee: {format_minor(quote.fee.amount, quote.fee.currency)}")
        self._show_total()

    def _fee_failed(self, error: ApiError) -> None:
        """Inline, never a box: the form stays usable."""
        self.draft.quote = None
        if error.has_error_body:
            reason = f"{error.failure_message} (Error: {error.error_id})"
        else:
            reason = str(error)
        self.fee.setStyleSheet(PROBLEM_STYLE)
        self.fee.setText(f"Fee not available: {reason}")
        self._show_total()

    def _show_total(self) -> None:
        totals = self.draft.totals()
        self.total.setText(totals.total if totals else "")
        self.available.setStyleSheet(NOTE_STYLE)
        self.available.setText(totals.available if totals else "")
        self.warning.setText(totals.warning if totals else "")

    async def _load_currencies(self) -> None:
        """World transfers are made in the currencies the service lists for the account."""
        try:
            listed = await self._context.banking.world_currencies(self.account_id)
        except ApiError:
            return  # the common currencies stay offered; the service checks on submit
        self.draft.world_currencies = list(listed.currencies)
        combo = self.inputs["currency"]
        assert isinstance(combo, QComboBox)
        typed, touched = combo.currentText(), "currency" in self.form.touched
        combo.clear()
        combo.addItems(listed.currencies)
        combo.setEditText(typed or (listed.currencies[0] if listed.currencies else ""))
        if not touched:  # the list filled in, nothing typed: Escape loses nothing
            self.form.touched.discard("currency")
        self.refresh()

    # -- submit

    def submit(self) -> None:
        if self._task is not None and not self._task.done():
            return  # a second click while the first is on its way does nothing
        self.form.tried = True
        self.refresh()
        if not self.submit_button.isEnabled():
            return
        self._task = self._tasks.spawn(self._confirm_and_send())

    async def _confirm_and_send(self) -> None:
        kind, request = self.kind, self.draft.request()
        try:
            self.draft.check(request)  # the models' own check, before anything is asked
        except InvalidInput as exc:
            self._presenter.show(exc)
            return
        if await confirmed_by_user(self, self, "Send the transfer?", self.draft.summary()):
            await self._send(kind, request)

    async def _send(self, kind: Kind, request: dict[str, Any]) -> None:
        self._busy(True)
        try:
            await self.draft.send(self._context.banking, kind, request)
        except ApiError as exc:
            # the form keeps its data and its key: Submit again is the same transfer
            self._presenter.show(exc, lambda: self._tasks.spawn(self._send(kind, request)))
            return
        finally:
            self._busy(False)
        self._created()

    def _busy(self, busy: bool) -> None:
        """While the transfer is on its way the form says so and nothing in it can change:
        what is sent is what was confirmed."""
        self._sending = busy
        self.submit_button.setEnabled(not busy)
        for widget in self.inputs.values():
            widget.setEnabled(not busy)
        self.kinds.setEnabled(not busy)
        self.status.setStyleSheet("")
        self.status.setText("Sending…" if busy else "")
        if not busy:
            self._lock_currency()
            self.refresh()

    # -- after it was created

    def _created(self) -> None:
        for widget in self.inputs.values():
            widget.setEnabled(False)
        self.kinds.setEnabled(False)
        self._show_status()
        self._context.events.transfer_changed.emit(self.account_id)
        if self.created is not None and self.created.status == "inprogress":
            self._follow_timer.start()
        self.refresh()

    def _show_status(self) -> None:
        created = self.created
        failed = created is not None and created.status == "error"
        self.status.setStyleSheet(PROBLEM_STYLE if failed else "")
        self.status.setText(self.draft.status_text())

    def _follow(self) -> None:
        if self.created is None or (self._task is not None and not self._task.done()):
            return
        self._task = self._tasks.spawn(self._ask_status())

    async def _ask_status(self) -> None:
        try:
            settled = await self.draft.follow(self._context.banking)
        except ApiError as exc:
            self.status.setText(f"{self.status.text()}\nCould not ask about it just now: {exc}")
            return
        if not settled:
            return
        self._follow_timer.stop()
        self._show_status()
        self._context.events.transfer_changed.emit(self.account_id)

    def start_new(self) -> None:
        """A fresh form with a fresh id: the source account and the kind stay."""
        self._follow_timer.stop()
        self.draft.start_new()
        self._filling = True
        try:
            for key, widget in self.inputs.items():
                widget.setEnabled(True)
                if isinstance(widget, QLineEdit):
                    widget.clear()
                elif key != "currency":
                    widget.setCurrentIndex(0)
            self.set_value("id", self.draft.values["id"])
        finally:
            self._filling = False
        self.kinds.setEnabled(True)
        self.form.touched.clear()
        self.form.tried = False
        self.status.setText("")
        self.status.setStyleSheet("")
        self._kind_changed()

    def reject(self) -> None:
        """Escape or Close: ask first when something was typed and not sent."""
        if self.form.touched and self.created is None and self.discard is None:
            self.discard = ask_before_discarding(self, lambda: QDialog.reject(self))
            self.discard.finished.connect(lambda _r: setattr(self, "discard", None))
            return
        super().reject()

    def done(self, result: int) -> None:
        self._follow_timer.stop()
        self.live_fee.stop()
        super().done(result)


class _ReplaceFilled(QObject):
    """The first key typed into a value the form filled in itself replaces that value
    instead of adding to it ("DE" typed after "DE" was filled from the IBAN is "DE", not
    "DEDE")."""

    def __init__(self, dialog: TransferDialog) -> None:
        super().__init__(dialog)
        self._dialog = dialog

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's API
        if (
            isinstance(watched, QLineEdit)
            and event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and event.text().isprintable()
            and event.text()
        ):
            key = str(watched.property("inputKey"))
            filled = self._dialog.draft.auto.get(key)
            if filled is not None and watched.text().strip() == filled:
                del self._dialog.draft.auto[key]  # the user's value from now on
                watched.clear()
        return False


def _input(field: Field) -> QLineEdit | QComboBox:
    if field.key == "currency":
        combo = QComboBox()
        combo.setEditable(True)
        combo.addItems(COMMON_CURRENCIES)
        return combo
    if field.key in ("priority", "charges_type"):
        combo = QComboBox()
        for code, text in PRIORITIES if field.key == "priority" else CHARGES:
            combo.addItem(text, code)
        return combo
    edit = QLineEdit()
    edit.setPlaceholderText(field.placeholder or ("optional" if not field.required else ""))
    return edit
