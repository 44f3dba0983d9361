"""The gateway's settlement of a paid order: capture (in part too), refund, reversal."""

from __future__ import annotations

from decimal import Decimal

from app.core.gateway.amounts import format_amount, smallest
from app.core.gateway.matrix import Item, conflicts
from app.sandbox.errors import Refusal, not_allowed
from app.sandbox.gateway.checks import amount_of
from app.sandbox.gateway.payments import Payments
from app.sandbox.gateway.records import Order, two_years_after
from app.sandbox.pending import Pending, iso_seconds


class Settlement(Payments):
    def _refuse_combination(self, order: Order, operation: Item) -> None:
        found = [
            reason
            for a, b, reason in conflicts({order.scenario, *order.items, operation})
            if operation in (a, b)
        ]
        if found:
            raise Refusal(found[0], title="Incompatible combination")

    def capture(self, order: Order, total_value: object) -> Pending[Order]:
        now = self.now()
        if order.scenario != Item.TS:
            raise not_allowed("Only a Two-Step order (skip_capture) is captured")
        if order.status == "expired" or (
            order.status == "hold"
            and order.reserved_until is not None
            and now >= order.reserved_until
        ):
            raise not_allowed(
                f"The reservation ended at {iso_seconds(order.reserved_until or now)}: an expired "
                "order cannot be captured"
            )
        if order.status != "hold":
            if order.history and any(entry.event == "captured" for entry in order.history):
                raise not_allowed("The order was already captured: a capture is made once")
            raise not_allowed(f"The order is {order.status}: there is nothing reserved to capture")
        total = amount_of(total_value, order.currency, "total")
        low = smallest(order.currency)
        if not low <= total <= order.reserved:
            raise Refusal(
                f"total: must be at least {format_amount(low, order.currency)} and at most the "
                f"reserved {order.amount_text(order.reserved)}"
            )
        rest = order.reserved - total
        after = order.then(
            now,
            "captured",
            "Captured",
            status="charged",
            captured=total,
            reserved=Decimal(0),
            event_amount=total,
        )
        if rest:
            after = after.then(
                now, "released", "The rest of the reservation is released", event_amount=rest
            )
        return Pending(after, lambda: self.orders.__setitem__(after.id, after))

    def refund(self, order: Order, amount_value: object | None) -> Pending[Order]:
        now = self.now()
        operation = Item.FR if amount_value is None else Item.PR
        self._refuse_combination(order, operation)
        if order.status == "hold":
            raise not_allowed("The order is reserved, not charged: capture it first, or reverse it")
        if order.status not in ("charged", "partially_refunded"):
            raise not_allowed(f"The order is {order.status}: there is no payment to refund")
        assert order.paid_at is not None
        if now.date() > two_years_after(order.paid_at).date():
            raise not_allowed(
                "A refund is possible only for payments not older than two years; this one was "
                f"paid on {order.paid_at:%Y-%m-%d}"
            )
        if order.chargeback_rdr is not None:
            raise Refusal(
                "Refund declined: a chargeback was already received for this payment "
                f"(RDR {order.chargeback_rdr})",
                title="Refund declined",
            )
        remaining = order.captured - order.refunded
        if amount_value is None:
            amount = remaining
        else:
            amount = amount_of(amount_value, order.currency, "amount")
            low = smallest(order.currency)
            if amount < low:
                raise Refusal(f"amount: must be at least {format_amount(low, order.currency)}")
            if amount > remaining:
                raise Refusal(
                    f"amount: at most the {order.amount_text(remaining)} that remains captured"
                )
        refunded = order.refunded + amount
        status = "refunded" if refunded == order.captured else "partially_refunded"
        after = order.then(
            now,
            "refunded",
            "Refunded in full" if status == "refunded" else "Refunded in part",
            status=status,
            refunded=refunded,
            event_amount=amount,
        )
        return Pending(after, lambda: self.orders.__setitem__(after.id, after))

    def reverse(self, order: Order) -> Pending[Order]:
        now = self.now()
        self._refuse_combination(order, Item.RV)
        if order.status in ("partially_refunded", "refunded"):
            raise not_allowed("A reversal is only in full: this order was already refunded")
        if order.status not in ("hold", "charged"):
            raise not_allowed(f"The order is {order.status}: there is no payment to reverse")
        assert order.paid_at is not None
        if order.paid_at.date() != now.date():
            raise not_allowed(
                f"A reversal is possible only on the day of payment ({order.paid_at:%Y-%m-%d}); "
                "refund it instead"
            )
        amount = order.captured or order.reserved
        after = order.then(
            now,
            "reversed",
            "Reversed in full",
            status="reversed",
            reserved=Decimal(0),
            captured=Decimal(0),
            event_amount=amount,
        )
        return Pending(after, lambda: self.orders.__setitem__(after.id, after))
