"""The actions on an order, in one table: each with its button, the rule that says whether it
is offered now (and why not — the contract's rules as the desk applies them; the gateway
still decides), the title of its confirmation and the request it sends. No Qt here."""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Literal

from app.core.gateway.matrix import Item, conflicts
from app.ui.orders.catalogue import status

if TYPE_CHECKING:
    from app.api.gateway import GatewayClient, Order

Action = Literal["pay", "capture", "refund", "reverse", "charge"]
# the request of an action: (gateway, order, amount as text or None, action key) -> the order
Send = Callable[["GatewayClient", "Order", str | None, str], Awaitable["Order"]]


@dataclass(frozen=True)
class Offer:
    """An action on an order: whether it is offered, and the reason when it is not."""

    action: Action
    reason: str = ""

    @property
    def allowed(self) -> bool:
        return not self.reason


def two_years_after(moment: dt.datetime) -> dt.date:
    """The last day a payment can be refunded (29 February becomes 28 February)."""
    day = moment.astimezone(dt.UTC).date()
    try:
        return day.replace(year=day.year + 2)
    except ValueError:
        return day.replace(year=day.year + 2, day=28)


def _combination(order: Order, operation: Item) -> str:
    found = [reason for a, b, reason in conflicts({*order.items, operation}) if operation in (a, b)]
    return found[0] if found else ""


def offers(order: Order, now: dt.datetime) -> dict[Action, Offer]:
    """Every action, offered or not (with the reason), at the service's time ``now``."""
    return {name: Offer(name, action.rule(order, now)) for name, action in ACTIONS.items()}


def _pay(order: Order, _now: dt.datetime) -> str:
    if order.status != "new":
        return f"The order is {status(order.status).words}: it takes no payment"
    return ""


def _capture(order: Order, now: dt.datetime) -> str:
    if order.scenario != "two_step":
        return "Only a Two-Step order is captured"
    if order.status == "hold":
        if order.reserved_until is not None and now >= order.reserved_until:
            return "The reservation has ended"
        return ""
    if any(entry.event == "captured" for entry in order.history):
        return "Already captured: a capture is made once"
    return f"Nothing is reserved: the order is {status(order.status).words}"


def _refund(order: Order, now: dt.datetime) -> str:
    if order.status == "hold":
        return "Reserved, not charged: capture it first, or reverse it"
    if order.status not in ("charged", "partially_refunded"):
        return f"No payment to refund: the order is {status(order.status).words}"
    combination = _combination(order, Item.FR)
    if combination:
        return combination
    if order.paid_at is not None and now.astimezone(dt.UTC).date() > two_years_after(order.paid_at):
        return "Paid more than two years ago: a refund is no longer possible"
    if order.refundable <= Decimal(0):
        return "Nothing remains to refund"
    return ""


def _reverse(order: Order, now: dt.datetime) -> str:
    if order.status in ("partially_refunded", "refunded"):
        return "Already refunded: a reversal is only in full"
    if order.status not in ("hold", "charged"):
        return f"No payment to reverse: the order is {status(order.status).words}"
    combination = _combination(order, Item.RV)
    if combination:
        return combination
    if (
        order.paid_at is None
        or order.paid_at.astimezone(dt.UTC).date() != now.astimezone(dt.UTC).date()
    ):
        return "Only on the day of payment: refund it instead"
    return ""


def _charge(order: Order, _now: dt.datetime) -> str:
    if order.status != "new":
        return f"The order is {status(order.status).words}: nothing to charge"
    if Item.OC in order.items:
        return "A One-Click order needs the cardholder: take the card, or the hosted checkout"
    if not order.items & {Item.RC, Item.RA} or order.customer_id is None:
        return "Only a service-side Recurring order (a customer's saved card) is charged"
    return ""


@dataclass(frozen=True)
class OrderAction:
    label: str  # its button
    rule: Callable[[Order, dt.datetime], str]  # why it is not offered now ("" when it is)
    title: str  # its confirmation's
    send: Send | None  # its request (pay: the card entry sends the card)


def _capture_request(gateway: GatewayClient, order: Order, amount: str | None, key: str) -> Any:
    assert amount is not None  # a capture names its total
    return gateway.capture(order.id, Decimal(amount), currency=order.currency, request_id=key)


def _refund_request(gateway: GatewayClient, order: Order, amount: str | None, key: str) -> Any:
    value = None if amount is None else Decimal(amount)  # None: all that remains
    return gateway.refund(order.id, value, currency=order.currency, request_id=key)


ACTIONS: dict[Action, OrderAction] = {
    "pay": OrderAction("Take card payment…", _pay, "Take the payment?", None),
    "capture": OrderAction("Capture…", _capture, "Capture the payment?", _capture_request),
    "refund": OrderAction("Refund…", _refund, "Refund the payment?", _refund_request),
    "reverse": OrderAction(
        "Reverse…",
        _reverse,
        "Reverse the payment?",
        lambda gateway, order, _amount, key: gateway.reverse(order.id, request_id=key),
    ),
    "charge": OrderAction(
        "Charge saved card…",
        _charge,
        "Charge the saved card?",
        lambda gateway, order, _amount, key: gateway.charge(order.id, request_id=key),
    ),
}
