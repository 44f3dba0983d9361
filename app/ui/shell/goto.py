"""Go to anything (Ctrl+K): one box for what support is given — an IBAN, an e-mail, a request
or error ID from an error box, an order or a client ID — that opens the record where it lives.

- An IBAN of one of the partner's accounts opens that account in Accounts (the clients'
  accounts are looked through, at most LOOKED_THROUGH clients); any other IBAN opens the IBAN
  lookup with the bank's data.
- An e-mail lists the clients with it in Clients.
- An ID: a request (or the error ID of a box shown) opens the request log at that request; an
  order ID opens the order in Orders; a client ID selects the client in Clients.
Nothing found is said in the box, which stays open; recent look-ups are offered first."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QLineEdit, QListWidget, QVBoxLayout, QWidget

from app.api.errors import ApiError
from app.core.iban import IbanError, validate
from app.forms.goto import Target, remembered, target_of
from app.ui.common.names import NamedDialog, named
from app.ui.common.notice import NoticeLabel
from app.ui.shell.errors import NotSignedIn

if TYPE_CHECKING:
    import asyncio

RECENT_KEY = "goto/recent"
LOOKED_THROUGH = 300  # clients whose accounts are looked through for an IBAN, at most
PAGE = 100


class GoToDialog(NamedDialog):
    def __init__(self, window: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("goToDialog")
        self.setWindowTitle("Go to")
        self.setMinimumWidth(560)
        self._window = window
        self._settings = window.context.settings
        self.input = named(QLineEdit(), "goToInput", "Go to")
        self.input.setPlaceholderText("IBAN, e-mail, order or client ID, request or error ID")
        self.recent = named(QListWidget(), "goToRecent", "Recent look-ups")
        self.recent.addItems(self._recent())
        self.recent.setMaximumHeight(160)
        self.status = NoticeLabel("")
        self.status.setObjectName("goToStatus")
        self.status.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.input)
        layout.addWidget(QLabel("Recent:"))
        layout.addWidget(self.recent)
        layout.addWidget(self.status)
        self.input.returnPressed.connect(lambda: self.go(self.input.text()))
        self.recent.itemActivated.connect(lambda item: self.go(item.text()))
        self.task: asyncio.Task[None] | None = None
        self.finished.connect(lambda _result: self._stop())

    def keyPressEvent(self, event: Any) -> None:  # noqa: N802 - Qt's name
        # Down from the box to the recent look-ups: the keyboard alone does it all
        if event.key() == Qt.Key.Key_Down and not self.recent.hasFocus() and self.recent.count():
            self.recent.setFocus()
            self.recent.setCurrentRow(0)
            return
        super().keyPressEvent(event)

    def _recent(self) -> list[str]:
        stored = self._settings.value(RECENT_KEY, [])
        return [str(each) for each in (stored if isinstance(stored, list) else [stored])]

    def go(self, text: str) -> None:
        found = target_of(text)
        if isinstance(found, str):
            self.status.setText(found)
            return
        self._settings.setValue(RECENT_KEY, remembered(self._recent(), text))
        self._stop()
        self.status.setText("Looking…")
        self.task = self._window.tasks.spawn(self._go(found))

    def _stop(self) -> None:
        """A look-up still on its way ends with the box (not the one closing it)."""
        import asyncio  # here, not at the top: the window shows before asyncio loads

        task = self.task
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()

    async def _go(self, target: Target) -> None:
        try:
            if target.kind == "iban":
                await self._iban(target.value)
            elif target.kind == "email":
                self._show_area("Clients").filter_by(f'email[eq]"{target.value}"')
                self.accept()
            else:
                await self._id(target.value)
        except (ApiError, NotSignedIn) as exc:
            self.status.setText(f"Could not look: {exc}")

    def _show_area(self, name: str) -> Any:
        self._window.show_area(name)
        return self._window.area_named(name)

    async def _iban(self, iban: str) -> None:
        try:
            validate(iban)
        except IbanError as exc:
            self.status.setText(f"{iban}: {exc}")
            return
        banking = self._window.context.banking
        for offset in range(0, LOOKED_THROUGH, PAGE):
            clients = await banking.list_clients_v2(offset=offset, limit=PAGE)
            for client in clients:
                self.status.setText(f"Looking for {iban} among the accounts of {client.id}…")
                for account in await banking.list_accounts(client.id):
                    if account.iban.replace(" ", "").upper() == iban:
                        self._show_area("Accounts").show_account(client.id, account.id)
                        self.accept()
                        return
            if len(clients) < PAGE:
                break
        iban_area = self._show_area("IBAN lookup")  # not the partner's: the bank's data
        iban_area.view.input.setText(iban)
        iban_area.look_up()
        self.accept()

    async def _id(self, text: str) -> None:
        window = self._window
        request_id = window.presenter.request_of_error.get(text, text)
        if window.request_log.show_request(request_id):
            self.accept()
            return
        try:
            order = await window.context.gateway.get_order(text)
        except ApiError as exc:
            if exc.status is None or exc.status >= 500:
                raise
        else:
            self._show_area("Orders").show_order(order, select=True)
            self.accept()
            return
        banking = window.context.banking
        for offset in range(0, LOOKED_THROUGH, PAGE):
            clients = await banking.list_clients_v2(offset=offset, limit=PAGE)
            if any(client.id == text for client in clients):
                self._show_area("Clients").show_client(text)
                self.accept()
                return
            if len(clients) < PAGE:
                break
        self.status.setText(
            f"Nothing matches {text!r}: no request of this session, no order, no client with "
            "that ID. Paste an IBAN, an e-mail, an order or client ID, or a request ID."
        )
