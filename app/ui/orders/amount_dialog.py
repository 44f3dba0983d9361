"""The amount of a capture or a refund: typed in major units, checked against its bounds as
it is typed (0.01 up to what is reserved, or what remains), the consequence shown (what is
released, what remains)."""

from __future__ import annotations

from decimal import Decimal

from PySide6.QtWidgets import (
    QCheckBox,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from app.core.gateway.amounts import AmountError, format_amount, parse_amount, smallest
from app.ui.common.form import PROBLEM_STYLE
from app.ui.common.names import NamedDialog, named
from app.ui.common.notice import NoticeLabel


class AmountDialog(NamedDialog):
    """``whole``: the amount the action is bounded by (reserved, or what remains);
    ``full_choice``: offer "all of it" as a choice that sends no amount (a full refund)."""

    def __init__(
        self,
        title: str,
        intro: str,
        whole: Decimal,
        currency: str,
        rest_label: str,
        *,
        full_choice: str = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("amountDialog")
        self.setWindowTitle(title)
        self.setMinimumWidth(460)
        self.whole = whole
        self.currency = currency
        self.rest_label = rest_label
        self.full = QCheckBox(full_choice)
        self.full.setObjectName("fullAmount")
        self.full.setVisible(bool(full_choice))
        self.amount = QLineEdit(format_amount(whole, currency))
        named(self.amount, "amount", "Amount", f"In {currency}")
        self.consequence = QLabel("")
        self.consequence.setObjectName("consequence")
        self.problem = NoticeLabel("")
        self.problem.setObjectName("amountProblem")
        self.problem.setStyleSheet(PROBLEM_STYLE)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        text = QLabel(intro)
        text.setWordWrap(True)
        layout.addWidget(text)
        layout.addWidget(self.full)
        layout.addWidget(self.amount)
        layout.addWidget(self.consequence)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self.amount.textChanged.connect(lambda _text: self.refresh())
        self.full.toggled.connect(lambda _on: self.refresh())
        if full_choice:
            self.full.setChecked(True)
        self.refresh()

    def value(self) -> Decimal | None:
        """The amount chosen; None for "all of it" (or while it is not valid)."""
        if self.full.isChecked():
            return None
        return self._parsed()[0]

    def _parsed(self) -> tuple[Decimal | None, str]:
        text = self.amount.text().strip().replace(",", ".")
        try:
            amount = parse_amount(text, self.currency)
        except AmountError as exc:
            return None, str(exc) if text else "Enter the amount"
        low = smallest(self.currency)
        if not low <= amount <= self.whole:
            return None, (
                f"From {format_amount(low, self.currency)} to "
                f"{format_amount(self.whole, self.currency)} {self.currency}"
            )
        return amount, ""

    def refresh(self) -> None:
        self.amount.setEnabled(not self.full.isChecked())
        amount: Decimal | None
        if self.full.isChecked():
            amount, problem = self.whole, ""
        else:
            amount, problem = self._parsed()
        self.problem.setText(problem)
        self.ok_button.setEnabled(not problem)
        if amount is not None:
            rest = self.whole - amount
            self.consequence.setText(
                f"{self.rest_label}: {format_amount(rest, self.currency)} {self.currency}"
            )
        else:
            self.consequence.setText("")

    def chosen_amount(self) -> Decimal:
        """What the action moves: the typed amount, or all of it."""
        value = self.value()
        return self.whole if value is None else value
