"""The Clients area's widgets; the controller decides what they do."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.limits import CLIENT_FILTER_FIELDS
from app.ui.common.filter_builder import FilterBuilder
from app.ui.common.notice import NoticeLabel
from app.ui.common.widgets import row_table


class ClientsView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.filter = FilterBuilder(CLIENT_FILTER_FIELDS, "clientsFilter")
        self.new_person = QPushButton("New person…")
        self.new_person.setObjectName("newPerson")
        self.new_person.setToolTip("Ctrl+N")
        self.new_company = QPushButton("New company…")
        self.new_company.setObjectName("newCompany")
        self.edit = QPushButton("Edit…")
        self.edit.setObjectName("editClient")
        self.edit.setEnabled(False)
        self.accounts = QPushButton("Accounts…")
        self.accounts.setObjectName("clientAccounts")
        self.accounts.setEnabled(False)
        self.upload = QPushButton("Upload document…")
        self.upload.setObjectName("uploadDocument")
        self.upload.setEnabled(False)
        self.status = NoticeLabel("")
        self.status.setObjectName("clientsStatus")
        self.table = row_table("clientsTable", "Clients")

        buttons = QHBoxLayout()
        buttons.addWidget(self.new_person)
        buttons.addWidget(self.new_company)
        buttons.addWidget(self.edit)
        buttons.addWidget(self.accounts)
        buttons.addWidget(self.upload)
        buttons.addStretch(1)
        buttons.addWidget(self.status)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("<h2>Clients</h2>"))
        layout.addWidget(self.filter)
        layout.addLayout(buttons)
        layout.addWidget(self.table, 1)
