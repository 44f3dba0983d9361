"""Choosing a client and one of its accounts, as the Statements and Transfers areas do: the
client ID typed, its accounts listed to pick from (an IBAN may be typed too)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QSettings, QSignalBlocker, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QWidget

from app.api.errors import ApiError
from app.core import limits
from app.ui.common.widgets import fit_placeholder
from app.ui.shell.tasks import Debounce

if TYPE_CHECKING:
    from app.api.banking import Account
    from app.ui.shell.areas import AreaContext


class AccountChooserView(QWidget):
    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.client_id = QLineEdit()
        self.client_id.setObjectName(f"{name}ClientId")
        self.client_id.setPlaceholderText("Client ID, e.g. C0000001")
        fit_placeholder(self.client_id)
        self.account = QComboBox()
        self.account.setObjectName(f"{name}Account")
        self.account.setEditable(True)
        self.account.setMinimumWidth(260)
        account_edit = self.account.lineEdit()
        assert account_edit is not None  # an editable combo has one
        account_edit.setPlaceholderText("Account (IBAN)")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("Client:"))
        layout.addWidget(self.client_id)
        layout.addWidget(QLabel("Account:"))
        layout.addWidget(self.account, 1)


TYPING_PAUSE_S = 0.6  # typing stopped this long: the client's accounts are looked up


class AccountChooser(QObject):
    """Fills the accounts of the typed client — once typing pauses, quietly (a client ID
    half typed is no error), and when the field is left, saying what went wrong — and says
    when the choice changes."""

    changed = Signal()  # another client or account is chosen
    accounts_found = Signal(str)  # the accounts of that client are listed
    status = Signal(str)  # something to tell the user

    def __init__(self, view: AccountChooserView, context: AreaContext, settings_key: str) -> None:
        super().__init__(view)
        self.view = view
        self._context = context
        self._key = settings_key
        self.accounts: list[Account] = []
        view.client_id.setText(str(context.settings.value(settings_key, "")))
        view.client_id.editingFinished.connect(self.find_accounts)
        self._typing = Debounce(context.tasks, TYPING_PAUSE_S, self._typing_paused)
        view.client_id.textEdited.connect(lambda _text: self._typing.restart())
        view.client_id.textChanged.connect(lambda _text: self.changed.emit())
        view.account.currentTextChanged.connect(lambda _text: self.changed.emit())

    @property
    def settings(self) -> QSettings:
        return self._context.settings

    def client_id(self) -> str:
        return self.view.client_id.text().strip()

    def account_id(self) -> str:
        combo = self.view.account
        index = combo.currentIndex()
        if index >= 0 and combo.currentText() == combo.itemText(index):
            return str(combo.itemData(index))
        typed = combo.currentText().split(" (", 1)[0]  # an edited label: its IBAN part
        return "".join(typed.split()).upper()

    def account_problem(self) -> str | None:
        """What is wrong with the account typed, before anything is asked about it."""
        account = self.account_id()
        if not account:
            return "choose or enter the account"
        if not account.isascii() or not account.isalnum():
            return f"{account[:40]!r} is not an account: enter its IBAN, letters and digits"
        return limits.ACCOUNT_ID.length_problem(account)

    def choose(self, client_id: str, account_id: str) -> None:
        """That client and account, its other accounts listed."""
        self.view.client_id.setText(client_id)
        self.view.account.setEditText(account_id)
        self.find_accounts()

    def signed_in(self) -> None:
        """A session began: the accounts of the client remembered (or typed) are listed at
        once, quietly, not only once the field is left."""
        if self.client_id() and not self.accounts:
            self._typing_paused()

    def find_accounts(self) -> None:
        self._typing.stop()
        client_id = self.client_id()
        if client_id:
            self.settings.setValue(self._key, client_id)
            self._context.tasks.spawn(self._fill(client_id))

    def _typing_paused(self) -> None:
        client_id = self.client_id()
        if client_id and limits.CLIENT_ID.length_problem(client_id) is None:
            self._context.tasks.spawn(self._fill(client_id, quiet=True))

    async def _fill(self, client_id: str, *, quiet: bool = False) -> None:
        try:
            accounts = await self._context.banking.list_accounts(client_id)
        except ApiError as exc:
            if not quiet:  # leaving the field says it; a pause in typing does not
                self._context.presenter.show(exc, self.find_accounts)
            elif client_id == self.client_id():  # no other client's accounts offered
                self.accounts = []
                with QSignalBlocker(self.view.account):
                    typed = self.view.account.currentText()
                    self.view.account.clear()
                    self.view.account.setEditText(typed)
            return
        if client_id != self.client_id():
            return  # another client was typed meanwhile
        self.accounts = accounts
        combo = self.view.account
        typed = self.account_id()
        with QSignalBlocker(combo):  # refilling the list is no change of the account
            combo.clear()
            for account in accounts:
                combo.addItem(f"{account.iban} ({account.status})", account.id)
            # an account of this client stays chosen; another client's gives way to the first
            ids = [account.id for account in accounts]
            combo.setCurrentIndex(ids.index(typed) if typed in ids else (0 if ids else -1))
            if not ids:
                combo.setEditText("")
        self.changed.emit()
        self.accounts_found.emit(client_id)
        if not accounts:
            self.status.emit(f"Client {client_id} has no accounts.")
