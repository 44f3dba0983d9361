"""The New transfer form: SEPA, world or internal, from one account.

One set of inputs serves the three kinds (a kind shows the rows it needs), so what was typed
stays when the kind changes. Every input is checked as it is typed against the contract's
limits; Submit stays disabled, saying why, until the form can be sent. The fee is asked for
about 250 ms after the last change of what it depends on; a newer change cancels the request
in flight, and an answer for older input is never shown.

The form owns its action key: the automatic retries, Submit pressed again after any error and
the re-run after signing in send the same request with the same x-request-id, so one form
never creates two transfers. Once created, the form follows the transfer until it is done or
in error; New transfer starts a fresh form with a fresh id.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer
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

from app.api.action import ActionKey
from app.api.errors import ApiError, InvalidInput
from app.core import checks, limits
from app.core.ids import uuid7
from app.core.limits import Bound
from app.core.money import MoneyError, format_minor, is_currency, to_minor
from app.ui.common.form import (
    NOTE_STYLE,
    PROBLEM_STYLE,
    FormRows,
    ReasonLabel,
    ask_before_discarding,
)
from app.ui.common.notice import NoticeLabel
from app.ui.shell.areas import AreaContext
from app.ui.shell.dialogs import confirmed as confirmed_by_user
from app.ui.shell.tasks import Debounce
from app.ui.transfers.model import KIND_TITLES, KINDS, STATUS_TEXT, Kind, list_transfers

if TYPE_CHECKING:
    import asyncio

    from pydantic import BaseModel

    from app.api.banking import FeeQuote
    from app.ui.transfers.model import Transfer

FEE_PAUSE_S = 0.25  # typing stopped this long: the fee is asked
FOLLOW_MS = 1000  # how often a transfer in progress is asked about
COMMON_CURRENCIES = ("EUR", "USD", "GBP", "CHF", "JPY")
ALL: tuple[Kind, ...] = KINDS


@dataclass(frozen=True)
class Field:
    key: str
    label: str
    kinds: tuple[Kind, ...]
    required: tuple[Kind, ...]  # the kinds that need it
    bound: Bound
    placeholder: str = ""


FIELDS: tuple[Field, ...] = (
    Field("id", "Transfer ID", ALL, ALL, limits.TRANSFER_ID),
    Field("amount", "Amount", ALL, ALL, Bound(1, 40), "e.g. 1234.50"),
    Field("currency", "Currency", ALL, ALL, limits.CURRENCY),
    Field("recipient_name", "Recipient name", ALL, ("sepa", "world"), limits.RECIPIENT_NAME),
    Field(
        "recipient_iban",
        "Recipient IBAN",
        ("sepa", "internal"),
        ("sepa", "internal"),
        limits.RECIPIENT_IBAN,
        "e.g. DE89 3704 0044 0532 0130 00",
    ),
    Field(
        "recipient_account",
        "Recipient account",
        ("world",),
        ("world",),
        limits.RECIPIENT_ACCOUNT,
        "its number, or an IBAN",
    ),
    Field(
        "recipient_country",
        "Recipient country",
        ("sepa", "world"),
        ("sepa", "world"),
        limits.COUNTRY,
        "e.g. DE",
    ),
    Field(
        "recipient_address",
        "Recipient address",
        ("sepa", "world"),
        ("sepa", "world"),
        limits.RECIPIENT_ADDRESS,
    ),
    Field(
        "description",
        "Description",
        ALL,
        ("world",),
        limits.DESCRIPTION,
        "reference the recipient sees",
    ),
    Field("priority", "Priority", ("world",), ("world",), Bound(0, 10)),
    Field("charges_type", "Charges", ("world",), ("world",), Bound(0, 10)),
    Field("bic", "Beneficiary bank: BIC", ("world",), ("world",), Bound(0, 11), "e.g. COBADEFFXXX"),
    Field("bank", "Beneficiary bank: name", ("world",), (), limits.BANK_NAME),
    Field("bank_address", "Beneficiary bank: address", ("world",), (), limits.BANK_ADDRESS),
    Field(
        "bank_country",
        "Beneficiary bank: country",
        ("world",),
        ("world",),
        limits.COUNTRY,
        "e.g. US",
    ),
    Field("ip", "Client IP address", ALL, (), limits.IP, "e.g. 192.0.2.10"),
)
FEE_INPUTS = frozenset(
    {
        "amount",
        "currency",
        "recipient_iban",
        "recipient_account",
        "priority",
        "charges_type",
        "bank_country",
    }
)
CHARGES = (
    ("sha", "sha — shared"),
    ("our", "our — the sender pays all"),
    ("ben", "ben — the recipient pays"),
)


class TransferDialog(QDialog):
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
        self.action = ActionKey()
        self.created: Transfer | None = None
        self.notice = ""
        self.quote: FeeQuote | None = None
        self._fee_generation = 0
        self._fee_task: asyncio.Task[None] | None = None
        self._available: dict[str, int] = {}
        self._world_currencies: list[str] = []  # as the service lists them for the account
        self._auto: dict[str, str] = {}  # what the form filled in itself (from IBAN or BIC)
        self._task: asyncio.Task[None] | None = None
        self._sending = False
        self.confirmation: QMessageBox | None = None
        self.discard: QMessageBox | None = None
        self.setObjectName("transferDialog")
        self.setWindowTitle("New transfer")
        self.setMinimumWidth(900)

        self.kinds = QTabBar()
        self.kinds.setObjectName("transferKinds")
        for each in KINDS:
            self.kinds.addTab(KIND_TITLES[each])
        self.source = QLabel(f"From account {account_id} of client {client_id}")
        self.source.setObjectName("transferSource")
        self.source.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        grid = QGridLayout()
        self.form = FormRows(grid)
        self.inputs: dict[str, QLineEdit | QComboBox] = {}
        for field in FIELDS:
            widget = self._input(field)
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

        self._fee_pause = Debounce(self._tasks, FEE_PAUSE_S, self.ask_fee)
        self._follow_timer = QTimer(self)
        self._follow_timer.setInterval(FOLLOW_MS)
        self._follow_timer.timeout.connect(self._follow)
        self.form.edited.connect(self._edited)
        self.kinds.currentChanged.connect(lambda _index: self._kind_changed())
        self.kinds.setCurrentIndex(KINDS.index(kind))
        self.start_new()
        self._tasks.spawn(self._load_currencies())

    # -- inputs

    def _input(self, field: Field) -> QLineEdit | QComboBox:
        if field.key == "currency":
            combo = QComboBox()
            combo.setEditable(True)
            combo.addItems(COMMON_CURRENCIES)
            return combo
        if field.key == "priority":
            combo = QComboBox()
            combo.addItem("standard", "standard")
            combo.addItem("urgent (20 more in fee)", "urgent")
            return combo
        if field.key == "charges_type":
            combo = QComboBox()
            for code, text in CHARGES:
                combo.addItem(text, code)
            return combo
        edit = QLineEdit()
        edit.setPlaceholderText(field.placeholder or ("optional" if not field.required else ""))
        return edit

    @property
    def kind(self) -> Kind:
        return KINDS[max(self.kinds.currentIndex(), 0)]

    def value(self, key: str) -> str:
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

    def currency(self) -> str:
        return "EUR" if self.kind == "sepa" else self.value("currency").upper()

    def _kind_changed(self) -> None:
        kind = self.kind
        for field in FIELDS:
            self.form.rows[field.key].set_visible(kind in field.kinds)
        currency = self.inputs["currency"]
        currency.setEnabled(kind != "sepa" and self.created is None)
        if kind == "sepa":
            self.set_value("currency", "EUR")
        self.setWindowTitle(f"New {KIND_TITLES[kind]} transfer")
        self.refresh()
        self._fee_input_changed()

    def _edited(self, key: str) -> None:
        if key in ("recipient_iban", "recipient_account", "bic"):
            self._fill_from_registry(key)
        self.refresh()
        if key in FEE_INPUTS:
            self._fee_input_changed()

    def _fill(self, key: str, text: str | None) -> None:
        """Fill an input the user has left empty, or that the form filled before."""
        if not text:
            return
        current = self.value(key)
        if not current or current == self._auto.get(key):
            self._auto[key] = text
            self.set_value(key, text)

    def _fill_from_registry(self, key: str) -> None:
        from app.core.iban import IbanError, bic_info, validate

        try:
            if key == "recipient_iban" and self.kind == "sepa":
                self._fill("recipient_country", validate(self.value(key)).country)
            elif key == "recipient_account":
                info = validate(self.value(key))
                self._fill("bic", info.bic)
            elif key == "bic":
                bic = bic_info(self.value("bic"))
                self._fill("bank", bic.bank)
                self._fill("bank_country", bic.country)
        except IbanError:
            return  # its problem is marked beside it

    # -- checks as typed

    def problems(self) -> tuple[dict[str, str], dict[str, str]]:
        """Every visible input's problem in the user's words, and the notes (the bank of an
        IBAN or a BIC) shown beside the inputs that are right."""
        from app.core.iban import IbanError, bic_info, validate

        kind = self.kind
        found: dict[str, str] = {}
        notes: dict[str, str] = {}
        for field in FIELDS:
            if kind not in field.kinds:
                continue
            text = self.value(field.key)
            if field.key in ("recipient_iban", "bic"):
                text = self._compact(field.key)  # the spaces typed to group it do not count
            problem = checks.length(text, _bound(field, kind), required=kind in field.required)
            if problem and text and self._format_problem(field.key, text):
                problem = self._format_problem(field.key, text)  # its shape, not a count
            if problem is None and text:
                problem = self._format_problem(field.key, text)
            if problem is None and text and field.key in ("recipient_iban", "bic"):
                try:
                    if field.key == "bic":
                        bic = bic_info(text)
                        notes["bic"] = bic.bank or "not in the offline registry"
                    else:
                        info = validate(text)
                        if kind == "sepa" and not info.sepa:
                            problem = f"{info.country} is outside the SEPA area"
                        else:
                            notes["recipient_iban"] = (
                                ", ".join(part for part in (info.bank, info.bic) if part)
                                or "bank not in the offline registry"
                            )
                except IbanError as exc:
                    problem = str(exc)
            if problem:
                found[field.key] = problem
        return found, notes

    def _format_problem(self, key: str, text: str) -> str | None:
        if key == "amount":
            return self._amount_problem(text)
        if key == "currency":
            code = text.upper()
            if not is_currency(code):
                return "Enter an ISO 4217 code such as EUR"
            offered = self._world_currencies
            if self.kind == "world" and offered and code not in offered:
                return f"World transfers are made in {', '.join(offered)}"
            return None
        if key in ("recipient_country", "bank_country"):
            return checks.country(text)
        if key == "ip":
            return checks.ipv4(text)
        return None

    def _amount_problem(self, text: str) -> str | None:
        currency = self.currency()
        if not is_currency(currency):
            return "Choose the currency first"
        try:
            minor = to_minor(text, currency)
        except MoneyError as exc:
            return str(exc)
        if not limits.AMOUNT.low <= minor <= limits.AMOUNT.high:
            top = format_minor(limits.AMOUNT.high, currency)
            return f"From {format_minor(1, currency)} to {top}"
        return None

    def amount(self) -> int | None:
        """The amount in minor units, when the typed text is a valid one."""
        try:
            minor = to_minor(self.value("amount"), self.currency())
        except MoneyError:
            return None
        return minor if limits.AMOUNT.low <= minor <= limits.AMOUNT.high else None

    def refresh(self) -> None:
        found, notes = self.problems()
        reason = self.form.show(found, notes)
        if self.created is not None:
            reason = "This transfer was sent: New transfer starts another"
        self.submit_button.setEnabled(not reason and not self._sending)
        self.submit_button.setToolTip(reason)
        self.reason.setText(reason)
        self._show_total()

    # -- the fee, live

    def _fee_input_changed(self) -> None:
        """Anything the fee depends on changed: the fee shown is no longer right, and the
        question goes out once the typing stops."""
        self._fee_generation += 1
        if self._fee_task is not None and not self._fee_task.done():
            self._fee_task.cancel()  # a newer input: the answer in flight is not wanted
        self.quote = None
        self.fee.setStyleSheet("")
        self.fee.setText("Fee: …")
        self._show_total()
        self._fee_pause.restart()

    def fee_parameters(self) -> dict[str, Any] | None:
        """What the fee of the form's transfer is asked with; None while that is not valid."""
        amount = self.amount()
        found, _notes = self.problems()
        needed = {"amount", "currency", "recipient_iban", "recipient_account"} & set(found)
        if amount is None or needed:
            return None
        parameters: dict[str, Any] = {"amount": amount}
        if self.kind == "sepa":
            parameters["recipient_iban"] = self._compact("recipient_iban")
        elif self.kind == "world":
            parameters.update(
                currency=self.currency(),
                charges_type=self.value("charges_type"),
                priority=self.value("priority"),
                recipient_account=self.value("recipient_account"),
            )
            if "bank_country" not in found and self.value("bank_country"):
                parameters["bank_country"] = self.value("bank_country").upper()
        else:
            parameters["currency"] = self.currency()
        try:
            _fee_model(self.kind, parameters)
        except InvalidInput:
            return None
        return parameters

    def ask_fee(self) -> None:
        """The debounce ran out: ask for the fee of what the form holds now."""
        parameters = self.fee_parameters()
        if parameters is None:
            self.fee.setText("Fee: enter the amount and the recipient to see it")
            return
        generation = self._fee_generation
        self._fee_task = self._tasks.spawn(self._fee(generation, self.kind, parameters))

    async def _fee(self, generation: int, kind: Kind, parameters: dict[str, Any]) -> None:
        from app.api.banking import (
            InternalFeeParameters,
            SepaFeeParameters,
            WorldFeeParameters,
            build,
        )

        banking = self._context.banking
        currency = self.currency()
        try:
            if kind == "sepa":
                quote = await banking.sepa_fee(
                    self.account_id, build(SepaFeeParameters, parameters)
                )
            elif kind == "world":
                quote = await banking.world_fee(
                    self.account_id, build(WorldFeeParameters, parameters)
                )
            else:
                quote = await banking.internal_fee(
                    self.account_id, build(InternalFeeParameters, parameters)
                )
            if currency not in self._available:
                balances = await banking.get_balance(
                    self.client_id, self.account_id, currency=currency
                )
                self._available[currency] = balances[0].available if balances else 0
        except ApiError as exc:
            if generation == self._fee_generation:
                self._fee_failed(exc)
            return
        if generation != self._fee_generation:
            return  # an answer for older input is never shown
        self.quote = quote
        self.fee.setStyleSheet("")
        self.fee.setText(f"Fee: {format_minor(quote.fee.amount, quote.fee.currency)}")
        self._show_total()

    def _fee_failed(self, error: ApiError) -> None:
        """Inline, never a box: the form stays usable."""
        self.quote = None
        if error.has_error_body:
            reason = f"{error.failure_message} (Error: {error.error_id})"
        else:
            reason = str(error)
        self.fee.setStyleSheet(PROBLEM_STYLE)
        self.fee.setText(f"Fee not available: {reason}")
        self._show_total()

    def _show_total(self) -> None:
        amount = self.amount()
        currency = self.currency()
        quote = self.quote
        if amount is None or quote is None or quote.fee.currency != currency:
            self.total.setText("")
            self.available.setText("")
            self.warning.setText("")
            return
        total = amount + quote.fee.amount
        self.total.setText(
            f"Total to be debited: {format_minor(total, currency)} "
            f"(amount {format_minor(amount, currency, with_code=False)} "
            f"+ fee {format_minor(quote.fee.amount, currency, with_code=False)})"
        )
        available = self._available.get(currency)
        if available is None:
            self.available.setText("")
            self.warning.setText("")
            return
        self.available.setStyleSheet(NOTE_STYLE)
        self.available.setText(f"Available: {format_minor(available, currency)}")
        self.warning.setText(
            "The total is more than the available balance: the transfer would be refused"
            if total > available
            else ""
        )

    async def _load_currencies(self) -> None:
        """World transfers are made in the currencies the service lists for the account."""
        try:
            listed = await self._context.banking.world_currencies(self.account_id)
        except ApiError:
            return  # the common currencies stay offered; the service checks on submit
        self._world_currencies = list(listed.currencies)
        combo = self.inputs["currency"]
        assert isinstance(combo, QComboBox)
        typed = combo.currentText()
        combo.clear()
        combo.addItems(listed.currencies)
        combo.setEditText(typed or (listed.currencies[0] if listed.currencies else ""))
        self.refresh()

    # -- submit

    def _compact(self, key: str) -> str:
        return "".join(self.value(key).split()).upper()

    def request(self) -> dict[str, Any]:
        """The transfer as the service takes it, from what the form holds."""
        kind = self.kind
        body: dict[str, Any] = {"id": self.value("id"), "amount": self.amount()}
        optional = {"description": self.value("description"), "ip": self.value("ip")}
        if kind == "sepa":
            body.update(
                recipient_name=self.value("recipient_name"),
                recipient_iban=self._compact("recipient_iban"),
                recipient_country=self.value("recipient_country").upper(),
                recipient_address=self.value("recipient_address"),
            )
        elif kind == "world":
            bank = {
                "bic": self._compact("bic"),
                "bank": self.value("bank"),
                "address": self.value("bank_address"),
                "country": self.value("bank_country").upper(),
            }
            body.update(
                currency=self.currency(),
                priority=self.value("priority"),
                charges_type=self.value("charges_type"),
                recipient_name=self.value("recipient_name"),
                recipient_account=self.value("recipient_account"),
                recipient_country=self.value("recipient_country").upper(),
                recipient_address=self.value("recipient_address"),
                beneficiary_bank={k: v for k, v in bank.items() if v},
            )
        else:
            body.update(currency=self.currency(), recipient_iban=self._compact("recipient_iban"))
            optional["recipient_name"] = self.value("recipient_name")
        body.update({k: v for k, v in optional.items() if v})
        return body

    def submit(self) -> None:
        if self._task is not None and not self._task.done():
            return  # a second click while the first is on its way does nothing
        self.form.tried = True
        self.refresh()
        if not self.submit_button.isEnabled():
            return
        self._task = self._tasks.spawn(self._confirm_and_send())

    async def _confirm_and_send(self) -> None:
        kind, request = self.kind, self.request()
        try:
            _create_model(kind, request)  # the models' own check, before anything is asked
        except InvalidInput as exc:
            self._presenter.show(exc)
            return
        confirmed = await confirmed_by_user(self, self, "Send the transfer?", self.summary())
        if confirmed:
            await self._send(kind, request)

    def summary(self) -> str:
        kind = self.kind
        currency = self.currency()
        amount = self.amount() or 0
        lines = [f"Send this {KIND_TITLES[kind]} transfer?", ""]
        lines.append(f"Recipient: {self.value('recipient_name') or '(not given)'}")
        if kind == "world":
            bank = self.value("bank") or self._compact("bic")
            lines.append(f"Account: {self.value('recipient_account')} ({bank})")
        else:
            from app.core.iban import IbanError, validate

            note = self.form.rows["recipient_iban"].problem.text()
            try:
                iban = validate(self.value("recipient_iban")).formatted
            except IbanError:
                iban = self._compact("recipient_iban")
            lines.append(f"IBAN: {iban} ({note})")
        lines.append(f"Amount: {format_minor(amount, currency)}")
        if self.quote is not None and self.quote.fee.currency == currency:
            fee = self.quote.fee.amount
            lines.append(f"Fee: {format_minor(fee, currency)}")
            lines.append(f"Total: {format_minor(amount + fee, currency)}")
        else:
            lines.append("Fee: not known yet (the service applies its tariff)")
        lines.append(f"Priority: {self.value('priority') if kind == 'world' else 'standard'}")
        lines.append(f"Transfer ID: {self.value('id')}")
        return "\n".join(lines)

    async def _send(self, kind: Kind, request: dict[str, Any]) -> None:
        """Send the transfer with the form's key. When a first Submit's outcome is unknown and
        the form changed since, that first Submit goes again instead, with its key, and its
        outcome is shown; the changes are not sent (a transfer cannot be edited): the user
        starts a New transfer for them."""
        self._busy(True)
        try:
            created = await self.action.send(
                (kind, request),
                lambda sent, key: _create(self._context, sent[0], self.account_id, sent[1], key),
            )
        except ApiError as exc:
            # the form keeps its data and its key: Submit again is the same transfer
            self._presenter.show(exc, lambda: self._tasks.spawn(self._send(kind, request)))
            return
        finally:
            self._busy(False)
        if self.action.replayed:
            self.notice = (
                "The first Submit's outcome was unknown, so it was sent again with its request "
                f"ID: transfer {created.id} was created with what you first entered. Your later "
                "changes were not sent: start a New transfer for them."
            )
        self._created(created)

    def _busy(self, busy: bool) -> None:
        self._sending = busy
        self.submit_button.setEnabled(not busy)
        if not busy:
            self.refresh()

    # -- after it was created

    def _created(self, transfer: Transfer) -> None:
        self.created = transfer
        for widget in self.inputs.values():
            widget.setEnabled(False)
        self.kinds.setEnabled(False)
        self._show_status(transfer)
        self._context.events.transfer_changed.emit(self.account_id)
        if transfer.status == "inprogress":
            self._follow_timer.start()
        self.refresh()

    def _show_status(self, transfer: Transfer) -> None:
        when = (transfer.processing_date or "").replace("T", " ").removesuffix("Z")
        text = f"Transfer {transfer.id}: {STATUS_TEXT.get(transfer.status, transfer.status)}"
        if when:
            text += f" (processing date {when} UTC)"
        if transfer.status == "inprogress":
            text += "; following it until it is done…"
        if self.notice:
            text += f"\n{self.notice}"
        self.status.setStyleSheet(PROBLEM_STYLE if transfer.status == "error" else "")
        self.status.setText(text)

    def _follow(self) -> None:
        if self.created is None or (self._task is not None and not self._task.done()):
            return
        self._task = self._tasks.spawn(self._ask_status(self.created))

    async def _ask_status(self, transfer: Transfer) -> None:
        from app.api.banking import TransferQuery

        try:
            found = await list_transfers(
                self._context.banking,
                self.kind,
                self.account_id,
                TransferQuery(id=transfer.id, limit=1),
            )
        except ApiError as exc:
            self.status.setText(f"{self.status.text()}\nCould not ask about it just now: {exc}")
            return
        if not found or found[0].status == "inprogress" or self.created is None:
            return
        self._follow_timer.stop()
        self.created = found[0]
        self._show_status(found[0])
        self._context.events.transfer_changed.emit(self.account_id)

    def start_new(self) -> None:
        """A fresh form with a fresh id: the source account and the kind stay."""
        self._follow_timer.stop()
        self.created = None
        self.notice = ""
        self.action = ActionKey()
        self._auto.clear()
        self._available.clear()
        for key, widget in self.inputs.items():
            widget.setEnabled(True)
            if isinstance(widget, QLineEdit):
                widget.clear()
            elif key not in ("currency",):
                widget.setCurrentIndex(0)
        self.kinds.setEnabled(True)
        self.set_value("id", str(uuid7()))
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
        self._fee_pause.stop()
        if self._fee_task is not None:
            self._fee_task.cancel()
        super().done(result)


