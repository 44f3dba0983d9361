"""A transfer's details: every field the service answered, each under a label in words and
its value as a person reads it (amounts in the currency's units, the fee with its currency,
yes or no), to read and copy."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QFormLayout, QLabel, QVBoxLayout, QWidget

from app.forms.transfer import CHARGE_TEXT, STATUS_TEXT
from app.ui.common.names import NamedDialog, named
from app.ui.transfers.model import currency_of

if TYPE_CHECKING:
    from app.api.banking.transfers import Transfer

#: each field's label, in the order shown; a field not named here shows its name in words
LABELS = {
    "id": "Transfer ID",
    "status": "Status",
    "amount": "Amount",
    "fee": "Fee",
    "priority": "Priority",
    "charges_type": "Charges",
    "description": "Description",
    "recipient_name": "Recipient",
    "recipient_iban": "Recipient IBAN",
    "recipient_account": "Recipient account",
    "recipient_country": "Recipient country",
    "recipient_address": "Recipient address",
    "beneficiary_bank.bank": "Recipient's bank",
    "beneficiary_bank.bic": "BIC",
    "beneficiary_bank.address": "Bank address",
    "beneficiary_bank.country": "Bank country",
    "beneficiary_bank.sepa": "SEPA",
    "processing_date": "Processing date",
    "ip": "IP address",
}
# amounts given in minor units, shown in the transfer's currency
_CURRENCY_SCALED = ("amount",)


def _flat(values: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = []
    for key, value in values.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and key != "fee":
            rows.extend(_flat(value, f"{name}."))
        elif value is not None:
            rows.append((name, value))
    return rows


def label_of(name: str) -> str:
    """A field's label: its own, or its name in words ("some_field" -> "Some field")."""
    if name in LABELS:
        return LABELS[name]
    words = name.replace(".", " ").replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def _moment(text: str) -> str:
    """2026-11-25T17:18:48Z as people read it: "2026-11-25 17:18:48 UTC" (else as sent)."""
    import datetime as dt

    try:
        moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return text
    if moment.tzinfo is None:
        return text
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _grouped(iban: str) -> str:
    """An IBAN in groups of four, as printed on paper (copied back, the spaces are allowed)."""
    compact = "".join(iban.split())
    if not compact.isascii() or not compact.isalnum():
        return iban
    return " ".join(compact[start : start + 4] for start in range(0, len(compact), 4))


def detail_rows(transfer: Transfer) -> list[tuple[str, str]]:
    """The transfer as (label, value) rows, the labelled fields first in their order."""
    from app.ui.common.formatting import money_text

    currency = currency_of(transfer)

    def shown(name: str, value: Any) -> str:
        if isinstance(value, bool):
            return "yes" if value else "no"
        if name == "status":
            return STATUS_TEXT.get(str(value), str(value))
        if name in _CURRENCY_SCALED and isinstance(value, int):
            return f"{money_text(value, currency)} {currency}"
        if name == "fee" and isinstance(value, dict):
            fee_currency = str(value.get("currency", currency))
            return f"{money_text(int(value.get('amount', 0)), fee_currency)} {fee_currency}"
        if name == "charges_type":
            return CHARGE_TEXT.get(str(value), str(value))  # as the form names them
        if name == "processing_date":
            return _moment(str(value))
        if name == "recipient_iban":
            return _grouped(str(value))
        return str(value)

    fields = dict(_flat(transfer.model_dump(mode="json")))
    order = [name for name in LABELS if name in fields]
    order += [name for name in fields if name not in LABELS]
    return [(label_of(name), shown(name, fields[name])) for name in order]


class TransferDetails(NamedDialog):
    def __init__(self, transfer: Transfer, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("transferDetails")
        self.setWindowTitle(f"Transfer {transfer.id}")
        self.setMinimumWidth(520)
        form = QFormLayout()
        self.values: dict[str, str] = {}  # by label, as shown
        for label, value in detail_rows(transfer):
            self.values[label] = value
            shown = named(QLabel(value), f"detail:{label}", label)
            shown.setTextFormat(Qt.TextFormat.PlainText)
            shown.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            shown.setWordWrap(True)
            form.addRow(f"{label}:", shown)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(buttons)
