"""Card orders as the desk lists them: the columns, status in words and colour, amounts in
the currency's own exponent."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from app.core.gateway.amounts import format_amount
from app.core.gateway.matrix import BY_CODE, NAMES
from app.core.money import MoneyError
from app.ui.common.paged_model import PagedTableModel, PageSource
from app.ui.orders.catalogue import status
from app.ui.shell.tasks import TaskGroup

if TYPE_CHECKING:
    from app.api.gateway import Order

COLUMNS = (
    "Order ID",
    "Status",
    "Scenario",
    "Amount",
    "Reserved",
    "Captured",
    "Refunded",
    "Currency",
    "Created (UTC)",
    "Customer e-mail",
)
ID, STATUS, SCENARIO, AMOUNT, RESERVED, CAPTURED, REFUNDED, CURRENCY, CREATED, EMAIL = range(
    len(COLUMNS)
)
WIDTHS = {
    ID: 255,
    STATUS: 110,
    SCENARIO: 90,
    AMOUNT: 80,
    RESERVED: 80,
    CAPTURED: 80,
    REFUNDED: 80,
    CURRENCY: 65,
    CREATED: 125,
}

_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


def amount_text(amount: Decimal, currency: str) -> str:
    try:
        return format_amount(amount, currency)
    except MoneyError:
        return str(amount)  # a currency this desk does not know: as the service wrote it


def money(amount: Decimal, currency: str) -> str:
    return f"{amount_text(amount, currency)} {currency}"


def when(moment: dt.datetime | None) -> str:
    if moment is None:
        return ""
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M")


#: capabilities that name how a payment is made better than its one- or two-step scenario
_NAMED_SCENARIOS = ("recurring", "recurring_automatic", "one_click")


def scenario_name(code: str) -> str:
    item = BY_CODE.get(code)
    return NAMES[item] if item is not None else code


def scenario_of(order: Order) -> tuple[str, list[str]]:
    """The order's scenario as people name it, and its other capabilities' names: a
    recurring order reads Recurring (its payment is one step: "Recurring (Two-Step)" when
    reserved first), not One-Step."""
    named = next((code for code in order.capabilities if code in _NAMED_SCENARIOS), None)
    others = [scenario_name(code) for code in order.capabilities if code != named]
    if named is None:
        return scenario_name(order.scenario), others
    shown = scenario_name(named)
    if order.scenario != "one_step":
        shown += f" ({scenario_name(order.scenario)})"
    return shown, others


def cells(order: Order) -> tuple[str, ...]:
    currency = order.currency
    return (
        order.id,
        status(order.status).title,
        scenario_of(order)[0],
        amount_text(order.amount, currency),
        amount_text(order.amount_reserved, currency),
        amount_text(order.amount_captured, currency),
        amount_text(order.amount_refunded, currency),
        currency,
        when(order.created_at),
        order.client_email or "",
    )


class OrdersModel(PagedTableModel["Order"]):
    """The gateway's orders, paged; the query is the filter text."""

    def __init__(self, fetch_page: PageSource[Order], tasks: TaskGroup, parent: Any = None):
        super().__init__(COLUMNS, fetch_page, cells, tasks, parent)

    def decoration(self, item: Order, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.ForegroundRole and column == STATUS:
            return QColor(status(item.status).colour)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (
            AMOUNT,
            RESERVED,
            CAPTURED,
            REFUNDED,
        ):
            return _RIGHT
        return None

    def key(self, item: Order) -> str:
        return item.id  # an order is listed once, whatever brought it

    def show_order(self, order: Order) -> None:
        """An order as the service now returns it: replaced in place, or added on top."""
        for known in self.items():
            if known.id == order.id:
                self.replace(order, lambda item: item.id == order.id)
                return
        self.beginInsertRows(self.index(0, 0).parent(), 0, 0)
        self._items.insert(0, order)
        self._cells.insert(0, cells(order))
        self.endInsertRows()
