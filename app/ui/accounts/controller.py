"""The Accounts area: a client's accounts; open one; enable, disable and close with a
confirmation; balances, optionally at a date and in a currency."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, ClassVar

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMessageBox

from app.api.action import ActionKey
from app.api.errors import ApiError, InvalidInput
from app.core import limits
from app.ui.accounts.view import AccountsView
from app.ui.common import account_chooser
from app.ui.common.formatting import chosen_currency, money_text
from app.ui.common.names import name_box
from app.ui.common.widgets import choose_row
from app.ui.shell.areas import AreaContext
from app.ui.shell.dialogs import opened
from app.ui.shell.tasks import Debounce

if TYPE_CHECKING:
    from app.api.banking import Account, AccountOperation, Balance


class AccountsArea:
    NAME: ClassVar[str] = "Accounts"

    def __init__(self, context: AreaContext) -> None:
        self.view = view = AccountsView()
        self._context = context
        self._presenter = context.presenter
        self._tasks = context.tasks
        self._settings = settings = context.settings
        # an Open account whose outcome is unknown: the next one replays it (its key kept)
        self._opening: tuple[str, ActionKey] | None = None
        self.confirmation: QMessageBox | None = None
        self._client_id = ""
        view.client_id.setText(str(settings.value("accounts/client_id", "")))
        view.show_button.clicked.connect(self.show_accounts)
        view.client_id.returnPressed.connect(self.show_accounts)
        # the accounts follow the typing: one call once it pauses, quietly (a client ID half
        # typed is no error)
        self._typing = Debounce(context.tasks, account_chooser.TYPING_PAUSE_S, self._typing_paused)
        view.client_id.textEdited.connect(lambda _text: self._typing.restart())
        view.open_button.clicked.connect(self.open_account)
        view.enable_button.clicked.connect(lambda: self.operate("enable"))
        view.disable_button.clicked.connect(lambda: self.operate("disable"))
        view.close_button.clicked.connect(lambda: self.operate("close"))
        view.copy_button.clicked.connect(self.copy_iban)
        view.statement_button.clicked.connect(self.statement)
        view.transfer_button.clicked.connect(self.new_transfer)
        context.events.transfer_changed.connect(self._transfer_changed)
        for changed in (
            view.at_date.toggled,
            view.balance_date.date_changed,
            view.balance_currency.currentTextChanged,
        ):
            changed.connect(self._balance_question_changed)
        self._balance_shown_for: str | None = None
        view.balance_button.clicked.connect(self.show_balance)
        view.table.selectionModel().selectionChanged.connect(lambda *_: self._buttons())
        self._buttons()

    def show_client(self, client_id: str) -> None:
        self.view.client_id.setText(client_id)
        self.show_accounts()

    def show_account(self, client_id: str, account_id: str) -> None:
        """That client's accounts, that one chosen (the go-to box found it)."""
        self._typing.stop()
        self.view.client_id.setText(client_id)
        self._tasks.spawn(self._load(client_id, select=account_id))

    def signed_in(self) -> None:
        self.refresh()

    def refresh(self) -> None:
        if self._client_id:
            self._tasks.spawn(self._load(self._client_id))

    def selected(self) -> Account | None:
        rows = self.view.table.selectionModel().selectedRows()
        if not rows:
            return None
        account: Account = self.view.model.item(rows[0].row())
        return account

    def _buttons(self) -> None:
        account = self.selected()
        view = self.view
        view.open_button.setEnabled(bool(self._client_id))
        status = account.status if account else None
        view.enable_button.setEnabled(status == "disabled")
        view.disable_button.setEnabled(status == "active")
        view.close_button.setEnabled(status in ("active", "disabled"))
        view.transfer_button.setEnabled(status == "active")
        for button in (view.copy_button, view.statement_button, view.balance_button):
            button.setEnabled(account is not None)

    # -- list

    def show_accounts(self) -> None:
        self._typing.stop()
        client_id = self.view.client_id.text().strip()
        if not client_id:
            self._presenter.show(InvalidInput("Client", "enter the client ID"))
            return
        self._settings.setValue("accounts/client_id", client_id)
        self._tasks.spawn(self._load(client_id))

    def _typing_paused(self) -> None:
        client_id = self.view.client_id.text().strip()
        if client_id and limits.CLIENT_ID.length_problem(client_id) is None:
            self._tasks.spawn(self._load(client_id, quiet=True))

    async def _load(
        self, client_id: str, select: str | None = None, *, quiet: bool = False
    ) -> None:
        try:
            accounts = await self._context.banking.list_accounts(client_id)
        except ApiError as exc:
            if client_id != self._client_id:
                # never another client's accounts under this one's ID
                self._client_id = ""
                self.view.model.set_rows([])
                self.view.balances.set_rows([])
                self._balance_shown_for = None
                # what the service said of it ("Client C99 not found"), when it said it
                said = exc.failure_message if exc.has_error_body else None
                self.view.status.setText(said or f"Client {client_id}: no accounts shown")
                self._buttons()
            if not quiet:  # Show (or Enter) says what is wrong; a pause in typing does not
                self._presenter.show(exc, lambda: self._tasks.spawn(self._load(client_id, select)))
            return
        if client_id != self.view.client_id.text().strip():
            return  # another client was typed meanwhile
        self._settings.setValue("accounts/client_id", client_id)
        self._client_id = client_id
        self.view.model.set_rows([(account, _account_cells(account)) for account in accounts])
        self.view.balances.set_rows([])
        self._balance_shown_for = None
        self.view.status.setText(
            f"Client {client_id}: {len(accounts)} account{'s' if len(accounts) != 1 else ''}"
        )
        chosen = select or (accounts[0].id if accounts else None)
        for row, account in enumerate(accounts):
            if account.id == chosen:
                choose_row(self.view.table, row)
        self._buttons()

    # -- actions

    def open_account(self) -> None:
        if not self._client_id:
            return
        client_id = self._client_id
        if self._opening is not None and self._opening[0] == client_id:
            action = self._opening[1]  # the last one's outcome is unknown: the same action
        else:
            action = ActionKey()
        self._tasks.spawn(self._confirm_open(client_id, action))

    async def _confirm_open(self, client_id: str, action: ActionKey) -> None:
        """One click never opens an account by accident: it asks first."""
        again = action.last_request is not None
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Open account",
            f"Open a new account for client {client_id}?"
            + (
                "\nThe last attempt's outcome is unknown: it is sent again, and opens at most"
                " one account."
                if again
                else ""
            ),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self.view,
        )
        box.setDefaultButton(QMessageBox.StandardButton.No)
        name_box(box, "confirmation")
        self.confirmation = box
        try:
            confirmed = await opened(box) == QMessageBox.StandardButton.Yes
        finally:
            self.confirmation = None
            box.deleteLater()
        if confirmed:
            await self._open(client_id, action)

    async def _open(self, client_id: str, action: ActionKey) -> None:
        try:
            account = await action.send(
                {"open account": client_id},
                lambda _request, key: self._context.banking.create_account(
                    client_id, request_id=key
                ),
            )
        except ApiError as exc:
            self._opening = (client_id, action) if exc.outcome_unknown else None
            # after signing in again, the same action runs with the same key
            self._presenter.show(exc, lambda: self._tasks.spawn(self._open(client_id, action)))
            return
        self._opening = None
        await self._load(client_id, select=account.id)
        self.view.status.setText(f"Opened account {account.iban}")

    def operate(self, operation: AccountOperation) -> None:
        account = self.selected()
        if account is not None:
            self._tasks.spawn(self._confirm_and_operate(account, operation))

    async def _confirm_and_operate(self, account: Account, operation: AccountOperation) -> None:
        warning = {
            "enable": "It will send and receive transfers again.",
            "disable": "It will neither send nor receive transfers until enabled.",
            "close": "Closing is final: a closed account cannot be used again.",
        }[operation]
        box = QMessageBox(
            QMessageBox.Icon.Question,
            f"{operation.capitalize()} account",
            f"{operation.capitalize()} account {account.iban}?\n{warning}",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self.view,
        )
        box.setDefaultButton(QMessageBox.StandardButton.No)
        name_box(box, "confirmation")
        self.confirmation = box
        try:
            confirmed = await opened(box) == QMessageBox.StandardButton.Yes
        finally:
            self.confirmation = None
            box.deleteLater()
        if not confirmed:
            return
        try:
            result = await self._context.banking.account_operation(
                self._client_id, account.id, operation
            )
        except ApiError as exc:
            self._presenter.show(exc, lambda: self.operate(operation))
            # the account may have changed meanwhile: show it as it is now
            await self._load(self._client_id, select=account.id)
            return
        await self._load(self._client_id, select=account.id)
        self.view.status.setText(f"Account {account.iban} is {result.result}")

    def copy_iban(self) -> None:
        account = self.selected()
        if account is not None:
            QGuiApplication.clipboard().setText(account.iban)
            self.view.status.setText(f"Copied {account.iban}")

    def new_transfer(self) -> None:
        from app.ui.transfers import TransfersArea  # built on first use

        account = self.selected()
        if account is not None:
            self._context.open(TransfersArea).new_transfer(self._client_id, account.id)

    def _balance_question_changed(self, *_args: object) -> None:
        """The date or currency asked about changed: the balances shown answered another
        question, so they go until asked again."""
        self.view.balances.set_rows([])
        self._balance_shown_for = None

    def _transfer_changed(self, account_id: str) -> None:
        """A transfer of the account whose balance is shown was created or settled."""
        account = self.selected()
        if (
            self._balance_shown_for == account_id
            and account is not None
            and account.id == account_id
        ):
            self.show_balance()

    def statement(self) -> None:
        from app.ui.statements import StatementsArea  # built on first use

        account = self.selected()
        if account is not None:
            self._context.open(StatementsArea).show_account(self._client_id, account.id)

    # -- balance

    def show_balance(self) -> None:
        account = self.selected()
        if account is None:
            return
        view = self.view
        day = None
        if view.at_date.isChecked():
            day = view.balance_date.date()
            if day is None:
                problem = view.balance_date.problem() or ""
                self._presenter.show(InvalidInput("At date", problem))
                return
        try:
            currency = chosen_currency(view.balance_currency.currentText())
        except InvalidInput as exc:
            self._presenter.show(exc)
            return
        self._tasks.spawn(self._balance(account, day, currency))

    async def _balance(self, account: Account, day: dt.date | None, currency: str | None) -> None:
        try:
            balances = await self._context.banking.get_balance(
                self._client_id, account.id, date=day, currency=currency
            )
        except ApiError as exc:
            self._presenter.show(exc, self.show_balance)
            return
        self.view.balances.set_rows([(balance, _balance_cells(balance)) for balance in balances])
        self._balance_shown_for = account.id


def _account_cells(account: Account) -> tuple[str, ...]:
    opened = account.opened_at.isoformat() if account.opened_at else ""
    return (account.iban, account.bic, account.type, account.status, opened)


def _balance_cells(balance: Balance) -> tuple[str, ...]:
    return (
        balance.currency,
        money_text(balance.balance, balance.currency),
        money_text(balance.available, balance.currency),
        balance.date.isoformat(),
    )
