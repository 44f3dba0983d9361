"""Widgets of the statement page; the controller decides what they do."""

from __future__ import annotations

import datetime as dt

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.ui.common.account_chooser import AccountChooserView
from app.ui.common.balance_chart import BalanceChart
from app.ui.common.date_field import DateField
from app.ui.common.formatting import CURRENCY_CHOICES
from app.ui.common.names import named
from app.ui.common.notice import NoticeLabel
from app.ui.common.progress import ProgressBar
from app.ui.common.widgets import fit_placeholder
from app.ui.statements.model import StatementModel
from app.ui.statements.table_columns import (
    ACCOUNT,
    AMOUNT,
    BALANCE,
    COUNTERPARTY,
    CURRENCY,
    DATE,
    DESCRIPTION,
    REFERENCE,
    TYPE,
)

COLUMN_WIDTHS = {
    DATE: 90,
    TYPE: 70,
    AMOUNT: 110,
    CURRENCY: 65,
    DESCRIPTION: 190,
    COUNTERPARTY: 180,
    ACCOUNT: 190,
    REFERENCE: 100,
    BALANCE: 130,
}


class StatementView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.chooser = AccountChooserView("statement")
        self.client_id = self.chooser.client_id
        self.account = self.chooser.account
        today = dt.date.today()
        self.date_from = DateField("statementFrom", "Statement from", today - dt.timedelta(days=30))
        self.date_to = DateField("statementTo", "Statement to", today)
        self.currency = named(QComboBox(), "statementCurrency", "Currency")
        self.currency.setObjectName("statementCurrency")
        self.currency.setEditable(True)
        self.currency.addItems(CURRENCY_CHOICES)
        self.load_button = QPushButton("Load")
        self.load_button.setObjectName("statementLoad")
        self.load_button.setDefault(True)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("statementCancel")
        self.cancel_button.setEnabled(False)

        period = QHBoxLayout()
        period.addWidget(QLabel("From:"))
        period.addWidget(self.date_from)
        period.addWidget(QLabel("To:"))
        period.addWidget(self.date_to)
        period.addWidget(self.currency)
        period.addStretch(1)
        period.addWidget(self.load_button)
        period.addWidget(self.cancel_button)

        self.progress = ProgressBar()
        self.progress.setObjectName("statementProgress")
        self.progress.setRange(0, 0)  # busy: the number of records is not known in advance
        self.progress.setMaximumWidth(220)  # "1,000,006 of 1,000,006 rows" while exporting
        self.progress.setMinimumWidth(200)  # and room for it, whatever the status says
        self.progress.setVisible(False)
        self.status = NoticeLabel("Choose a client, an account and a period, then Load.")
        self.status.setObjectName("statementStatus")
        self.search = QLineEdit()
        self.search.setObjectName("statementSearch")
        self.search.setPlaceholderText("Search the loaded rows")
        fit_placeholder(self.search)
        self.search.setClearButtonEnabled(True)
        self.search.setMaximumWidth(280)
        self.export_button = QPushButton("Export CSV…")
        self.export_button.setObjectName("statementExport")
        self.export_button.setEnabled(False)
        self.camt_button = QPushButton("Export camt.053…")
        self.camt_button.setObjectName("statementExportCamt053")
        self.camt_button.setToolTip("The statement as ISO 20022 camt.053.001.08 for accounting")
        self.camt_button.setEnabled(False)

        tools = QHBoxLayout()
        tools.addWidget(self.progress)
        tools.addWidget(self.status, 1)
        tools.addWidget(self.search)
        tools.addWidget(self.export_button)
        tools.addWidget(self.camt_button)

        self.model = StatementModel(self)
        self.table = QTableView()
        named(self.table, "statementTable", "Statement")
        self.table.setModel(self.model)
        self.table.setSortingEnabled(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        vertical = self.table.verticalHeader()
        vertical.setVisible(False)
        # fixed heights: never measure 100,000 rows
        vertical.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        vertical.setDefaultSectionSize(22)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        for column, width in COLUMN_WIDTHS.items():
            header.resizeSection(column, width)
        # the balance beside the amount: a number cut at the window's edge reads as another
        # number, a name cut there does not (the CSV keeps the model's order)
        header.moveSection(header.visualIndex(BALANCE), header.visualIndex(CURRENCY) + 1)
        header.setSortIndicatorShown(True)
        header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)

        self.chart = BalanceChart()
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.table)
        splitter.addWidget(self.chart)
        splitter.setStretchFactor(0, 4)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([600, 150])  # the rows get the room; the chart is a glance

        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("<h2>Statements</h2>"))
        layout.addWidget(self.chooser)
        layout.addLayout(period)
        layout.addLayout(tools)
        layout.addWidget(splitter, 1)
