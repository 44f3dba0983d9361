"""The gateway's orders: created from a request checked in full against the compatibility
matrix first, then its data; read and listed by their merchant."""

from __future__ import annotations

import secrets
import uuid
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from app.core import filter as flt
from app.core.gateway.amounts import format_amount, smallest
from app.core.gateway.matrix import NAMES, Item, conflicts, derive
from app.sandbox.errors import Refusal, not_found, room
from app.sandbox.gateway.catalogue import Catalogue
from app.sandbox.gateway.checks import amount_of, check_travel, percent_of
from app.sandbox.gateway.records import (
    MAX_TOTAL,
    Merchant,
    Order,
    SavedCard,
    Tax,
)
from app.sandbox.pending import Pending

MAX_ORDERS = 100_000


class OrderBook(Catalogue):
    def order(self, merchant: str, order_id: str) -> Order:
        found = self.orders.get(order_id)
        if found is None or found.merchant != merchant:
            raise not_found(f"order {order_id}")
        return found

    def list_orders(
        self, merchant: str, node: flt.Node | None, offset: int, limit: int
    ) -> list[Order]:
        chosen: list[Order] = []
        for order in reversed(self.orders.values()):  # newest first
            if order.merchant != merchant:
                continue
            if node is not None and not flt.matches(node, order.filter_record()):
                continue
            chosen.append(order)
            if len(chosen) >= offset + limit:
                break
        return chosen[offset : offset + limit]

    def create_order(self, merchant: Merchant, body: dict[str, Any]) -> Pending[Order]:
        """Check an order request (already valid against gateway.yaml) against every rule."""
        room(len(self.orders), MAX_ORDERS, "orders")
        # the matrix first: a combination the contract forbids is refused naming both items,
        # whatever else is wrong with the data (the saved card's own scenario is known later)
        self._refuse_conflicts(derive(body, avs=merchant.avs), body)
        client: dict[str, Any] = body["client"]
        currency: str = body["currency"]
        if merchant.avs:
            for name in ("address", "zip_code"):
                if not client.get(name):
                    raise Refusal(
                        f"client.{name}: is required: AVS is enabled for this merchant, so an "
                        "order carries the billing address (client.address and client.zip_code)",
                        title="AVS",
                    )
        products = body.get("products") or []
        payment_system = body.get("payment_system", "CARD")
        zero_amount = payment_system == "AUTH" or not products
        if zero_amount and products:
            raise Refusal(
                "products: a Zero-Amount order (payment_system AUTH) moves no money: send no "
                "products"
            )
        saves = bool(body.get("setup_future_use")) or body.get("force_save_method") is True
        if zero_amount and not saves:
            raise Refusal(
                "products: are required, except in a Zero-Amount order, which needs "
                "setup_future_use or force_save_method"
            )
        amount = self._total(merchant.name, products, currency)

        customer_id, chosen, saved_as = self._saved_method(merchant.name, body, saves)
        items = derive(body, avs=merchant.avs, saved_as=saved_as if chosen is not None else None)
        self._refuse_conflicts(items, body)
        self._check_rules(body, items)
        scenario = next(item for item in (Item.TS, Item.ZA, Item.OS) if item in items)
        now = self.now()
        order = Order(
            id=str(uuid.uuid4()),
            merchant=merchant.name,
            status="new",
            scenario=scenario,
            items=frozenset(items - {Item.OS, Item.TS, Item.ZA}),
            currency=currency,
            amount=amount,
            request=body,
            created_at=now,
            checkout_token=secrets.token_urlsafe(18),
            customer_id=customer_id,
            chosen_card=chosen.token if chosen else None,
            saved_as=saved_as,
        ).then(now, "created", f"Order created: {NAMES[scenario]}", event_amount=amount)
        return Pending(order, lambda: self.orders.__setitem__(order.id, order))

    @staticmethod
    def _refuse_conflicts(items: set[Item], body: dict[str, Any]) -> None:
        found = conflicts(items, saved_as=body.get("setup_future_use"))
        if found:
            raise Refusal(found[0][2], title="Incompatible combination")

    def _total(self, merchant: str, products: list[dict[str, Any]], currency: str) -> Decimal:
        total = Decimal(0)
        places = Decimal(smallest(currency))
        for index, product in enumerate(products):
            where = f"products.{index}"
            price = amount_of(product["price"], currency, f"{where}.price")
            if price < smallest(currency):
                raise Refusal(
                    f"{where}.price: must be at least {format_amount(smallest(currency), currency)}"
                )
            line = price * product.get("quantity", 1)
            if "tax" in product:
                tax = self._product_tax(merchant, product["tax"], f"{where}.tax")
                line += (line * tax.percent / 100).quantize(places, rounding=ROUND_HALF_UP)
            total += line
        if total >= MAX_TOTAL:
            raise Refusal("products: the order's total is too large")
        return total

    def _product_tax(self, merchant: str, sent: dict[str, Any], where: str) -> Tax:
        tax = self.taxes.get(sent["id"])
        if tax is None or tax.merchant != merchant:
            raise not_found(f"{where}.id: tax {sent['id']}")
        if "name" in sent and sent["name"] != tax.name:
            raise Refusal(f"{where}.name: is not the name of tax {tax.id} ({tax.name})")
        if "percent" in sent and percent_of(sent["percent"], f"{where}.percent") != tax.percent:
            raise Refusal(
                f"{where}.percent: is not the percent of tax {tax.id} ({tax.percent:.2f})"
            )
        return tax

    def _saved_method(
        self, merchant: str, body: dict[str, Any], saves: bool
    ) -> tuple[str | None, SavedCard | None, str | None]:
        """The customer, the saved card a follow-up uses, and that card's scenario."""
        client = body["client"]
        customer = None
        if "original_client" in client:
            customer = self.customer(merchant, client["original_client"], "client.original_client")
        chosen: SavedCard | None = None
        if "recurring_card" in body:
            token = body["recurring_card"]
            owners = [
                (each, card)
                for each in self.customers.values()
                if each.merchant == merchant
                for card in each.cards
                if card.token == token
            ]
            if not owners:
                raise not_found(f"recurring_card: saved card {token}")
            owner, chosen = owners[0]
            if customer is not None and owner.id != customer.id:
                raise Refusal("recurring_card: is not a card of client.original_client")
            customer = owner
        use = body.get("use_scenario")
        if chosen is None and customer is not None and not saves and customer.cards:
            matching = [card for card in customer.cards if use is None or card.scenario == use]
            chosen = (matching or list(customer.cards))[-1]
        if use is not None and customer is not None and chosen is None:
            raise Refusal(
                f"client.original_client: the customer has no saved card for use_scenario {use}"
            )
        if use is not None and chosen is not None and chosen.scenario not in (None, use):
            raise Refusal(
                f"use_scenario: the saved card was registered for {chosen.scenario}, not {use}"
            )
        if saves and chosen is not None and "recurring_card" in body:
            raise Refusal("recurring_card: an order that saves a method does not use a saved one")
        saved_as = (chosen.scenario or use) if chosen is not None else None
        return (customer.id if customer else None), chosen, saved_as

    def _check_rules(self, body: dict[str, Any], items: set[Item]) -> None:
        client = body["client"]
        if Item.AF in items:
            for name in ("first_name", "last_name", "address", "city", "country"):
                if not client.get(name):
                    raise Refusal(f"client.{name}: is required for Account Funding")
        if (
            "recurring_number" in body
            and body.get("setup_future_use") != "recurring"
            and Item.RC not in items
        ):
            raise Refusal(
                "recurring_number: goes only with a recurring order (setup_future_use or "
                "use_scenario recurring, or a card saved for recurring)"
            )
        travel = body.get("travel_data")
        if travel is not None:
            check_travel(travel)
