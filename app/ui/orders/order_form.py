"""The New order window: the widgets of an order draft (app.forms.order).

Its groups are built from the draft's table of parts; what the matrix does not offer with what
is chosen is disabled with the reason on hover; every field shows what the draft says of it as
it is typed, and Create stays disabled, saying why, until the order can be sent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.api.errors import ApiError, InvalidInput
from app.core.gateway.matrix import NAMES, Item
from app.forms.order import (
    CAPABILITIES,
    CURRENCIES,
    MAX_LEGS,
    MAX_PRODUCTS,
    SAVING_CHOICES,
    SCENARIO_NAMES,
    SCENARIOS,
    OrderDraft,
)
from app.forms.order_parts import PART, PART_OF, TRAVEL_MEMBERS, Part
from app.ui.common.form import PROBLEM_STYLE, FormRows, ReasonLabel, ask_before_discarding
from app.ui.common.names import NamedDialog, named
from app.ui.common.notice import NoticeLabel
from app.ui.orders.order_rows import LegRow, ProductRow, RowList
from app.ui.shell.areas import AreaContext
from app.ui.shell.dialogs import confirmed as confirmed_by_user

if TYPE_CHECKING:
    import asyncio

    from app.api.gateway import Order, Tax

__all__ = ["CAPABILITIES", "SCENARIOS", "OrderDialog"]


class OrderDialog(NamedDialog):
    def __init__(
        self,
        context: AreaContext,
        *,
        known_customers: dict[str, str] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("orderDialog")
        self.setWindowTitle("New card order")
        self.resize(980, 760)
        self._context = context
        self._presenter = context.presenter
        self._tasks = context.tasks
        self.draft = OrderDraft()
        self.touched_lists: set[str] = set()  # products, legs: lists the user typed in
        self.confirmation: QMessageBox | None = None
        self.discard: QMessageBox | None = None
        self.known_customers = dict(known_customers or {})  # id -> e-mail, made from this desk
        self._task: asyncio.Task[None] | None = None
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(0)
        self._refresh_timer.timeout.connect(self.refresh)
        self.rows: list[FormRows] = []
        self.inputs: dict[str, QLineEdit | QComboBox] = {}
        self._rows_of: dict[str, FormRows] = {}

        content = QWidget()
        layout = QVBoxLayout(content)
        layout.addWidget(self._customer_group())
        layout.addWidget(self._what_group())
        layout.addWidget(self._products_group())
        self.parts: dict[str, QWidget] = {"products": self.products_group}
        self.parts["saving"] = self._saving_group()
        self.parts["recurring"] = self._part_group(PART["recurring"])
        self.parts["travel"] = self._travel_group()
        self.parts["funding"] = self._funding_group()
        for key in ("cardholder", *PART_OF.values()):
            self.parts[key] = self._part_group(PART[key])
        for key in ("saving", "recurring", "travel", "funding", "cardholder", *PART_OF.values()):
            layout.addWidget(self.parts[key])
        layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(content)

        self.general_problem = NoticeLabel("")
        self.general_problem.setObjectName("orderProblem")
        self.general_problem.setStyleSheet(PROBLEM_STYLE)
        self.general_problem.setWordWrap(True)
        self.reason = ReasonLabel()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.create_button = self.buttons.addButton(
            "Create order", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.create_button.setObjectName("createOrder")
        close = self.buttons.button(QDialogButtonBox.StandardButton.Close)
        assert close is not None
        named(close, "orderClose", "Close")
        self.buttons.accepted.connect(self.submit)
        self.buttons.rejected.connect(self.reject)
        bottom = QHBoxLayout()
        bottom.addWidget(self.reason, 1)
        bottom.addWidget(self.buttons)
        outer = QVBoxLayout(self)
        outer.addWidget(scroll, 1)
        outer.addWidget(self.general_problem)
        outer.addLayout(bottom)

        self.add_product()
        self.scenario.currentIndexChanged.connect(self._changed)
        for box in self.capability_boxes.values():
            box.toggled.connect(self._changed)
        self._changed()
        self._tasks.spawn(self._load_taxes())

    # -- what the draft holds

    @property
    def created(self) -> Order | None:
        return self.draft.created

    @property
    def taxes(self) -> list[Tax]:
        return self.draft.taxes

    # -- building

    def _form_rows(self, grid: QGridLayout, section: str) -> FormRows:
        rows = FormRows(grid, problem_width=260, section=section)
        rows.edited.connect(lambda _key: self._refresh_timer.start())
        self.rows.append(rows)
        return rows

    def _add(self, rows: FormRows, path: str, label: str, widget: QLineEdit | QComboBox) -> None:
        rows.add(path, label, widget, name=path)
        self.inputs[path] = widget
        self._rows_of[path] = rows

    def _lines(self, grid: QGridLayout, part: Part) -> FormRows:
        rows = self._form_rows(grid, part.section)
        for path, label, placeholder in part.fields:
            edit = QLineEdit()
            edit.setPlaceholderText(placeholder)
            self._add(rows, path, label, edit)
        return rows

    def _part_group(self, part: Part) -> QGroupBox:
        group = QGroupBox(part.title)
        self._lines(QGridLayout(group), part)
        return group

    def _customer_group(self) -> QGroupBox:
        group = QGroupBox("Customer")
        grid = QGridLayout(group)
        self._lines(grid, PART["customer"])
        self.inputs["client.original_client"].setMinimumWidth(300)
        self.new_customer_button = QPushButton("New customer from the e-mail")
        self.new_customer_button.setObjectName("newCustomer")
        self.new_customer_button.setAutoDefault(False)
        self.new_customer_button.clicked.connect(lambda: self._tasks.spawn(self._create_customer()))
        self.known_box = QComboBox()
        named(self.known_box, "knownCustomers", "Customers made from this desk")
        self.known_box.addItem("Customers made from this desk…", "")
        for customer_id, email in self.known_customers.items():
            self.known_box.addItem(f"{email} — {customer_id}", customer_id)
        self.known_box.activated.connect(self._pick_known)
        line = QHBoxLayout()
        line.addWidget(self.new_customer_button)
        line.addWidget(self.known_box, 1)
        grid.addLayout(line, grid.rowCount(), 1, 1, 2)
        self.customer_note = QLabel("")
        self.customer_note.setObjectName("customerNote")
        self.customer_note.setWordWrap(True)
        grid.addWidget(self.customer_note, grid.rowCount(), 1, 1, 2)
        return group

    def _what_group(self) -> QGroupBox:
        group = QGroupBox("Order")
        grid = QGridLayout(group)
        rows = self._form_rows(grid, "Order")
        self.currency = QComboBox()
        self.currency.setEditable(True)
        self.currency.addItems(CURRENCIES)
        self._add(rows, "currency", "Currency", self.currency)
        (path, label, placeholder), *_rest = PART["order"].fields
        language = QLineEdit()
        language.setPlaceholderText(placeholder)
        self._add(rows, path, label, language)
        self.scenario = QComboBox()
        self.scenario.setObjectName("scenario")
        self.scenario.addItems(SCENARIO_NAMES)
        rows.add("scenario", "Scenario", self.scenario, name="scenarioChoice")
        self.capability_boxes: dict[Item, QCheckBox] = {}
        boxes = QGridLayout()
        for index, item in enumerate(CAPABILITIES):
            box = QCheckBox(NAMES[item])
            box.setObjectName(f"capability:{item.value}")
            self.capability_boxes[item] = box
            boxes.addWidget(box, index // 4, index % 4)
        row = grid.rowCount()
        caption = QLabel("Capabilities:")
        caption.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        grid.addWidget(caption, row, 0)
        grid.addLayout(boxes, row, 1, 1, 2)
        return group

    def _products_group(self) -> QGroupBox:
        self.products_group = QGroupBox("Products")
        layout = QVBoxLayout(self.products_group)
        self.products_layout = QVBoxLayout()
        layout.addLayout(self.products_layout)
        self._product_rows = RowList[ProductRow](
            self.products_layout, MAX_PRODUCTS, self._refresh_timer.start
        )
        self.products = self._product_rows.rows
        self.add_product_button = QPushButton("Add product")
        self.add_product_button.setObjectName("addProduct")
        self.add_product_button.setAutoDefault(False)
        self.add_product_button.clicked.connect(self.add_product)
        self.total = QLabel("")
        self.total.setObjectName("orderTotal")
        line = QHBoxLayout()
        line.addWidget(self.add_product_button)
        line.addStretch(1)
        line.addWidget(self.total)
        layout.addLayout(line)
        return self.products_group

    def _saving_group(self) -> QGroupBox:
        group = QGroupBox("Payment method saving")
        grid = QGridLayout(group)
        rows = self._form_rows(grid, "Saving")
        self.saving = QComboBox()
        self.saving.addItems(SAVING_CHOICES)
        rows.add("setup_future_use", "Save for (setup_future_use)", self.saving, name="saving")
        self.inputs["setup_future_use"] = self.saving
        self._rows_of["setup_future_use"] = rows
        self.force_save = QCheckBox("force_save_method: save without the customer's consent")
        self.force_save.setObjectName("forceSave")
        self.force_save.toggled.connect(lambda _on: self._refresh_timer.start())
        self.saving.currentIndexChanged.connect(self._changed)
        grid.addWidget(self.force_save, grid.rowCount(), 1, 1, 2)
        return group

    def _travel_group(self) -> QGroupBox:
        group = QGroupBox("Travel data (one service: the first of a package)")
        layout = QVBoxLayout(group)
        self.travel_member = QComboBox()
        named(self.travel_member, "travelMember", "Travel service")
        for key, label in TRAVEL_MEMBERS.items():
            self.travel_member.addItem(label, key)
        self.travel_member.currentIndexChanged.connect(self._changed)
        layout.addWidget(self.travel_member)
        self.members: dict[str, QWidget] = {}
        for member in TRAVEL_MEMBERS:
            widget = QWidget()
            grid = QGridLayout(widget)
            self._lines(grid, PART[member])
            if member == "airline_addendum":
                self._legs(grid)
            self.members[member] = widget
            layout.addWidget(widget)
        self.add_leg()
        return group

    def _legs(self, grid: QGridLayout) -> None:
        self.legs_layout = QVBoxLayout()
        self._leg_rows = RowList[LegRow](self.legs_layout, MAX_LEGS, self._refresh_timer.start)
        self.legs = self._leg_rows.rows
        grid.addLayout(self.legs_layout, grid.rowCount(), 0, 1, 3)
        self.add_leg_button = QPushButton("Add leg")
        self.add_leg_button.setObjectName("addLeg")
        self.add_leg_button.setAutoDefault(False)
        self.add_leg_button.clicked.connect(self.add_leg)
        self.legs_problem = NoticeLabel("")
        self.legs_problem.setStyleSheet(PROBLEM_STYLE)
        self.legs_problem.setWordWrap(True)
        grid.addWidget(self.add_leg_button, grid.rowCount(), 1)
        grid.addWidget(self.legs_problem, grid.rowCount(), 1, 1, 2)

    def _funding_group(self) -> QGroupBox:
        group = QGroupBox(PART["funding"].title)
        grid = QGridLayout(group)
        self._lines(grid, PART["funding"])
        self.same_as_client = QCheckBox("same_as_client (informative: copies nothing)")
        self.same_as_client.setObjectName("sameAsClient")
        grid.addWidget(self.same_as_client, grid.rowCount(), 1, 1, 2)
        return group

    def add_product(self) -> None:
        row = self._product_rows.add(lambda remove: ProductRow(len(self.products), remove))
        if row is None:
            return
        for edit in (row.title, row.price, row.quantity):
            edit.textChanged.connect(lambda _text: self._touch_and_refresh("products"))
        row.tax.currentIndexChanged.connect(lambda _index: self._refresh_timer.start())
        self._fill_taxes(row.tax)

    def add_leg(self) -> None:
        row = self._leg_rows.add(LegRow)
        if row is None:
            return
        for edit in row.inputs.values():
            edit.textChanged.connect(lambda _text: self._touch_and_refresh("legs"))

    def _touch_and_refresh(self, what: str) -> None:
        self.touched_lists.add(what)
        self._refresh_timer.start()

    # -- taxes and customers

    async def _load_taxes(self) -> None:
        try:
            self.draft.taxes = await self._context.gateway.list_taxes()
        except ApiError as exc:
            self.general_problem.setText(f"The taxes could not be loaded: {exc}")
            return
        for row in self.products:
            self._fill_taxes(row.tax)
        self.refresh()

    def _fill_taxes(self, box: QComboBox) -> None:
        chosen = box.currentData()
        box.blockSignals(True)
        box.clear()
        box.addItem("No tax", "")
        for tax in self.draft.taxes:
            box.addItem(f"{tax.name} {tax.percent}%", tax.id)
        index = box.findData(chosen)
        box.setCurrentIndex(max(index, 0))
        box.blockSignals(False)

    def _pick_known(self, index: int) -> None:
        customer_id = self.known_box.itemData(index)
        if customer_id:
            self.set_text("client.original_client", customer_id)
            self.set_text("client.email", self.known_customers.get(customer_id, ""))
        self.known_box.setCurrentIndex(0)

    async def _create_customer(self) -> None:
        self._read()
        try:
            customer_id = await self.draft.create_customer(self._context.gateway)
        except ApiError as exc:
            self._presenter.show(exc)
            return
        email = self.draft.text("client.email")
        self.known_customers[customer_id] = email
        self.known_box.addItem(f"{email} — {customer_id}", customer_id)
        self.set_text("client.original_client", customer_id)
        self.customer_note.setText(f"Customer {customer_id} created for {email}.")

    # -- reading and writing the inputs

    def text(self, path: str) -> str:
        widget = self.inputs[path]
        if isinstance(widget, QLineEdit):
            return widget.text().strip()
        return widget.currentText().strip()

    def set_text(self, path: str, text: str) -> None:
        widget = self.inputs[path]
        if isinstance(widget, QLineEdit):
            widget.setText(text)
        else:
            widget.setCurrentText(text)

    def choose_scenario(self, name: str) -> None:
        self.scenario.setCurrentIndex(SCENARIO_NAMES.index(name))

    def _read(self) -> None:
        """The inputs into the draft: it answers for what is on the screen."""
        draft = self.draft
        for path in self.inputs:
            draft.values[path] = self.text(path)
        draft.values["scenario"] = self.scenario.currentText()
        draft.capabilities = {i for i, box in self.capability_boxes.items() if box.isChecked()}
        draft.force_save = self.force_save.isChecked()
        draft.same_as_client = self.same_as_client.isChecked()
        draft.travel_member = self.travel_member.currentData()
        draft.products = [row.product() for row in self.products]
        draft.legs = [{k: e.text() for k, e in leg.inputs.items()} for leg in self.legs]

    def problems(self) -> tuple[dict[str, str], str]:
        self._read()
        return self.draft.problems()

    # -- checking

    def _changed(self) -> None:
        self._update_availability()
        self._refresh_timer.start()

    def _update_availability(self) -> None:
        """Offer only what the matrix allows with what is chosen; say why on hover."""
        self._read()
        offered = self.draft.availability()
        for item, box in self.capability_boxes.items():
            reason = offered.capabilities[item]
            box.setEnabled(not reason)
            box.setToolTip(reason)
        for choice, reasons in ((self.saving, offered.saving), (self.scenario, offered.scenarios)):
            model = choice.model()
            assert isinstance(model, QStandardItemModel)
            for index, reason in enumerate(reasons):
                entry = model.item(index)
                entry.setEnabled(not reason)
                entry.setToolTip(reason)
        shown = self.draft.shown()
        for key, widget in self.parts.items():
            widget.setVisible(key in shown)
        for key, widget in self.members.items():
            widget.setVisible(key in shown)
        for row in self.products:
            row.tax.setVisible(Item.TX in self.draft.chosen())

    def refresh(self) -> None:
        self._update_availability()
        problems, general = self.draft.problems()
        notes = self.draft.notes()
        for rows in self.rows:
            mine = {k: v for k, v in problems.items() if k in rows.rows}
            rows.show(mine, {k: v for k, v in notes.items() if k in rows.rows})
        tried = any(rows.tried for rows in self.rows)
        for index, row in enumerate(self.products):
            quiet = "products" not in self.touched_lists and not tried
            row.problem.setText("" if quiet else self.draft.product_problems(problems, index))
        self.legs_problem.setText(self.draft.leg_problems(problems))
        self.general_problem.setText(general)
        self.total.setText(self.draft.total())
        reason = self.draft.reason(problems, general)
        sending = self._task is not None and not self._task.done()
        self.create_button.setEnabled(not reason and not sending and self.created is None)
        self.create_button.setToolTip(reason)
        self.reason.setText(reason)

    # -- sending

    def submit(self) -> None:
        if self._task is not None and not self._task.done():
            return
        for rows in self.rows:
            rows.tried = True
        self.refresh()
        if not self.create_button.isEnabled():
            return
        self._task = self._tasks.spawn(self._confirm_and_send())

    async def _confirm_and_send(self) -> None:
        self._read()
        request = self.draft.request()
        try:
            self.draft.check(request)
        except InvalidInput as exc:
            self._presenter.show(exc)
            return
        if await confirmed_by_user(self, self, "Create the order?", self.draft.summary()):
            await self._send(request)

    async def _send(self, request: dict[str, Any]) -> None:
        self.create_button.setEnabled(False)
        try:
            await self.draft.send(self._context.gateway, request)
        except ApiError as exc:
            self._presenter.show(exc, lambda: self._tasks.spawn(self._send(request)))
            self.refresh()
            return
        self.accept()

    def reject(self) -> None:
        typed = any(rows.touched for rows in self.rows) or self.touched_lists
        if typed and self.created is None and self.discard is None:
            self.discard = ask_before_discarding(self, lambda: QDialog.reject(self))
            self.discard.finished.connect(lambda _r: setattr(self, "discard", None))
            return
        super().reject()
