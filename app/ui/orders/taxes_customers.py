"""Taxes (create, list) and customers (create by e-mail, look up with their saved cards,
masked) of the card gateway."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialogButtonBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.api.action import ActionKey
from app.api.errors import ApiError
from app.ui.common.form import FormRows
from app.ui.common.names import NamedDialog, named
from app.ui.common.notice import NoticeLabel
from app.ui.common.table_model import RowsModel
from app.ui.common.widgets import show_rows
from app.ui.shell.areas import AreaContext

if TYPE_CHECKING:
    from app.api.gateway import Customer, Tax


def _table(model: RowsModel, rows: int) -> QTableView:
    table = QTableView()
    table.setModel(model)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().setVisible(False)
    table.horizontalHeader().setStretchLastSection(True)
    show_rows(table, rows)
    return table


class TaxesDialog(NamedDialog):
    def __init__(self, context: AreaContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("taxesDialog")
        self.setWindowTitle("Taxes")
        self.setMinimumWidth(620)
        self._context = context
        self.action = ActionKey()
        self.model = RowsModel(("Name", "Percent", "Tax ID"))
        self.table = named(_table(self.model, 6), "taxesTable", "Taxes")
        self.table.setColumnWidth(0, 180)
        grid = QGridLayout()
        self.form = FormRows(grid, problem_width=200)
        self.name = QLineEdit()
        self.form.add("name", "Name", self.name, name="taxName")
        self.percent = QLineEdit()
        self.percent.setPlaceholderText("0 to 100, e.g. 21 or 9.5")
        self.form.add("percent", "Percent", self.percent, name="taxPercent")
        self.form.edited.connect(lambda _key: self.refresh())
        self.create_button = QPushButton("Create tax")
        self.create_button.setObjectName("createTax")
        self.create_button.clicked.connect(lambda: context.tasks.spawn(self._create()))
        self.status = NoticeLabel("")
        self.status.setObjectName("taxesStatus")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addLayout(grid)
        line = QHBoxLayout()
        line.addWidget(self.create_button)
        line.addWidget(self.status, 1)
        layout.addLayout(line)
        layout.addWidget(buttons)
        self.taxes: list[Tax] = []
        self.refresh()
        context.tasks.spawn(self.load())

    def request(self) -> dict[str, str]:
        return {"name": self.name.text().strip(), "percent": self.percent.text().strip()}

    def refresh(self) -> None:
        from app.api.gateway import TaxCreate
        from app.api.models import build

        try:
            build(TaxCreate, self.request())
            problems: dict[str, str] = {}
        except ApiError as exc:
            request = self.request()
            problems = {
                key: "Required" if not request.get(key) else text
                for key, text in getattr(exc, "problems", {}).items()
            }
        reason = self.form.show(problems)
        self.create_button.setEnabled(not reason)
        self.create_button.setToolTip(reason)

    async def load(self) -> None:
        try:
            self.taxes = await self._context.gateway.list_taxes()
        except ApiError as exc:
            self.status.setText("The taxes could not be loaded")
            self._context.presenter.show(exc, lambda: self._context.tasks.spawn(self.load()))
            return
        self.model.set_rows([(t.name, f"{t.percent}%", t.id) for t in self.taxes])
        self.status.setText(f"{len(self.taxes)} tax{'es' if len(self.taxes) != 1 else ''}")

    async def _create(self) -> None:
        from app.api.gateway import TaxCreate
        from app.api.models import build

        request = self.request()
        try:
            tax = await self.action.send(
                request,
                lambda sent, key: self._context.gateway.create_tax(
                    build(TaxCreate, sent), request_id=key
                ),
            )
        except ApiError as exc:
            self._context.presenter.show(exc)
            return
        self.action = ActionKey()  # the next tax is another action
        self.name.clear()
        self.percent.clear()
        self.form.touched.clear()
        self.form.tried = False
        self.refresh()
        await self.load()
        self.status.setText(f"Tax {tax.name} ({tax.percent}%) created")


class CustomersDialog(NamedDialog):
    def __init__(
        self,
        context: AreaContext,
        known: dict[str, str],
        remember: Callable[[str, str], None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("customersDialog")
        self.setWindowTitle("Customers")
        self.setMinimumWidth(720)
        self._context = context
        self._remember = remember
        self.action = ActionKey()
        self.email = QLineEdit()
        self.email.setObjectName("customerEmail")
        self.email.setPlaceholderText("the customer's e-mail address")
        self.create_button = QPushButton("Create customer")
        self.create_button.setObjectName("createCustomer")
        self.create_button.clicked.connect(lambda: context.tasks.spawn(self._create()))
        self.customer_id = QLineEdit()
        self.customer_id.setObjectName("customerId")
        self.customer_id.setPlaceholderText("Customer ID to look up")
        self.lookup_button = named(QPushButton("Look up"), "customerLookup", "Look up the customer")
        self.lookup_button.clicked.connect(lambda: context.tasks.spawn(self.look_up()))
        self.customer_id.returnPressed.connect(lambda: context.tasks.spawn(self.look_up()))
        self.known = RowsModel(("E-mail", "Customer ID"))
        self.known.set_rows([(email, cid) for cid, email in known.items()])
        self.known_table = named(
            _table(self.known, 4), "knownCustomersTable", "Customers made from this desk"
        )
        self.known_table.doubleClicked.connect(self._pick)
        self.summary = QLabel("")
        self.summary.setObjectName("customerSummary")
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary.setWordWrap(True)
        self.cards = RowsModel(("Card", "Expires", "Saved for", "Saved (UTC)", "Token"))
        self.cards_table = _table(self.cards, 4)
        named(self.cards_table, "savedCards", "The customer's saved cards")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        line = QHBoxLayout()
        line.addWidget(self.email, 1)
        line.addWidget(self.create_button)
        layout.addLayout(line)
        layout.addWidget(QLabel("Made from this desk (double-click to look one up):"))
        layout.addWidget(self.known_table)
        line = QHBoxLayout()
        line.addWidget(self.customer_id, 1)
        line.addWidget(self.lookup_button)
        layout.addLayout(line)
        layout.addWidget(self.summary)
        layout.addWidget(QLabel("Saved cards (only their last four digits are ever shown):"))
        layout.addWidget(self.cards_table)
        layout.addWidget(buttons)

    def _pick(self, index: QModelIndex) -> None:
        customer_id = self.known.data(self.known.index(index.row(), 1))
        self.customer_id.setText(str(customer_id))
        self._context.tasks.spawn(self.look_up())

    async def _create(self) -> None:
        from app.api.gateway import CustomerCreate
        from app.api.models import build

        request = {"email": self.email.text().strip()}
        try:
            created = await self.action.send(
                request,
                lambda sent, key: self._context.gateway.create_customer(
                    build(CustomerCreate, sent), request_id=key
                ),
            )
        except ApiError as exc:
            self._context.presenter.show(exc)
            return
        request = self.action.last_request  # the one sent: the first, when that was replayed
        self.action = ActionKey()
        self._remember(created.id, request["email"])
        rows = [(request["email"], created.id)]
        rows += [
            (
                str(self.known.data(self.known.index(r, 0))),
                str(self.known.data(self.known.index(r, 1))),
            )
            for r in range(self.known.rowCount())
        ]
        self.known.set_rows(rows)
        self.customer_id.setText(created.id)
        await self.look_up()

    async def look_up(self) -> None:
        customer_id = self.customer_id.text().strip()
        try:
            customer = await self._context.gateway.get_customer(customer_id)
        except ApiError as exc:
            self._context.presenter.show(exc)
            return
        self.show_customer(customer)

    def show_customer(self, customer: Customer) -> None:
        self.summary.setText(
            f"{customer.email} — customer {customer.id}, created "
            f"{customer.created_at:%Y-%m-%d %H:%M} UTC, {len(customer.cards)} saved card"
            f"{'s' if len(customer.cards) != 1 else ''}"
        )
        self.cards.set_rows(
            [
                (
                    f"{card.brand} {card.masked}",
                    f"{card.exp_month:02d}/{card.exp_year}",
                    card.scenario or "later use",
                    f"{card.saved_at:%Y-%m-%d %H:%M}",
                    card.token,
                )
                for card in customer.cards
            ]
        )