def _bound(field: Field, kind: Kind) -> Bound:
    """A field's bound for a kind: a world transfer's description is required, an internal
    transfer's recipient name is not."""
    if field.key == "description" and kind == "world":
        return limits.WORLD_DESCRIPTION
    if field.key == "recipient_name" and kind == "internal":
        return limits.INTERNAL_RECIPIENT_NAME
    return field.bound


def _create_model(kind: Kind, request: dict[str, Any]) -> object:
    from app.api.banking import (
        InternalTransferCreate,
        SepaTransferCreate,
        WorldTransferCreate,
        build,
    )

    models: dict[Kind, type[BaseModel]] = {
        "sepa": SepaTransferCreate,
        "world": WorldTransferCreate,
        "internal": InternalTransferCreate,
    }
    return build(models[kind], request)


def _fee_model(kind: Kind, parameters: dict[str, Any]) -> object:
    from app.api.banking import (
        InternalFeeParameters,
        SepaFeeParameters,
        WorldFeeParameters,
        build,
    )

    models: dict[Kind, type[BaseModel]] = {
        "sepa": SepaFeeParameters,
        "world": WorldFeeParameters,
        "internal": InternalFeeParameters,
    }
    return build(models[kind], parameters)


async def _create(
    context: AreaContext, kind: Kind, account_id: str, request: dict[str, Any], key: str
) -> Transfer:
    from app.api.banking import (
        InternalTransferCreate,
        SepaTransferCreate,
        WorldTransferCreate,
        build,
    )

    banking = context.banking
    if kind == "sepa":
        sepa = build(SepaTransferCreate, request)
        return await banking.create_sepa(account_id, sepa, request_id=key)
    if kind == "world":
        world = build(WorldTransferCreate, request)
        return await banking.create_world(account_id, world, request_id=key)
    internal = build(InternalTransferCreate, request)
    return await banking.create_internal(account_id, internal, request_id=key)
