"""IBAN lookup: offline validation as the agent types, then the API's bank data."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
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

from app.api.errors import ApiError
from app.ui.errors import ErrorPresenter
from app.ui.tasks import TaskGroup

if TYPE_CHECKING:
    from app.api.models import IbanBankData
    from app.core.iban import IbanInfo

IbanCheck = Callable[[str], Awaitable["IbanBankData"]]

_OK_STYLE = "color: #1b7f3b;"
_BAD_STYLE = "color: #b3261e;"


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
        self.copy_button = QPushButton("Copy IBAN")
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


class IbanLookupController:
    def __init__(
        self, view: IbanLookupView, check: IbanCheck, presenter: ErrorPresenter, tasks: TaskGroup
    ) -> None:
        self.view = view
        self._check = check
        self._presenter = presenter
        self._tasks = tasks
        self._info: IbanInfo | None = None
        view.input.textChanged.connect(self._validate_offline)
        view.input.returnPressed.connect(self.look_up)
        view.lookup_button.clicked.connect(self.look_up)
        view.copy_button.clicked.connect(self._copy)

    def _validate_offline(self, text: str) -> IbanInfo | None:
        view = self.view
        view.copy_button.setEnabled(False)
        self._info = None
        if not text.strip():
            view.validity.setText(" ")
            return None
        # the bank registry loads on first use, not at start-up
        from app.core.iban import IbanError, validate

        try:
            info = validate(text)
        except IbanError as exc:
            view.validity.setStyleSheet(_BAD_STYLE)
            view.validity.setText(str(exc))
            return None
        view.validity.setStyleSheet(_OK_STYLE)
        view.validity.setText(f"Valid IBAN ({info.country}, bank code {info.bank_code})")
        view.copy_button.setEnabled(True)
        self._info = info
        return info

    def look_up(self) -> None:
        info = self._validate_offline(self.view.input.text())
        if info is None:
            if not self.view.input.text().strip():
                self.view.validity.setStyleSheet(_BAD_STYLE)
                self.view.validity.setText("Enter an IBAN to look up.")
            return
        self._show(info, None, "Offline registry; asking the API…")
        self.view.lookup_button.setEnabled(False)
        self._tasks.spawn(self._ask_api(info))

    async def _ask_api(self, info: IbanInfo) -> None:
        try:
            data = await self._check(info.iban)
        except ApiError as exc:
            self._show(info, None, "Offline registry only (the API check failed)")
            self._presenter.show(exc, retry=self.look_up)
            return
        finally:
            self.view.lookup_button.setEnabled(True)
        self._show(info, data, "Bank data from the API")

    def _show(self, info: IbanInfo, data: IbanBankData | None, source: str) -> None:
        values = {
            "iban": info.formatted,
            "country": data.country if data else info.country,
            "bic": (data.bic if data else info.bic) or "unknown",
            "bank": (data.bank if data else info.bank) or "unknown",
            "address": (data.address if data else info.address) or "unknown",
            "sepa": "yes" if (data.sepa if data else info.sepa) else "no",
            "source": source,
        }
        for key, value in values.items():
            self.view.fields[key].setText(value)

    def _copy(self) -> None:
        if self._info is not None:
            QGuiApplication.clipboard().setText(self._info.iban)
