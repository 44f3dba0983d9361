"""Go to anything (Ctrl+K): one box for what support is given — an IBAN, an e-mail, a request
or error ID from an error box, an order, client, account or transfer ID — that opens the
record where it lives.

- An IBAN of one of the partner's accounts opens that account in Accounts (the clients'
  accounts are looked through, at most LOOKED_THROUGH clients); any other IBAN opens the IBAN
  lookup with the bank's data.
- An e-mail lists the clients with it in Clients.
- An ID: a request (or the error ID of a box shown) opens the request log at that request; an
  order ID opens the order in Orders; a client ID selects the client in Clients; an account
  ID opens the account in Accounts; a transfer ID (each account looked through asked for it)
  opens the transfer in Transfers.
- A name (or part of a name or e-mail) offers the clients it matches best as one types — the
  clients are read once for the box, at most LOOKED_THROUGH — and one of them is opened.
Nothing found is said in the box, which stays open; recent look-ups are offered first."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QLineEdit, QListWidget, QVBoxLayout, QWidget

from app.api.errors import ApiError
from app.core import limits
from app.core.iban import IbanError, validate
from app.forms.goto import Client, Target, best_matches, remembered, target_of
from app.ui.common.names import NamedDialog, named
from app.ui.common.notice import NoticeLabel
from app.ui.shell.errors import NotSignedIn
from app.ui.shell.tasks import LiveCall

if TYPE_CHECKING:
    import asyncio
    from collections.abc import AsyncIterator

    from app.api.banking import Account

RECENT_KEY = "goto/recent"
SUGGEST_PAUSE_S = 0.15  # typing paused this long: the matches are shown
SUGGEST_SPACING_S = 0.4  # and at most this often while it goes on
CHECK_IBAN = "Open the IBAN check for "  # offered for text shaped like an IBAN
LOOKED_THROUGH = 300  # clients read for the box (their accounts for an IBAN), at most


class GoToDialog(NamedDialog):
    def __init__(self, window: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("goToDialog")
        self.setWindowTitle("Go to")
        self.setMinimumWidth(560)
        self._window = window
        self._settings = window.context.settings
        self.input = named(QLineEdit(), "goToInput", "Go to")
        self.input.setPlaceholderText(
            "IBAN, e-mail, name, client/account/transfer/order ID, request or error ID"
        )
        self.recent = named(QListWidget(), "goToRecent", "Recent look-ups, or the clients matched")
        self.recent.setMaximumHeight(160)
        self.status = NoticeLabel("")
        self.status.setObjectName("goToStatus")
        self.status.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.input)
        self.list_label = named(QLabel("Recent:"), "goToListLabel")
        layout.addWidget(self.list_label)
        layout.addWidget(self.recent)
        layout.addWidget(self.status)
        self._offer([(each, "") for each in self._recent()], "Recent:")
        self.input.returnPressed.connect(lambda: self.go(self.input.text()))
        self.recent.itemActivated.connect(self._picked)
        self.task: asyncio.Task[None] | None = None
        self._looked_up = ""
        self._clients: list[Client] | None = None  # read once for the box
        self._accounts: dict[str, list[Account]] = {}  # each client's, read once for the box
        self.live = LiveCall(window.tasks, SUGGEST_PAUSE_S, SUGGEST_SPACING_S, self._suggest)
        self.input.textEdited.connect(lambda _text: self.live.changed())
        self.input.textEdited.connect(lambda _text: self.status.clear())  # said of older text
        self.finished.connect(lambda _result: self._stop())

    def accept(self) -> None:
        """Found: the look-up is offered first next time (one that found nothing is not)."""
        if self._looked_up:
            self._settings.setValue(RECENT_KEY, remembered(self._recent(), self._looked_up))
        super().accept()

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
        self._looked_up = text  # remembered once it is found (accept), not before
        self.live.stop()  # the matches of the text as typed would take the list's place
        self._stop()
        self.status.setText("Looking…")
        self.task = self._window.tasks.spawn(self._go(found))

    def _picked(self, item: Any) -> None:
        client_id = item.data(Qt.ItemDataRole.UserRole)
        if client_id:  # a client offered as one typed
            self._looked_up = client_id
            self._show_area("Clients").show_client(client_id)
            self.accept()
        elif item.text().startswith(CHECK_IBAN):
            self._open_iban_check(item.text().removeprefix(CHECK_IBAN))
        else:
            self.go(item.text())

    def _suggest(self) -> Any:
        """The clients the text matches best, once typing pauses (the recent look-ups when it
        is no name or e-mail); what to await, or None."""
        text = self.input.text().strip()
        target = target_of(text)
        wanted = isinstance(target, Target) and (
            target.kind in ("name", "email") or (target.kind == "id" and text.isalpha())
        )
        if not wanted or len(text) < 2:
            self._offer([(each, "") for each in self._recent()], "Recent:")
            return None
        return self._show_matches(text, as_typed=True)

    async def _show_matches(self, text: str, *, as_typed: bool = False) -> list[Client]:
        try:
            found = best_matches(text, await self._all_clients())
        except (ApiError, NotSignedIn) as exc:
            self.status.setText(f"Could not look: {exc}")
            return []
        if not as_typed or text == self.input.text().strip():  # never for older input
            shown = [(f"{name} — {email} ({key})", key) for key, name, email in found]
            self._offer(shown, "Matches:" if found else f"No client matches {text!r}")
        return found

    def _offer(self, items: list[tuple[str, str]], label: str) -> None:
        from PySide6.QtWidgets import QListWidgetItem

        self.recent.clear()
        for text, client_id in items:
            item = QListWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, client_id)
            self.recent.addItem(item)
        self.list_label.setText(label)

    async def _all_clients(self) -> list[Client]:
        if self._clients is None:
            from app.ui.clients.model import client_cells

            banking = self._window.context.banking
            found: list[Client] = []
            async for client in banking.each_client_v2(at_most=LOOKED_THROUGH):
                cells = client_cells(client)
                found.append((client.id, cells[2], cells[3]))
            self._clients = found
        return self._clients

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
            elif target.kind == "name":
                await self._name(target.value)
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
            self.status.setText(str(exc))  # "Invalid IBAN DE00…: the check digits …"
            # shaped like one: the IBAN check is offered, where its parts are spelled out
            self._offer([(f"{CHECK_IBAN}{iban}", "")], "Offered:")
            return
        async for client_id, account in self._each_account(f"Looking for {iban}"):
            if iban in (account.iban.replace(" ", "").upper(), account.id):
                self._show_area("Accounts").show_account(client_id, account.id)
                self.accept()
                return
        self._open_iban_check(iban)  # not the partner's: the bank's data

    def _open_iban_check(self, iban: str) -> None:
        iban_area = self._show_area("IBAN lookup")
        iban_area.view.input.setText(iban)
        iban_area.look_up()
        self.accept()

    async def _each_account(self, doing: str) -> AsyncIterator[tuple[str, Account]]:
        """The accounts of the clients looked through, each client's read once for the box."""
        banking = self._window.context.banking
        for client_id, _name, _email in await self._all_clients():
            accounts = self._accounts.get(client_id)
            if accounts is None:
                self.status.setText(f"{doing} among the accounts of {client_id}…")
                accounts = self._accounts[client_id] = await banking.list_accounts(client_id)
            for account in accounts:
                yield client_id, account

    async def _transfer(self, transfer_id: str) -> bool:
        """The transfer of that ID in one of the accounts looked through, opened in Transfers
        (each account asked for it by ID, its three kinds at once); False when none has it."""
        import asyncio

        from app.api.banking import TransferQuery
        from app.forms.transfer import KINDS

        if limits.TRANSFER_ID.length_problem(transfer_id):
            return False
        banking = self._window.context.banking
        query = TransferQuery(id=transfer_id, limit=1)

        async def listed(kind: Any, account_id: str) -> list[Any]:
            try:
                found: list[Any] = await banking.list_transfers(kind, account_id, query)
                return found
            except ApiError as exc:  # a closed account's list refused: not there
                if exc.status is None or exc.status >= 500:
                    raise
                return []

        async for client_id, account in self._each_account(f"Looking for {transfer_id}"):
            self.status.setText(f"Looking for {transfer_id} in account {account.id}…")
            found = await asyncio.gather(*(listed(kind, account.id) for kind in KINDS))
            for kind, transfers in zip(KINDS, found, strict=True):
                if transfers and transfers[0].id == transfer_id:
                    area = self._show_area("Transfers")
                    area.show_transfer(client_id, account.id, kind, transfers[0])
                    self.accept()
                    return True
        return False

    async def _id(self, text: str) -> None:
        window = self._window
        request_id = window.presenter.request_of_error.get(text, text)
        if window.request_log.show_request(request_id):
            self.accept()
            return
        if any(client_id == text for client_id, _name, _email in await self._all_clients()):
            self._show_area("Clients").show_client(text)
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
        async for client_id, account in self._each_account(f"Looking for {text}"):
            if account.id == text:
                self._show_area("Accounts").show_account(client_id, account.id)
                self.accept()
                return
        if text.isalpha() and await self._name(text, quiet=True):
            return  # a word of a name
        if await self._transfer(text):
            return
        self.status.setText(
            f"Nothing matches {text!r}: no request of this session, no order, client, account "
            "or transfer with that ID, no client of that name. Paste an IBAN, an e-mail, an "
            "ID, or a request ID."
        )

    async def _name(self, text: str, *, quiet: bool = False) -> bool:
        """One client matched: opened; several: offered to choose; False when none."""
        found = await self._show_matches(text)
        if len(found) == 1:
            self._show_area("Clients").show_client(found[0][0])
            self.accept()
        elif found:
            self.status.setText(f"{len(found)} clients match {text!r}: choose one (Down, Enter)")
        elif not quiet:
            self.status.setText(f"No client's name or e-mail holds {text!r}")
        return bool(found)
