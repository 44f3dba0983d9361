"""Card entry for MOTO and merchant-side payments: the number grouped as it is typed, its
brand, the Luhn check; expiry, cardholder, cvv (not for MOTO); or a customer's saved card,
masked. After the payment is sent the number and the code are cleared from the widgets (and
their undo history) and dropped: they are never logged, stored, put in the settings or on the
clipboard — the inputs hold no selection: nothing of them can be copied, dragged, or reach
the X11 PRIMARY selection.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFocusEvent, QKeyEvent, QKeySequence, QMouseEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialogButtonBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from app.api.action import ActionKey
from app.api.errors import ApiError, InvalidInput
from app.core.gateway.cards import ascii_digits, brand, luhn
from app.core.gateway.matrix import Item
from app.ui.common.form import FormRows, ReasonLabel
from app.ui.common.names import NamedDialog, named
from app.ui.common.notice import NoticeLabel
from app.ui.orders.catalogue import status
from app.ui.orders.model import money
from app.ui.orders.rules import ACTIONS
from app.ui.shell.areas import AreaContext
from app.ui.shell.dialogs import confirmed as confirmed_by_user

if TYPE_CHECKING:
    import asyncio

    from app.api.gateway import Order, SavedCard

BRANDS = {"visa": "Visa", "mastercard": "Mastercard", "amex": "American Express", "other": ""}
NEW_CARD = "A card typed here"


# keys that copy, or select text (on X11 a selection is copied to the PRIMARY selection, which
# a middle click pastes into any program, even after the dialog is gone)
_REFUSED_KEYS = tuple(
    key
    for name, key in QKeySequence.StandardKey.__members__.items()
    if name in ("Copy", "Cut") or name.startswith("Select")
)


FAILED = ("declined", "expired")  # a payment that did not go through
OK_ICON = QStyle.StandardPixmap.SP_DialogApplyButton


class SecretLineEdit(QLineEdit):
    """An input for card data that holds no selection, so nothing of it can be copied: not
    with a key, not by dragging, not through a context menu, and not to the X11 PRIMARY
    selection, which Qt fills with any text selected by mouse or keyboard."""

    def __init__(self) -> None:
        super().__init__()
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.NoContextMenu)
        self.setDragEnabled(False)
        self.selectionChanged.connect(self._no_selection)

    def _no_selection(self) -> None:
        if self.hasSelectedText():
            self.deselect()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's API
        if any(event.matches(key) for key in _REFUSED_KEYS):
            event.ignore()
            return
        super().keyPressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's API
        self.deselect()  # Qt copies the selection to PRIMARY on the release: there is none
        super().mouseReleaseEvent(event)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's API
        event.ignore()  # a double click selects a word

    def focusInEvent(self, event: QFocusEvent) -> None:  # noqa: N802 - Qt's API
        super().focusInEvent(event)  # Tab into a field selects its text
        self.deselect()

    def wipe(self) -> None:
        """Empty, with no undo history left to bring the text back."""
        self.setText("")
        self.setModified(False)


def grouped(digits: str) -> str:
    """A card number as it is read: 4-6-5 for American Express, groups of four otherwise."""
    if brand(digits) == "amex":
        parts = [digits[:4], digits[4:10], digits[10:15], digits[15:]]
    else:
        parts = [digits[i : i + 4] for i in range(0, len(digits), 4)]
    return " ".join(part for part in parts if part)


class CardEntryDialog(NamedDialog):
    def __init__(
        self,
        context: AreaContext,
        order: Order,
        saved_cards: list[SavedCard],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("cardEntry")
        self.setWindowTitle(f"Card payment — {money(order.amount, order.currency)}")
        self.setMinimumWidth(720)
        self._context = context
        self._presenter = context.presenter
        self._tasks = context.tasks
        self.order = order
        self.moto = Item.MO in order.items
        self.saved_cards = saved_cards
        self.action = ActionKey()
        self.paid: Order | None = None
        self.tried = False  # a payment was sent (its outcome may be unknown)
        self.confirmation: QMessageBox | None = None
        self._task: asyncio.Task[None] | None = None

        grid = QGridLayout()
        self.form = FormRows(grid, problem_width=250)
        self.form.edited.connect(lambda _key: self.refresh())
        self.card_choice = QComboBox()
        self.card_choice.addItem(NEW_CARD, "")
        for card in saved_cards:
            self.card_choice.addItem(
                f"{BRANDS[card.brand] or card.brand} {card.masked}", card.token
            )
        self.form.add("saved_card", "Card", self.card_choice, name="cardChoice")
        self.number = SecretLineEdit()
        self.number.setPlaceholderText("e.g. 4111 1111 1111 1111")
        self.number.textEdited.connect(self._regroup)
        self.form.add("card_number", "Card number", self.number, name="cardNumber")
        self.month = QLineEdit()
        self.month.setPlaceholderText("MM")
        self.form.add("exp_month", "Expiry month", self.month, name="expMonth")
        self.year = QLineEdit()
        self.year.setPlaceholderText("YYYY")
        self.form.add("exp_year", "Expiry year", self.year, name="expYear")
        self.holder = QLineEdit()
        self.form.add("cardholder_name", "Cardholder (optional)", self.holder, name="holder")
        self.cvv = SecretLineEdit()
        self.cvv.setEchoMode(QLineEdit.EchoMode.Password)
        self.cvv.setMaxLength(4)
        label = "CVV (not used: MOTO)" if self.moto else "CVV"
        self.form.add("cvv", label, self.cvv, name="cvv")
        self.cvv.setEnabled(not self.moto)  # a phone order has no card in hand: no code
        self.by_merchant = QCheckBox("Saved by the merchant (merchant-side saving or follow-up)")
        self.by_merchant.setObjectName("byMerchant")
        self.scenario = QComboBox()
        self.scenario.addItems(["", "one-click", "automatic", "recurring"])
        self.form.add("scenario", "Scenario (optional)", self.scenario, name="paymentScenario")
        self.trace = QLineEdit()
        self.trace.setPlaceholderText("for a merchant-side follow-up")
        self.form.add("cof_trace_id", "cof_trace_id (optional)", self.trace, name="trace")
        self.custom_avs = QCheckBox("Ask for Custom AVS (avs: true)")
        self.custom_avs.setObjectName("customAvs")
        for box in (self.by_merchant, self.custom_avs):
            box.toggled.connect(lambda _on: self.refresh())
            grid.addWidget(box, grid.rowCount(), 1, 1, 2)
        self.card_choice.currentIndexChanged.connect(lambda _i: self.refresh())
        self.status = NoticeLabel("")
        self.status.setObjectName("paymentStatus")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status_icon = named(QLabel(), "paymentStatusIcon", "Payment outcome")
        self.reason = ReasonLabel()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.pay_button = self.buttons.addButton("Pay", QDialogButtonBox.ButtonRole.AcceptRole)
        self.pay_button.setObjectName("pay")
        self.buttons.accepted.connect(self.submit)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        intro = QLabel(
            f"Order {order.id}: {money(order.amount, order.currency)}"
            + (" — MOTO: no cardholder, no CVV" if self.moto else "")
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        layout.addLayout(grid)
        outcome = QHBoxLayout()
        outcome.addWidget(self.status_icon, 0, Qt.AlignmentFlag.AlignTop)
        outcome.addWidget(self.status, 1)
        layout.addLayout(outcome)
        layout.addWidget(self.reason)
        layout.addWidget(self.buttons)
        if saved_cards and order.customer_id is not None:
            self.card_choice.setCurrentIndex(1)
        self.refresh()

    # -- the card number as it is typed

    def _regroup(self, text: str) -> None:
        digits = "".join(ch for ch in text if ch.isascii() and ch.isdigit())[:19]
        cursor_digits = sum(
            1 for ch in text[: self.number.cursorPosition()] if ch.isascii() and ch.isdigit()
        )
        shown = grouped(digits)
        self.number.setText(shown)
        position, seen = 0, 0
        while position < len(shown) and seen < cursor_digits:
            if shown[position].isdigit():
                seen += 1
            position += 1
        self.number.setCursorPosition(position)

    def digits(self) -> str:
        return self.number.text().replace(" ", "")

    def saved(self) -> SavedCard | None:
        token = self.card_choice.currentData()
        return next((card for card in self.saved_cards if card.token == token), None)

    # -- checking

    def problems(self) -> tuple[dict[str, str], dict[str, str]]:
        problems: dict[str, str] = {}
        notes: dict[str, str] = {}
        saved = self.saved()
        for key in ("card_number", "exp_month", "exp_year"):
            self.form.rows[key].set_visible(saved is None)
        self.form.rows["saved_card"].set_visible(bool(self.saved_cards))
        if saved is None:
            digits = self.digits()
            kind = BRANDS[brand(digits)] if digits else ""
            if not digits:
                problems["card_number"] = "Required"
            elif not ascii_digits(digits) or not 13 <= len(digits) <= 19:
                problems["card_number"] = "13 to 19 digits"
            elif not luhn(digits):
                problems["card_number"] = "Not a valid card number: a digit is mistyped"
            else:
                notes["card_number"] = f"{kind} — valid" if kind else "valid"
            month, year = self.month.text().strip(), self.year.text().strip()
            if not ascii_digits(month) or not 1 <= int(month) <= 12:
                problems["exp_month"] = "Required: 1 to 12" if not month else "1 to 12"
            if not ascii_digits(year) or len(year) not in (2, 4):
                problems["exp_year"] = "Required: e.g. 2029" if not year else "e.g. 2029"
            elif "exp_month" not in problems:
                full = int(year) + (2000 if len(year) == 2 else 0)
                now = self._context.gateway.transport.server_now()
                if (full, int(month)) < (now.year, now.month):
                    problems["exp_year"] = f"The card expired in {int(month):02d}/{full}"
        else:
            notes["saved_card"] = f"expires {saved.exp_month:02d}/{saved.exp_year}"
        code = self.cvv.text()
        wanted = 4 if (saved and saved.brand == "amex") or brand(self.digits()) == "amex" else 3
        if code and (not ascii_digits(code) or len(code) != wanted):
            problems["cvv"] = f"{wanted} digits"
        elif not code and not self.moto and saved is None and not self.by_merchant.isChecked():
            problems["cvv"] = "Required"
        elif not code and saved is not None and Item.OC in self.order.items:
            problems["cvv"] = "Required for One-Click (the cardholder types it)"
        if len(self.holder.text()) > 100:
            problems["cardholder_name"] = "at most 100 characters"
        return problems, notes

    def refresh(self) -> None:
        if self.paid is not None:  # done: nothing is left to correct
            self.form.show({}, {})
            self.pay_button.setEnabled(False)
            self.pay_button.setToolTip("Paid")
            self.reason.setText("")
            return
        problems, notes = self.problems()
        reason = self.form.show(problems, notes)
        sending = self._task is not None and not self._task.done()
        self.pay_button.setEnabled(not reason and not sending and self.paid is None)
        self.pay_button.setToolTip(reason)
        self.reason.setText(reason)

    def payment_fields(self) -> dict[str, Any]:
        saved = self.saved()
        if saved is not None:
            fields: dict[str, Any] = {
                "card_number": f"************{saved.last4}",
                "exp_month": "**",
                "exp_year": "****",
            }
        else:
            year = int(self.year.text().strip())
            fields = {
                "card_number": self.digits(),
                "exp_month": int(self.month.text().strip()),
                "exp_year": year + 2000 if year < 100 else year,
            }
        optional = {
            "cvv": self.cvv.text() or None,
            "cardholder_name": self.holder.text().strip() or None,
            "saved_by_merchant": True if self.by_merchant.isChecked() else None,
            "scenario": self.scenario.currentText() or None,
            "cof_trace_id": self.trace.text().strip() or None,
            "avs": True if self.custom_avs.isChecked() else None,
        }
        fields.update({k: v for k, v in optional.items() if v is not None})
        return fields

    # -- paying

    def submit(self) -> None:
        if self._task is not None and not self._task.done():
            return
        self.form.tried = True
        self.refresh()
        if not self.pay_button.isEnabled():
            return
        self._task = self._tasks.spawn(self._confirm_and_pay())

    def masked(self) -> str:
        saved = self.saved()
        if saved is not None:
            return saved.masked
        return f"•••• {self.digits()[-4:]}"

    async def _confirm_and_pay(self) -> None:
        from app.api.gateway import PaymentCreate
        from app.api.models import build

        try:
            payment = build(PaymentCreate, self.payment_fields())
        except InvalidInput as exc:
            self._presenter.show(exc)
            return
        confirmed = await confirmed_by_user(
            self,
            self,
            ACTIONS["pay"].title,
            f"Pay {money(self.order.amount, self.order.currency)} for order {self.order.id} "
            f"with the card {self.masked()}?",
        )
        if confirmed:
            await self._pay(payment)
        del payment  # the card data goes with it, as far as Python lets go

    async def _pay(self, payment: Any) -> None:
        # the action key is keyed on what identifies the payment, never on the card itself
        identity = (self.order.id, self.masked(), payment.body().get("exp_month"))
        self.pay_button.setEnabled(False)
        self.tried = True
        try:
            # the card typed now is what goes, with the key of the payment it is
            paid = await self.action.send(
                identity,
                lambda _identity, key: self._context.gateway.pay(
                    self.order, payment, request_id=key
                ),
            )
        except ApiError as exc:
            self._presenter.show(exc)
            QTimer.singleShot(0, self.refresh)  # once this task is over: Pay again is offered
            return
        self.paid = paid
        self._forget_card()
        self._show_outcome(paid)
        self.refresh()

    def _show_outcome(self, paid: Order) -> None:
        """The payment's outcome in its status's words and colour, with an icon: a decline
        reads as one at a glance, not as black text."""
        shown = status(paid.status)
        self.status.setText(f"Order {paid.id}: {shown.title}, card {self.masked_paid(paid)}.")
        self.status.setStyleSheet(f"color: {shown.colour}; font-weight: bold;")
        failed = paid.status in FAILED
        icon = QStyle.StandardPixmap.SP_MessageBoxCritical if failed else OK_ICON
        self.status_icon.setPixmap(self.style().standardIcon(icon).pixmap(20, 20))
        self.status_icon.setAccessibleDescription("declined" if failed else "accepted")

    @staticmethod
    def masked_paid(order: Order) -> str:
        return order.card.masked if order.card is not None else "(none)"

    def _forget_card(self) -> None:
        """The payment is sent: the number shows only its last four digits, and the code is
        gone, from the widgets and their undo history."""
        last4 = self.digits()[-4:]
        self.number.wipe()
        self.cvv.wipe()
        if last4:
            self.number.setPlaceholderText(f"•••• {last4} (sent)")
        # the payment is made: nothing of it can be changed any more, the card or the rest
        rows = [row.widget for row in self.form.rows.values()]
        for widget in (*rows, self.card_choice, self.by_merchant, self.custom_avs):
            widget.setEnabled(False)

    def done(self, result: int) -> None:
        self.number.wipe()
        self.cvv.wipe()
        super().done(result)
