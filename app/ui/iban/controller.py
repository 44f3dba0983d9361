"""IBAN lookup: offline validation as the agent types, then the API's bank data."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from PySide6.QtGui import QGuiApplication

from app.api.errors import ApiError, BadRequest
from app.ui.iban.view import IbanLookupView
from app.ui.shell.areas import AreaContext

if TYPE_CHECKING:
    from app.api.banking import IbanBankData
    from app.core.iban import IbanInfo

_OK_STYLE = "color: #1b7f3b;"
_BAD_STYLE = "color: #b3261e;"


class IbanArea:
    NAME: ClassVar[str] = "IBAN lookup"

    def __init__(self, context: AreaContext) -> None:
        self.view = view = IbanLookupView()
        self._context = context
        self._presenter = context.presenter
        self._tasks = context.tasks
        self._info: IbanInfo | None = None
        view.input.textChanged.connect(self._validate_offline)
        view.input.returnPressed.connect(self.look_up)
        view.lookup_button.clicked.connect(self.look_up)
        view.copy_button.clicked.connect(self._copy)

    def signed_in(self) -> None:
        self.view.input.setFocus()

    def refresh(self) -> None:
        """F5: look the typed IBAN up again."""
        if self.view.input.text().strip():
            self.look_up()

    def _validate_offline(self, text: str) -> IbanInfo | None:
        view = self.view
        view.copy_button.setEnabled(False)
        self._info = None
        if not text.strip():
            view.validity.setText(" ")
            self._clear()
            return None
        # the bank registry loads on first use, not at start-up
        from app.core.iban import IbanError, validate

        try:
            info = validate(text)
        except IbanError as exc:
            view.validity.setStyleSheet(_BAD_STYLE)
            view.validity.setText(str(exc))
            self._clear()  # never another IBAN's bank data beside this one
            return None
        view.validity.setStyleSheet(_OK_STYLE)
        view.validity.setText(f"Valid IBAN ({info.country}, bank code {info.bank_code})")
        view.copy_button.setEnabled(True)
        self._show(info, None, "Offline registry (Look up asks the API)")
        self._info = info
        return info

    def look_up(self) -> None:
        info = self._validate_offline(self.view.input.text())
        if info is None:
            self.view.validity.setStyleSheet(_BAD_STYLE)
            if not self.view.input.text().strip():
                self.view.validity.setText("Enter an IBAN to look up.")
            else:
                self.view.validity.setText(f"Not looked up: {self.view.validity.text()}")
            self.view.input.setFocus()
            return
        self._show(info, None, "Offline registry; asking the API…")
        self.view.lookup_button.setEnabled(False)
        self._tasks.spawn(self._ask_api(info))

    async def _ask_api(self, info: IbanInfo) -> None:
        try:
            data = await self._context.banking.iban_check(info.iban)
        except ApiError as exc:
            if isinstance(exc, BadRequest) and exc.has_error_body:
                # an answer, not an outage: say what the API said about this IBAN
                source = f"Offline registry; the API answered: {exc.title}"
            else:
                source = "Offline registry only (the API could not be asked)"
            self._show(info, None, source)
            self._presenter.show(exc, self.look_up)
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

    def _clear(self) -> None:
        for label in self.view.fields.values():
            label.setText("—")

    def _copy(self) -> None:
        if self._info is not None:
            QGuiApplication.clipboard().setText(self._info.iban)
