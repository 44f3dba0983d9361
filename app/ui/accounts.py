"""The Accounts area: a client's accounts; open one; enable, disable and close with a
confirmation; balances, optionally at a date and in a currency."""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QDate,
    QSettings,
    Qt,
)
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDateEdit,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.api.errors import ApiError, InvalidInput
from app.ui.dialogs import opened
from app.ui.errors import ErrorPresenter
from app.ui.formatting import CURRENCY_CHOICES, chosen_currency, money_text
from app.ui.table_model import Index, ReadOnlyTableModel
from app.ui.tasks import TaskGroup

if TYPE_CHECKING:
    from app.api.models import Account, Balance, ResultString

AccountRole = Qt.ItemDataRole.UserRole + 1


class RowsModel(ReadOnlyTableModel):
    """A small read-only table of pre-formatted rows, each with its object."""

    def __init__(self, columns: tuple[str, ...], parent: Any = None) -> None:
        super().__init__(parent)
        self.columns = columns
        self._rows: list[tuple[Any, tuple[str, ...]]] = []
        self.right_aligned: set[int] = set()

    def set_rows(self, rows: list[tuple[Any, tuple[str, ...]]]) -> None:
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def item(self, row: int) -> Any:
        return self._rows[row][0]

    def row_count(self) -> int:
        return len(self._rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self._rows[index.row()][1][index.column()]
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() in self.right_aligned:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == AccountRole:
            return self._rows[index.row()][0]
        return None


def _table(model: RowsModel) -> QTableView:
    table = QTableView()
    table.setModel(model)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().setVisible(False)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
    return table


class AccountsView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.client_id = QLineEdit()
        self.client_id.setObjectName("accountsClientId")
        self.client_id.setPlaceholderText("Client ID, e.g. C0000001")
        self.client_id.setMaxLength(64)
        self.show_button = QPushButton("Show accounts")
        self.open_button = QPushButton("Open account")
        self.open_button.setObjectName("openAccount")
        self.enable_button = QPushButton("Enable")
        self.disable_button = QPushButton("Disable")
        self.close_button = QPushButton("Close account…")
        self.copy_button = QPushButton("Copy IBAN")
        self.statement_button = QPushButton("Statement…")
        self.status = QLabel("")
        self.status.setObjectName("accountsStatus")
        self.model = RowsModel(("IBAN", "BIC", "Type", "Status", "Opened"), self)
        self.table = _table(self.model)
        self.table.setObjectName("accountsTable")

        self.balance_date = QDateEdit()
        self.balance_date.setCalendarPopup(True)
        self.balance_date.setDisplayFormat("yyyy-MM-dd")
        self.balance_date.setDate(QDate.currentDate())
        self.balance_date.setEnabled(False)
        self.at_date = QCheckBox("At date")
        self.at_date.toggled.connect(self.balance_date.setEnabled)
        self.balance_currency = QComboBox()
        self.balance_currency.setEditable(True)
        self.balance_currency.addItems(CURRENCY_CHOICES)
        self.balance_button = QPushButton("Show balance")
        self.balances = RowsModel(("Currency", "Balance", "Available", "Date"), self)
        self.balances.right_aligned = {1, 2}
        self.balance_table = _table(self.balances)
        self.balance_table.setObjectName("balanceTable")

        who = QHBoxLayout()
        who.addWidget(QLabel("Client:"))
        who.addWidget(self.client_id)
        who.addWidget(self.show_button)
        who.addStretch(1)
        who.addWidget(self.status)
        actions = QHBoxLayout()
        for button in (
            self.open_button,
            self.enable_button,
            self.disable_button,
            self.close_button,
            self.copy_button,
            self.statement_button,
        ):
            actions.addWidget(button)
        actions.addStretch(1)
        balance_box = QGroupBox("Balance of the selected account")
        balance_layout = QVBoxLayout(balance_box)
        balance_query = QHBoxLayout()
        balance_query.addWidget(self.at_date)
        balance_query.addWidget(self.balance_date)
        balance_query.addWidget(self.balance_currency)
        balance_query.addWidget(self.balance_button)
        balance_query.addStretch(1)
        balance_layout.addLayout(balance_query)
        balance_layout.addWidget(self.balance_table)

        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("<h2>Accounts</h2>"))
        layout.addLayout(who)
        layout.addLayout(actions)
        layout.addWidget(self.table, 2)
        layout.addWidget(balance_box, 1)


