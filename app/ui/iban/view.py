"""The IBAN lookup's widgets; the controller decides what they show."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.ui.common.names import named


class IbanLookupView(QWidget):
    """Widgets only; the controller decides what they show."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.input = QLineEdit()
        self.input.setObjectName("ibanInput")
        self.input.setPlaceholderText("IBAN, for example DE89 3704 0044 0532 0130 00")
        self.input.setClearButtonEnabled(True)
        self.input.setMaxLength(50)
        self.lookup_button = QPushButton("Look up")
        self.lookup_button.setObjectName("ibanLookupButton")
        self.lookup_button.setDefault(True)
        self.copy_button = named(QPushButton("Copy IBAN"), "copyIban")
        self.copy_button.setEnabled(False)
        self.validity = QLabel(" ")
        self.validity.setObjectName("ibanValidity")
        self.validity.setWordWrap(True)

        row = QHBoxLayout()
        row.addWidget(self.input, 1)
        row.addWidget(self.lookup_button)
        row.addWidget(self.copy_button)

        self.fields: dict[str, QLabel] = {}
        result = QGroupBox("Bank data")
        form = QFormLayout(result)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        for key, label in [
            ("iban", "IBAN"),
            ("country", "Country"),
            ("bic", "BIC"),
            ("bank", "Bank"),
            ("address", "Address"),
            ("sepa", "SEPA"),
            ("source", "Source"),
        ]:
            value = QLabel("—")
            value.setObjectName(f"iban_{key}")
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            value.setWordWrap(True)
            self.fields[key] = value
            form.addRow(f"{label}:", value)

        layout = QVBoxLayout(self)
        title = QLabel("<h2>IBAN lookup</h2>")
        layout.addWidget(title)
        layout.addLayout(row)
        layout.addWidget(self.validity)
        layout.addWidget(result)
        layout.addStretch(1)
