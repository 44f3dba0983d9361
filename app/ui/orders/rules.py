"""Which order actions are legal now, and why not — the contract's rules as the desk applies
them before offering an action (the gateway still decides). No Qt here."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Literal

from app.core.gateway.matrix import Item, conflicts

if TYPE_CHECKING:
    from app.api.gateway import Order

Action = Literal["pay", "capture", "refund", "reverse", "charge"]
ACTIONS: tuple[Action, ...] = ("pay", "capture", "refund", "reverse", "charge")


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
    return {
        "pay": Offer("pay", _pay(order)),
        "capture": Offer("capture", _capture(order, now)),
        "refund": Offer("refund", _refund(order, now)),
        "reverse": Offer("reverse", _reverse(order, now)),
        "charge": Offer("charge", _charge(order)),
    }


def _pay(order: Order) -> str:
    if order.status != "new":
        return f"The order is {STATUS_WORDS.get(order.status, order.status)}: it takes no payment"
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
    return f"Nothing is reserved: the order is {STATUS_WORDS.get(order.status, order.status)}"


def _refund(order: Order, now: dt.datetime) -> str:
    if order.status == "hold":
        return "Reserved, not charged: capture it first, or reverse it"
    if order.status not in ("charged", "partially_refunded"):
        return f"No payment to refund: the order is {STATUS_WORDS.get(order.status, order.status)}"
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
        return f"No payment to reverse: the order is {STATUS_WORDS.get(order.status, order.status)}"
    combination = _combination(order, Item.RV)
    if combination:
        return combination
    if (
        order.paid_at is None
        or order.paid_at.astimezone(dt.UTC).date() != now.astimezone(dt.UTC).date()
    ):
        return "Only on the day of payment: refund it instead"
    return ""


def _charge(order: Order) -> str:
    if order.status != "new":
        return f"The order is {STATUS_WORDS.get(order.status, order.status)}: nothing to charge"
    if Item.OC in order.items:
        return "A One-Click order needs the cardholder: take the card, or the hosted checkout"
    if not order.items & {Item.RC, Item.RA} or order.customer_id is None:
        return "Only a service-side Recurring order (a customer's saved card) is charged"
    return ""


STATUS_WORDS = {
    "new": "new",
    "pending_3ds": "waiting for 3DS",
    "hold": "reserved",
    "charged": "charged",
    "partially_refunded": "partially refunded",
    "refunded": "refunded",
    "reversed": "reversed",
    "declined": "declined",
    "expired": "expired",
    "verified": "verified",
}