class AccountsController:
    def __init__(
        self,
        view: AccountsView,
        *,
        accounts: Callable[[str], Awaitable[list[Account]]],
        open_account: Callable[[str], Awaitable[Account]],
        operate: Callable[[str, str, str], Awaitable[ResultString]],
        balances: Callable[[str, str, dt.date | None, str | None], Awaitable[list[Balance]]],
        show_statement: Callable[[str, str], None],
        presenter: ErrorPresenter,
        tasks: TaskGroup,
        settings: QSettings,
    ) -> None:
        self.view = view
        self._accounts = accounts
        self._open_account = open_account
        self._operate = operate
        self._balances = balances
        self._show_statement = show_statement
        self._presenter = presenter
        self._tasks = tasks
        self._settings = settings
        self.confirmation: QMessageBox | None = None
        self._client_id = ""
        view.client_id.setText(str(settings.value("accounts/client_id", "")))
        view.show_button.clicked.connect(self.show_accounts)
        view.client_id.returnPressed.connect(self.show_accounts)
        view.open_button.clicked.connect(self.open_account)
        view.enable_button.clicked.connect(lambda: self.operate("enable"))
        view.disable_button.clicked.connect(lambda: self.operate("disable"))
        view.close_button.clicked.connect(lambda: self.operate("close"))
        view.copy_button.clicked.connect(self.copy_iban)
        view.statement_button.clicked.connect(self.statement)
        view.balance_button.clicked.connect(self.show_balance)
        view.table.selectionModel().selectionChanged.connect(lambda *_: self._buttons())
        self._buttons()

    def show_client(self, client_id: str) -> None:
        self.view.client_id.setText(client_id)
        self.show_accounts()

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
        for button in (view.copy_button, view.statement_button, view.balance_button):
            button.setEnabled(account is not None)

    # -- list

    def show_accounts(self) -> None:
        client_id = self.view.client_id.text().strip()
        if not client_id:
            self._presenter.show(InvalidInput("client", "enter the client ID"))
            return
        self._settings.setValue("accounts/client_id", client_id)
        self._tasks.spawn(self._load(client_id))

    async def _load(self, client_id: str, select: str | None = None) -> None:
        try:
            accounts = await self._accounts(client_id)
        except (ApiError, InvalidInput) as exc:
            self._presenter.show(
                exc, retry=lambda: self._tasks.spawn(self._load(client_id, select))
            )
            return
        self._client_id = client_id
        self.view.model.set_rows([(account, _account_cells(account)) for account in accounts])
        self.view.balances.set_rows([])
        self.view.status.setText(
            f"Client {client_id}: {len(accounts)} account{'s' if len(accounts) != 1 else ''}"
        )
        chosen = select or (accounts[0].id if accounts else None)
        for row, account in enumerate(accounts):
            if account.id == chosen:
                self.view.table.selectRow(row)
        self._buttons()

    # -- actions

    def open_account(self) -> None:
        if self._client_id:
            self._tasks.spawn(self._open(self._client_id))

    async def _open(self, client_id: str) -> None:
        try:
            account = await self._open_account(client_id)
        except (ApiError, InvalidInput) as exc:
            self._presenter.show(exc, retry=self.open_account)
            return
        await self._load(client_id, select=account.id)
        self.view.status.setText(f"Opened account {account.iban}")

    def operate(self, operation: str) -> None:
        account = self.selected()
        if account is not None:
            self._tasks.spawn(self._confirm_and_operate(account, operation))

    async def _confirm_and_operate(self, account: Account, operation: str) -> None:
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
        self.confirmation = box
        try:
            confirmed = await opened(box) == QMessageBox.StandardButton.Yes
        finally:
            self.confirmation = None
            box.deleteLater()
        if not confirmed:
            return
        try:
            result = await self._operate(self._client_id, account.id, operation)
        except (ApiError, InvalidInput) as exc:
            self._presenter.show(exc, retry=lambda: self.operate(operation))
            return
        await self._load(self._client_id, select=account.id)
        self.view.status.setText(f"Account {account.iban} is {result.result}")

    def copy_iban(self) -> None:
        account = self.selected()
        if account is not None:
            QGuiApplication.clipboard().setText(account.iban)
            self.view.status.setText(f"Copied {account.iban}")

    def statement(self) -> None:
        account = self.selected()
        if account is not None:
            self._show_statement(self._client_id, account.id)

    # -- balance

    def show_balance(self) -> None:
        account = self.selected()
        if account is None:
            return
        view = self.view
        day = None
        if view.at_date.isChecked():
            chosen = view.balance_date.date()
            day = dt.date(chosen.year(), chosen.month(), chosen.day())
        try:
            currency = chosen_currency(view.balance_currency.currentText())
        except InvalidInput as exc:
            self._presenter.show(exc)
            return
        self._tasks.spawn(self._balance(account, day, currency))

    async def _balance(self, account: Account, day: dt.date | None, currency: str | None) -> None:
        try:
            balances = await self._balances(self._client_id, account.id, day, currency)
        except (ApiError, InvalidInput) as exc:
            self._presenter.show(exc, retry=self.show_balance)
            return
        self.view.balances.set_rows([(balance, _balance_cells(balance)) for balance in balances])


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
