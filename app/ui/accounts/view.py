"""The Accounts area's widgets; the controller decides what they do."""

from __future__ import annotations

import datetime as dt

from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.ui.accounts.model import RowsModel
from app.ui.common.date_field import DateField
from app.ui.common.formatting import CURRENCY_CHOICES
from app.ui.common.names import named
from app.ui.common.notice import NoticeLabel
from app.ui.common.widgets import fit_placeholder, show_rows

# a sandbox account holds five currencies; a real one seldom more at once
STARTING_CURRENCIES = ("EUR", "USD", "GBP", "CHF", "JPY")


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
        fit_placeholder(self.client_id)
        self.show_button = named(QPushButton("Show accounts"), "showAccounts")
        self.open_button = QPushButton("Open account")
        self.open_button.setObjectName("openAccount")
        self.enable_button = named(QPushButton("Enable"), "enableAccount", "Enable the account")
        self.disable_button = named(QPushButton("Disable"), "disableAccount", "Disable the account")
        self.close_button = named(QPushButton("Close account…"), "closeAccount")
        self.copy_button = named(QPushButton("Copy IBAN"), "copyAccountIban")
        self.statement_button = named(
            QPushButton("Statement…"), "accountStatement", "Statement of the account"
        )
        self.transfer_button = QPushButton("New transfer…")
        self.transfer_button.setObjectName("accountNewTransfer")
        self.status = NoticeLabel("")
        self.status.setObjectName("accountsStatus")
        self.model = RowsModel(("IBAN", "BIC", "Type", "Status", "Opened"), self)
        self.table = _table(self.model)
        named(self.table, "accountsTable", "Accounts")

        self.balance_date = DateField("balanceDate", "Balance at date", dt.date.today())
        self.at_date = named(QCheckBox("At date"), "balanceAtDate", "Balance at a date")
        # typing or picking a date asks for the balance at that date
        self.balance_date.date_changed.connect(lambda _day: self.at_date.setChecked(True))
        self.balance_currency = named(QComboBox(), "balanceCurrency", "Balance currency")
        self.balance_currency.setEditable(True)
        self.balance_currency.addItems(CURRENCY_CHOICES)
        self.balance_button = named(QPushButton("Show balance"), "showBalance")
        self.balances = RowsModel(("Currency", "Balance", "Available", "Date"), self)
        self.balances.right_aligned = {1, 2}
        self.balance_table = _table(self.balances)
        named(self.balance_table, "balanceTable", "Balances")
        show_rows(self.balance_table, len(STARTING_CURRENCIES))

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
            self.transfer_button,
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
