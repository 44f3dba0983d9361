"""The Orders area's widgets: the list, the filter and lookup, and the order's detail beside
it (status, amounts, reservation with the days left, AVS, cof_trace_id, the history as a
timeline, the hosted links, and the actions). The area decides what they do."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.core.limits import ORDER_FILTER_FIELDS
from app.ui.common.filter_builder import FilterBuilder
from app.ui.common.names import named
from app.ui.common.notice import NoticeLabel
from app.ui.common.widgets import fit_placeholder, row_table
from app.ui.orders.catalogue import EVENTS, status
from app.ui.orders.model import money, scenario_of, when
from app.ui.orders.rules import ACTIONS, Action, Offer

if TYPE_CHECKING:
    from app.api.gateway import Order


def _value() -> QLabel:
    label = QLabel("")
    label.setWordWrap(True)
    label.setTextInteractionFlags(
        Qt.TextInteractionFlag.TextSelectableByMouse
        | Qt.TextInteractionFlag.TextSelectableByKeyboard
    )
    return label


class OrderDetail(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("orderDetail")
        self.heading = QLabel("<b>No order chosen</b>")
        self.heading.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.fields: dict[str, QLabel] = {}
        form = QFormLayout()
        for key, label in (
            ("id", "Order ID"),
            ("status", "Status"),
            ("scenario", "Scenario"),
            ("amount", "Amount"),
            ("reserved", "Reserved"),
            ("captured", "Captured"),
            ("refunded", "Refunded"),
            ("created", "Created"),
            ("paid", "Paid"),
            ("customer", "Customer"),
            ("card", "Card"),
            ("avs", "AVS"),
            ("cof", "cof_trace_id"),
        ):
            self.fields[key] = _value()
            self.fields[key].setObjectName(f"detail:{key}")
            form.addRow(f"{label}:", self.fields[key])
        self.checkout_button = QPushButton("Open checkout page")
        self.checkout_button.setObjectName("openCheckout")
        self.three_ds_button = QPushButton("Open 3DS page")
        self.three_ds_button.setObjectName("openThreeDs")
        self.copy_button = named(QPushButton("Copy order ID"), "copyOrderId")
        links = QHBoxLayout()
        for button in (self.checkout_button, self.three_ds_button, self.copy_button):
            links.addWidget(button)
        links.addStretch(1)
        self.action_buttons: dict[Action, QPushButton] = {}
        actions = QGridLayout()  # two rows: the pane stays narrow enough beside the list
        for index, action in enumerate(ACTIONS):
            button = QPushButton(ACTIONS[action].label)
            button.setObjectName(f"action:{action}")
            self.action_buttons[action] = button
            actions.addWidget(button, index // 3, index % 3)
        self.reasons = QLabel("")
        self.reasons.setObjectName("actionReasons")
        self.reasons.setWordWrap(True)
        self.reasons.setStyleSheet("color: #44474e;")
        self.history = QListWidget()
        named(self.history, "orderHistory", "The order's history")
        self.history.setMinimumHeight(140)
        self.history.setWordWrap(True)  # a long message reads whole on its lines, not cut
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        # the buttons first, under the one-line heading: the values below wrap to more or
        # fewer lines from one order to the next, and would move the buttons with them
        layout.addLayout(links)
        layout.addLayout(actions)
        layout.addWidget(self.reasons)
        layout.addSpacing(8)  # the reasons end where the values begin
        layout.addLayout(form)
        layout.addWidget(QLabel("<b>History</b>"))
        layout.addWidget(self.history, 1)
        self.show_order(None, {}, dt.datetime.now(dt.UTC))

    def show_order(
        self, order: Order | None, offers: dict[Action, Offer], now: dt.datetime
    ) -> None:
        for label in self.fields.values():
            label.setText("")
        self.history.clear()
        if order is None:
            self.heading.setText("<b>No order chosen</b>: pick one in the list, or look one up")
            for button in (
                self.checkout_button,
                self.three_ds_button,
                self.copy_button,
                *self.action_buttons.values(),
            ):
                button.setEnabled(False)
            self.reasons.setText("")
            return
        currency = order.currency
        self.heading.setText(f"<b>Order {order.id}</b>")
        self.fields["id"].setText(order.id)  # selectable, to copy or compare
        status_label = self.fields["status"]
        shown = status(order.status)
        status_label.setText(shown.title)
        status_label.setStyleSheet(f"color: {shown.colour};")
        scenario, capabilities = scenario_of(order)
        self.fields["scenario"].setText(
            scenario + (f" — {', '.join(capabilities)}" if capabilities else "")
        )
        self.fields["amount"].setText(money(order.amount, currency))
        reserved = money(order.amount_reserved, currency)
        if order.reserved_until is not None and order.amount_reserved > 0:
            left = (order.reserved_until - now).total_seconds() / 86400
            whole = round(left)  # a hold made a minute ago has its 7 days left
            if left >= 1:
                days = f"{whole} day{'s' if whole != 1 else ''} left"
            else:
                days = "less than a day left" if left > 0 else "ended"
            reserved += f", until {when(order.reserved_until)} UTC ({days})"
        self.fields["reserved"].setText(reserved)
        self.fields["captured"].setText(money(order.amount_captured, currency))
        self.fields["refunded"].setText(money(order.amount_refunded, currency))
        self.fields["created"].setText(f"{when(order.created_at)} UTC")
        self.fields["paid"].setText(f"{when(order.paid_at)} UTC" if order.paid_at else "—")
        customer = order.client_email or ""
        if order.customer_id:
            customer += f" (customer {order.customer_id})"
        self.fields["customer"].setText(customer or "—")
        self.fields["card"].setText(
            f"{order.card.brand} {order.card.masked}" if order.card is not None else "—"
        )
        avs = order.avs_status
        self.fields["avs"].setText(
            f"{avs.code}{f' ({avs.raw_code})' if avs.raw_code else ''}: {avs.description}"
            if avs is not None
            else "—"
        )
        self.fields["cof"].setText(order.cof_trace_id or "—")
        for entry in order.history:
            amount = f"  {money(entry.amount, currency)}" if entry.amount is not None else ""
            event = EVENTS.get(entry.event, entry.event)
            line = f"{when(entry.at)}  {event}{amount} — {entry.message}"
            self.history.addItem(line)
            self.history.item(self.history.count() - 1).setToolTip(line)
        self.checkout_button.setEnabled(order.status == "new")
        self.three_ds_button.setEnabled(order.three_ds_url is not None)
        self.copy_button.setEnabled(True)
        reasons = []
        for action, button in self.action_buttons.items():
            offer = offers.get(action, Offer(action, "Unknown"))
            button.setEnabled(offer.allowed)
            button.setToolTip(offer.reason)
            if not offer.allowed:
                reasons.append(f"{ACTIONS[action].label.rstrip('…')}: {offer.reason}")
        self.reasons.setText("\n".join(reasons))


class OrdersView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.new_button = QPushButton("New order…")
        self.new_button.setObjectName("newOrder")
        self.new_button.setToolTip("Ctrl+N")
        self.taxes_button = QPushButton("Taxes…")
        self.taxes_button.setObjectName("taxes")
        self.customers_button = QPushButton("Customers…")
        self.customers_button.setObjectName("customers")
        self.filter = FilterBuilder(ORDER_FILTER_FIELDS, "ordersFilter")
        self.order_id = QLineEdit()
        self.order_id.setObjectName("orderLookup")
        self.order_id.setPlaceholderText("Order ID to look up")
        self.order_id.setClearButtonEnabled(True)
        fit_placeholder(self.order_id)
        self.order_id.setMinimumWidth(max(self.order_id.minimumWidth(), 290))
        self.lookup_button = named(QPushButton("Look up"), "orderLookupButton", "Look up the order")
        self.show_button = QPushButton("Show orders")
        self.show_button.setObjectName("showOrders")
        self.status = NoticeLabel("Show orders to list the gateway's orders.")
        self.status.setObjectName("ordersStatus")
        self.table = row_table("ordersTable", "Card orders")
        self.detail = OrderDetail()
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        # the detail wraps to the pane's width: no sideways scrolling that hides its labels
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(self.detail)
        scroll.setMinimumWidth(430)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(scroll)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setSizes([860, 470])

        top = QHBoxLayout()
        top.addWidget(self.show_button)
        top.addWidget(self.new_button)
        top.addWidget(self.taxes_button)
        top.addWidget(self.customers_button)
        top.addStretch(1)
        top.addWidget(self.order_id)
        top.addWidget(self.lookup_button)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("<h2>Card orders</h2>"))
        layout.addLayout(top)
        layout.addWidget(self.filter)
        layout.addWidget(self.status)
        layout.addWidget(self.splitter, 1)
