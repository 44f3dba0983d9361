"""The Transfers area's widgets; the area decides what they do."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTabBar,
    QVBoxLayout,
    QWidget,
)

from app.core.limits import TRANSFER_FILTER_FIELDS
from app.forms.transfer import KIND_TITLES, KINDS
from app.ui.common.account_chooser import AccountChooserView
from app.ui.common.filter_builder import FilterBuilder
from app.ui.common.names import named
from app.ui.common.notice import NoticeLabel
from app.ui.common.widgets import fit_placeholder, row_table


class TransfersView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.chooser = AccountChooserView("transfers")
        self.show_button = QPushButton("Show transfers")
        self.show_button.setObjectName("showTransfers")
        self.new_button = QPushButton("New transfer…")
        self.new_button.setObjectName("newTransfer")
        self.new_button.setToolTip("Ctrl+N")
        self.import_button = QPushButton("Import payment file…")
        self.import_button.setObjectName("importPaymentFile")
        self.import_button.setToolTip("Send a pain.001 file's payments as SEPA transfers")
        self.kinds = QTabBar()
        named(self.kinds, "transferListKinds", "Kind of transfer")
        for kind in KINDS:
            self.kinds.addTab(KIND_TITLES[kind])
        self.filter = FilterBuilder(TRANSFER_FILTER_FIELDS, "transfersFilter")
        self.transfer_id = QLineEdit()
        self.transfer_id.setObjectName("transferLookup")
        self.transfer_id.setPlaceholderText("Transfer ID to look up")
        self.transfer_id.setClearButtonEnabled(True)
        fit_placeholder(self.transfer_id)
        # a whole generated id (36 characters) shows, its first character not scrolled away
        whole_id = self.transfer_id.fontMetrics().horizontalAdvance("0" * 40)
        self.transfer_id.setMinimumWidth(max(self.transfer_id.minimumWidth(), whole_id))
        self.lookup_button = named(
            QPushButton("Look up"), "transferLookupButton", "Look up the transfer"
        )
        self.export_button = QPushButton("Export CSV…")
        self.export_button.setObjectName("transfersExport")
        self.export_button.setEnabled(False)
        self.status = NoticeLabel("Choose a client and an account, then Show transfers.")
        self.status.setObjectName("transfersStatus")
        self.table = row_table("transfersTable", "Transfers")

        who = QHBoxLayout()
        who.addWidget(self.chooser, 1)
        who.addWidget(self.show_button)
        who.addWidget(self.new_button)
        who.addWidget(self.import_button)
        lookup = QHBoxLayout()
        lookup.addWidget(self.transfer_id)
        lookup.addWidget(self.lookup_button)
        lookup.addStretch(1)
        lookup.addWidget(self.status)
        lookup.addWidget(self.export_button)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("<h2>Transfers</h2>"))
        layout.addLayout(who)
        layout.addWidget(self.kinds)
        layout.addWidget(self.filter)
        layout.addLayout(lookup)
        layout.addWidget(self.table, 1)
