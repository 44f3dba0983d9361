"""A transfer's details, every field as the service answered it, to read and copy."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QFormLayout, QLabel, QVBoxLayout, QWidget

from app.forms.transfer import STATUS_TEXT
from app.ui.common.names import NamedDialog
from app.ui.transfers.model import currency_of

if TYPE_CHECKING:
    from app.api.banking.transfers import Transfer


def _flat(values: dict[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    for key, value in values.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            rows.extend(_flat(value, f"{name}."))
        elif value is not None:
            rows.append((name, str(value)))
    return rows


class TransferDetails(NamedDialog):
    def __init__(self, transfer: Transfer, parent: QWidget | None = None) -> None:
        from app.ui.common.formatting import money_text

        super().__init__(parent)
        self.setObjectName("transferDetails")
        self.setWindowTitle(f"Transfer {transfer.id}")
        self.setMinimumWidth(520)
        form = QFormLayout()
        currency = currency_of(transfer)
        shown = {
            "status": f"{transfer.status} ({STATUS_TEXT.get(transfer.status, transfer.status)})",
            "amount": f"{transfer.amount} ({money_text(transfer.amount, currency)} {currency})",
        }
        self.values: dict[str, str] = {}
        for name, text in _flat(transfer.model_dump(mode="json")):
            value = shown.get(name, text)
            self.values[name] = value
            label = QLabel(value)
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            label.setWordWrap(True)
            form.addRow(f"{name}:", label)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(buttons)
