"""The sandbox gateway's state: merchants, customers with saved cards, taxes, orders and the
registrations behind cof_trace_ids.

Orders are immutable values: every operation prepares the order it would become (checked in
full, its history entry written) and returns it with a ``commit`` that puts it in place in one
step, so a refused request changes nothing (see app.sandbox.http). The full card number is
never kept: a payment keeps the brand, the last four digits and, when the card is saved, a
token.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import ipaddress
import secrets
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Generic, TypeVar

from app.core import filter as flt
from app.core.gateway.amounts import AmountError, format_amount, parse_amount, smallest
from app.core.gateway.cards import ascii_digits, brand, luhn
from app.core.gateway.matrix import CODES, FOLLOW_UPS, NAMES, Item, conflicts, derive
from app.sandbox.clock import Scheduler
from app.sandbox.errors import Refusal, not_allowed, not_found, room

T = TypeVar("T")

RESERVATION = dt.timedelta(days=7)  # the contract's 6..28 days: 7 in the sandbox (decided)
# what one sandbox holds at most (decided): memory stays bounded; a reset starts over
MAX_ORDERS = 100_000
MAX_CUSTOMERS = 100_000
MAX_TAXES = 1_000
MAX_CARDS = 20  # saved cards per customer
THREE_DS_WAIT = dt.timedelta(minutes=15)  # a 3DS page not answered by then declines (decided)
MAX_TOTAL = Decimal(10) ** 12


@dataclass(frozen=True)
class Merchant:
    name: str
    avs: bool  # the AVS permission: every order carries the billing address


#: The sandbox's merchants, by the user they sign in as (passwords in app.sandbox.http.USERS).
MERCHANTS: dict[str, Merchant] = {
    "demo": Merchant("demo", avs=False),
    "demo-avs": Merchant("demo-avs", avs=True),
}


@dataclass(frozen=True)
class TestCard:
    outcome: str  # approve, decline, three_ds, chargeback
    issuer_country: str


#: The documented test cards; any other number passing the Luhn check approves (issued in US).
TEST_CARDS: dict[str, TestCard] = {
    "4111111111111111": TestCard("approve", "US"),
    "5555555555554444": TestCard("approve", "US"),
    "378282246310005": TestCard("approve", "US"),
    "6011111111111117": TestCard("approve", "US"),
    "4000000000000002": TestCard("decline", "US"),
    "4000000000003220": TestCard("three_ds", "DE"),
    "4000000000000259": TestCard("chargeback", "US"),
}
_DEFAULT_CARD = TestCard("approve", "US")

AVS_RESULTS = {
    "MATCH": ("Y", "Address and ZIP code match"),
    "ADDRESS_MATCH": ("A", "Address matches, ZIP code does not"),
    "NO_MATCH": ("N", "Neither address nor ZIP code match"),
    "UNAVAILABLE": ("U", "Address information is unavailable"),
}


def iso_seconds(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def two_years_after(moment: dt.datetime) -> dt.datetime:
    """The same calendar day two years on (29 February becomes 28 February)."""
    try:
        return moment.replace(year=moment.year + 2)
    except ValueError:
        return moment.replace(year=moment.year + 2, day=28)


@dataclass(frozen=True)
class Pending(Generic[T]):
    value: T
    commit: Callable[[], None]


@dataclass(frozen=True)
class SavedCard:
    token: str
    brand: str
    last4: str
    exp_month: int
    exp_year: int
    scenario: str | None  # the setup_future_use it was registered for
    saved_at: dt.datetime
    cof_trace_id: str
    issuer_country: str
    outcome: str

    def view(self) -> dict[str, Any]:
        return {
            "token": self.token,
            "brand": self.brand,
            "last4": self.last4,
            "exp_month": self.exp_month,
            "exp_year": self.exp_year,
            "scenario": self.scenario,
            "saved_at": iso_seconds(self.saved_at),
        }


@dataclass(frozen=True)
class Customer:
    id: str
    merchant: str
    email: str
    created_at: dt.datetime
    cards: tuple[SavedCard, ...] = ()

    def view(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "email": self.email,
            "created_at": iso_seconds(self.created_at),
            "cards": [card.view() for card in self.cards],
        }


@dataclass(frozen=True)
class Tax:
    id: str
    merchant: str
    name: str
    percent: Decimal

    def view(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "percent": f"{self.percent:.2f}"}


@dataclass(frozen=True)
class Registration:
    """A saved method's first payment, behind its cof_trace_id."""

    cof_trace_id: str
    merchant: str
    brand: str
    last4: str
    scenario: str | None


@dataclass(frozen=True)
class Card:
    """The card of one payment, as far as it may be kept."""

    brand: str
    last4: str
    exp_month: int
    exp_year: int
    issuer_country: str
    outcome: str
    saved: SavedCard | None = None  # paid with this saved card


@dataclass(frozen=True)
class Payment:
    """What an approved payment does to the order (kept while 3DS is pending)."""

    card: Card
    avs_status: dict[str, Any] | None
    registration: Registration | None  # the follow-up's registration
    items: frozenset[Item]  # the order's capabilities once paid (a follow-up's, Custom AVS)


@dataclass(frozen=True)
class Event:
    at: dt.datetime
    event: str
    status: str
    amount: Decimal | None
    message: str


@dataclass(frozen=True)
class Order:
    id: str
    merchant: str
    status: str
    scenario: Item
    items: frozenset[Item]  # capabilities besides the scenario
    currency: str
    amount: Decimal
    request: dict[str, Any]  # the order request as sent (it holds no card data)
    created_at: dt.datetime
    checkout_token: str
    customer_id: str | None = None
    chosen_card: str | None = None  # the saved card a follow-up uses (service side)
    saved_as: str | None = None  # the registration scenario of the chosen card
    reserved: Decimal = Decimal(0)
    captured: Decimal = Decimal(0)
    refunded: Decimal = Decimal(0)
    reserved_until: dt.datetime | None = None
    paid_at: dt.datetime | None = None
    card: Card | None = None
    avs_status: dict[str, Any] | None = None
    cof_trace_id: str | None = None
    three_ds_token: str | None = None
    pending: Payment | None = None
    chargeback_rdr: str | None = None
    history: tuple[Event, ...] = ()

    @property
    def client(self) -> dict[str, Any]:
        value: dict[str, Any] = self.request.get("client", {})
        return value

    @property
    def follow_up(self) -> bool:
        return bool(self.items & {Item.RC, Item.RA, Item.OC})

    @property
    def saving(self) -> bool:
        return Item.PMS in self.items

    def amount_text(self, amount: Decimal) -> str:
        return format_amount(amount, self.currency)

    def filter_record(self) -> dict[str, flt.Scalar | None]:
        return {
            "id": self.id,
            "status": self.status,
            "scenario": CODES[self.scenario],
            "currency": self.currency,
            "client_email": self.client.get("email"),
            "created_at": self.created_at.date(),
        }

    def view(self, base: str) -> dict[str, Any]:
        """The order as the gateway answers it; ``base`` is the gateway's address."""
        capabilities = [CODES[item] for item in Item if item in self.items]
        checkout = f"{base}/checkout/{self.id}/{self.checkout_token}/"
        return {
            "id": self.id,
            "status": self.status,
            "scenario": CODES[self.scenario],
            "capabilities": capabilities,
            "currency": self.currency,
            "amount": self.amount_text(self.amount),
            "amount_reserved": self.amount_text(self.reserved),
            "amount_captured": self.amount_text(self.captured),
            "amount_refunded": self.amount_text(self.refunded),
            "reserved_until": iso_seconds(self.reserved_until) if self.reserved_until else None,
            "created_at": iso_seconds(self.created_at),
            "paid_at": iso_seconds(self.paid_at) if self.paid_at else None,
            "checkout_url": checkout,
            "checkout_script_url": f"{checkout}sdk.js",
            "api_do_url": f"{base}/orders/{self.id}/do/",
            "three_ds_url": (
                f"{base}/3ds/{self.id}/{self.three_ds_token}/"
                if self.status == "pending_3ds"
                else None
            ),
            "avs_status": self.avs_status,
            "cof_trace_id": self.cof_trace_id,
            "client_email": self.client.get("email"),
            "customer_id": self.customer_id,
            "card": {"brand": self.card.brand, "last4": self.card.last4} if self.card else None,
            "history": [
                {
                    "at": iso_seconds(entry.at),
                    "event": entry.event,
                    "status": entry.status,
                    "amount": None if entry.amount is None else self.amount_text(entry.amount),
                    "message": entry.message,
                }
                for entry in self.history
            ],
        }

    def then(self, at: dt.datetime, event: str, message: str, **changes: Any) -> Order:
        """The order after an event: the changes applied, the event added to its history."""
        amount = changes.pop("event_amount", None)
        changed = dataclasses.replace(self, **changes)
        entry = Event(at, event, changed.status, amount, message)
        return dataclasses.replace(changed, history=(*self.history, entry))


@dataclass
class Gateway:
    scheduler: Scheduler
    reservation: dt.timedelta = RESERVATION
    customers: dict[str, Customer] = field(default_factory=dict)
    taxes: dict[str, Tax] = field(default_factory=dict)
    orders: dict[str, Order] = field(default_factory=dict)
    registrations: dict[str, Registration] = field(default_factory=dict)

    def now(self) -> dt.datetime:
        return self.scheduler.clock.now()

    # -- customers and taxes

    def create_customer(self, merchant: str, email: str) -> Pending[Customer]:
        room(len(self.customers), MAX_CUSTOMERS, "customers")
        customer = Customer(str(uuid.uuid4()), merchant, email, self.now())
        return Pending(customer, lambda: self.customers.__setitem__(customer.id, customer))

    def customer(self, merchant: str, customer_id: str, where: str = "client_id") -> Customer:
        found = self.customers.get(customer_id)
        if found is None or found.merchant != merchant:
            raise not_found(f"{where}: customer {customer_id}")
        return found

    def create_tax(self, merchant: str, name: str, percent_value: object) -> Pending[Tax]:
        room(len(self.taxes), MAX_TAXES, "taxes")
        percent = _percent(percent_value, "percent")
        tax = Tax(str(uuid.uuid4()), merchant, name, percent)
        return Pending(tax, lambda: self.taxes.__setitem__(tax.id, tax))

    def merchant_taxes(self, merchant: str) -> list[Tax]:
        return [tax for tax in self.taxes.values() if tax.merchant == merchant]

    # -- orders

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
            price = _amount(product["price"], currency, f"{where}.price")
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
        if "percent" in sent and _percent(sent["percent"], f"{where}.percent") != tax.percent:
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
            _check_travel(travel)

    # -- payments

    def pay(
        self, merchant: Merchant, order: Order, body: dict[str, Any], *, from_checkout: bool
    ) -> Pending[Order]:
        """The payment request at api_do_url (the merchant's, or the hosted checkout's)."""
        if order.status != "new":
            raise not_allowed(f"The order is {order.status}: it takes no payment")
        now = self.now()
        card = self._card(order, body, now)
        by_merchant = body.get("saved_by_merchant") is True
        scenario = body.get("scenario")
        trace = body.get("cof_trace_id")
        registration: Registration | None = None
        items = {order.scenario, *order.items}
        # a merchant-side follow-up: an order made for it (use_scenario) paid with the full
        # number, or any plain order paid with saved_by_merchant and a cof_trace_id
        merchant_follow_up = (order.follow_up and card.saved is None) or (
            not order.saving and not order.follow_up and by_merchant and trace is not None
        )
        if order.saving:
            if trace is not None:
                raise Refusal("cof_trace_id: only a follow-up payment carries one")
            if scenario is not None and scenario != order.request.get("setup_future_use"):
                raise Refusal(
                    "scenario: must match the setup_future_use of the registration "
                    f"({order.request.get('setup_future_use') or 'none was given'})"
                )
            if order.customer_id is not None and (
                len(self.customers[order.customer_id].cards) >= MAX_CARDS
            ):
                raise not_allowed(f"The customer already has {MAX_CARDS} saved cards")
            if order.customer_id is None and not by_merchant:
                raise Refusal(
                    "saved_by_merchant: saving a method needs client.original_client (service "
                    "side) or saved_by_merchant true (merchant side)"
                )
        elif merchant_follow_up:
            registration = self._registration(order, card, by_merchant, scenario, trace)
            if registration.scenario is not None:
                items.add(FOLLOW_UPS[registration.scenario])
        elif order.follow_up:
            if scenario is not None and scenario != card.saved.scenario:  # type: ignore[union-attr]
                raise Refusal(
                    "scenario: must match the setup_future_use of the registration "
                    f"({card.saved.scenario or 'none was given'})"  # type: ignore[union-attr]
                )
        elif by_merchant:
            raise Refusal(
                "saved_by_merchant: this order does not save a method; a merchant-side "
                "follow-up payment sends cof_trace_id and scenario too"
            )
        elif scenario is not None:
            raise Refusal("scenario: this order neither saves a method nor uses a saved one")
        if body.get("avs") is True:
            items.add(Item.AVS)  # Custom AVS
        found = conflicts(items, saved_as=order.request.get("setup_future_use"))
        if found:
            raise Refusal(found[0][2], title="Incompatible combination")
        paid_items = frozenset(items - {Item.OS, Item.TS, Item.ZA})
        self._check_security_code(
            order,
            body,
            card,
            merchant_initiated=registration is not None and scenario in ("recurring", "automatic"),
            from_checkout=from_checkout,
        )
        if "ip_address" in body:
            try:
                ipaddress.ip_address(body["ip_address"])
            except ValueError:
                raise Refusal("ip_address: is not an IPv4 or IPv6 address") from None
        if (
            Item.AF in order.items
            and card.issuer_country in ("US", "CA")
            and not order.client.get("state")
        ):
            raise Refusal(
                "client.state: is required for Account Funding with a card issued in "
                f"{card.issuer_country}"
            )
        avs = self._avs(merchant, order, card, body.get("avs") is True)
        payment = Payment(card, avs, registration, paid_items)
        if card.outcome == "decline":
            after = order.then(
                now,
                "declined",
                "Declined by the issuer",
                status="declined",
                card=card,
                avs_status=avs,
                items=paid_items,
            )
        elif card.outcome == "three_ds" and Item.MO not in order.items and card.saved is None:
            return self._await_3ds(order, payment, paid_items, now)
        else:
            return self._approve(order, payment, now)
        return Pending(after, lambda: self.orders.__setitem__(after.id, after))

    def _await_3ds(
        self, order: Order, payment: Payment, paid_items: frozenset[Item], now: dt.datetime
    ) -> Pending[Order]:
        """The order waits for the cardholder's 3DS answer, at most THREE_DS_WAIT."""
        after = order.then(
            now,
            "three_ds_required",
            "The card needs 3DS authentication",
            status="pending_3ds",
            card=payment.card,
            pending=payment,
            items=paid_items,
            three_ds_token=secrets.token_urlsafe(18),
        )
        token = after.three_ds_token

        def commit() -> None:
            self.orders[after.id] = after
            self.scheduler.at(now + THREE_DS_WAIT, self._give_up_3ds(after.id, token), "3ds")

        return Pending(after, commit)

    def _give_up_3ds(self, order_id: str, token: str | None) -> Callable[[dt.datetime], None]:
        def job(moment: dt.datetime) -> None:
            order = self.orders.get(order_id)
            if order is None or order.status != "pending_3ds" or order.three_ds_token != token:
                return
            self.orders[order_id] = order.then(
                moment,
                "three_ds_failed",
                "3DS authentication was not completed in time; the payment is declined",
                status="declined",
                pending=None,
                three_ds_token=None,
            )

        return job

    def _registration(
        self,
        order: Order,
        card: Card,
        by_merchant: bool,
        scenario: str | None,
        trace: str | None,
    ) -> Registration:
        """The registration a merchant-side follow-up payment names, checked."""
        if not by_merchant and order.chosen_card is not None:
            raise Refusal(
                f"card_number: this order uses the customer's saved card (registered for "
                f"{order.saved_as}): pay with its masked number, or charge it when Recurring; "
                "to pay with another card, create the order without client.original_client"
            )
        if not by_merchant:
            raise Refusal(
                "saved_by_merchant: a follow-up payment with a full card number is "
                "merchant-side: send saved_by_merchant true with scenario and cof_trace_id"
            )
        if trace is None:
            raise Refusal("cof_trace_id: is required for a merchant-side follow-up payment")
        registration = self.registrations.get(trace)
        if registration is None or registration.merchant != order.merchant:
            raise not_found(f"cof_trace_id: registration {trace}")
        if (registration.brand, registration.last4) != (card.brand, card.last4):
            raise Refusal("card_number: is not the card registered under cof_trace_id")
        if scenario is None:
            raise Refusal("scenario: is required for a merchant-side follow-up payment")
        if scenario != registration.scenario:
            raise Refusal(
                "scenario: must match the setup_future_use of the registration "
                f"({registration.scenario or 'none was given'})"
            )
        wanted = order.request.get("use_scenario")
        if wanted is not None and wanted != registration.scenario:
            raise Refusal(
                f"use_scenario: the registration is for {registration.scenario}, not {wanted}"
            )
        return registration

    def _card(self, order: Order, body: dict[str, Any], now: dt.datetime) -> Card:
        number: str = body["card_number"]
        month, year = body["exp_month"], body["exp_year"]
        if any(mark in number for mark in "*•xX"):
            last4 = number[-4:]
            if not ascii_digits(last4):
                raise Refusal("card_number: a masked number ends with the card's last four digits")
            if not order.follow_up:
                raise Refusal(
                    "card_number: a masked number pays only an order that uses a saved card "
                    "(use_scenario, or client.original_client with a saved card); saving needs "
                    "the card itself"
                )
            saved = self._saved_card(order, last4)
            for name, value, kept in (
                ("exp_month", month, (saved.exp_month,)),
                ("exp_year", year, (saved.exp_year, saved.exp_year % 100)),
            ):
                masked = isinstance(value, str) and value.strip("*") == ""
                if not masked and _int(value) not in kept:
                    raise Refusal(f"{name}: is not the saved card's")
            if (saved.exp_year, saved.exp_month) < (now.year, now.month):
                raise Refusal(
                    f"card_number: the saved card expired in {saved.exp_month:02d}/{saved.exp_year}"
                )
            return Card(
                saved.brand,
                saved.last4,
                saved.exp_month,
                saved.exp_year,
                saved.issuer_country,
                saved.outcome,
                saved,
            )
        plain = number.replace(" ", "").replace("-", "")
        if not ascii_digits(plain) or not 13 <= len(plain) <= 19:
            raise Refusal("card_number: must be 13 to 19 digits 0-9 (spaces allowed)")
        if not luhn(plain):
            raise Refusal("card_number: is not a valid card number (it fails the Luhn check)")
        for name, value in (("exp_month", month), ("exp_year", year)):
            if isinstance(value, str) and not ascii_digits(value):
                raise Refusal(
                    f"{name}: a masked expiry goes only with a saved card's masked number"
                )
        exp_month, exp_year = _int(month), _int(year)
        if not 1 <= exp_month <= 12:
            raise Refusal("exp_month: must be from 1 to 12")
        if exp_year < 100:
            exp_year += 2000
        if not 2000 <= exp_year <= 2999:
            raise Refusal("exp_year: must be a year such as 2030 (or 30)")
        if (exp_year, exp_month) < (now.year, now.month):
            raise Refusal(f"exp_year: the card expired in {exp_month:02d}/{exp_year}")
        test = TEST_CARDS.get(plain, _DEFAULT_CARD)
        return Card(
            brand(plain), plain[-4:], exp_month, exp_year, test.issuer_country, test.outcome
        )

    def _saved_card(self, order: Order, last4: str) -> SavedCard:
        cards: tuple[SavedCard, ...] = ()
        if order.customer_id is not None:
            cards = self.customers[order.customer_id].cards
        if order.chosen_card is not None:
            cards = tuple(card for card in cards if card.token == order.chosen_card)
        if not cards:
            raise Refusal(
                "card_number: a masked number pays with a saved card, and this order names no "
                "customer with one (client.original_client or recurring_card)"
            )
        matching = [card for card in cards if card.last4 == last4]
        if not matching:
            raise Refusal(f"card_number: no saved card ends in {last4}")
        return matching[-1]

    @staticmethod
    def _check_security_code(
        order: Order,
        body: dict[str, Any],
        card: Card,
        *,
        merchant_initiated: bool,
        from_checkout: bool,
    ) -> None:
        """cvv (or csc) is required except for MOTO, merchant-initiated Recurring and saved
        cards — but a One-Click payment through the merchant's API has the cardholder type it:
        only the hosted checkout's click stands for the cardholder there."""
        cvv, csc = body.get("cvv"), body.get("csc")
        if cvv is not None and csc is not None and cvv != csc:
            raise Refusal("cvv: differs from csc; send one of them")
        code = cvv if cvv is not None else csc
        if code is None:
            one_click_by_api = Item.OC in order.items and not from_checkout
            if Item.MO in order.items or merchant_initiated:
                return
            if card.saved is not None and not one_click_by_api:
                return
            if card.saved is not None:
                raise Refusal(
                    "cvv: is required for a One-Click payment through the API (the cardholder "
                    "types it; the hosted checkout needs none)"
                )
            raise Refusal("cvv: is required (only MOTO orders and saved cards pay without it)")
        wanted = 4 if card.brand == "amex" else 3
        if len(code) != wanted:
            name = "cvv" if cvv is not None else "csc"
            raise Refusal(f"{name}: this card's security code has {wanted} digits")

    @staticmethod
    def _avs(merchant: Merchant, order: Order, card: Card, custom: bool) -> dict[str, Any] | None:
        if not (merchant.avs or custom):
            return None
        if card.brand not in ("visa", "mastercard", "amex"):
            return {"code": "NOT_SUPPORTED", "description": "AVS not supported", "raw_code": None}
        address, zip_code = order.client.get("address"), order.client.get("zip_code")
        if not address or not zip_code:
            code = "UNAVAILABLE"
        elif zip_code == "00000":
            code = "ADDRESS_MATCH"
        elif zip_code == "99999":
            code = "NO_MATCH"
        else:
            code = "MATCH"
        raw, description = AVS_RESULTS[code]
        return {"code": code, "description": description, "raw_code": raw}

    def _approve(self, order: Order, payment: Payment, now: dt.datetime) -> Pending[Order]:
        """The payment goes through: money moves (or the method is verified), the card is
        registered when the order saves it."""
        card = payment.card
        changes: dict[str, Any] = {
            "card": card,
            "items": payment.items,
            "avs_status": payment.avs_status,
            "pending": None,
            "three_ds_token": None,
            "paid_at": now,
        }
        if card.outcome == "chargeback":
            changes["chargeback_rdr"] = f"RDR-{secrets.token_hex(4).upper()}"
        if order.scenario == Item.TS:
            until = now + self.reservation
            after = order.then(
                now,
                "authorized",
                f"Funds reserved until {iso_seconds(until)}",
                status="hold",
                reserved=order.amount,
                reserved_until=until,
                event_amount=order.amount,
                **changes,
            )
        elif order.scenario == Item.ZA:
            after = order.then(
                now, "verified", "Payment method verified", status="verified", **changes
            )
        else:
            after = order.then(
                now,
                "charged",
                "Charged",
                status="charged",
                captured=order.amount,
                event_amount=order.amount,
                **changes,
            )
        registration: Registration | None = None
        customer: Customer | None = None
        if order.saving:
            scenario = order.request.get("setup_future_use")
            registration = Registration(
                f"COF{secrets.token_hex(8).upper()}",
                order.merchant,
                card.brand,
                card.last4,
                scenario,
            )
            saved_on = ""
            if order.customer_id is not None:
                owner = self.customers[order.customer_id]
                saved = SavedCard(
                    str(uuid.uuid4()),
                    card.brand,
                    card.last4,
                    card.exp_month,
                    card.exp_year,
                    scenario,
                    now,
                    registration.cof_trace_id,
                    card.issuer_country,
                    card.outcome,
                )
                customer = dataclasses.replace(owner, cards=(*owner.cards, saved))
                saved_on = " on the customer"
            after = after.then(
                now,
                "card_saved",
                f"Card •••• {card.last4} saved{saved_on} for {scenario or 'later use'}",
                cof_trace_id=registration.cof_trace_id,
            )
        elif payment.registration is not None:
            after = dataclasses.replace(after, cof_trace_id=payment.registration.cof_trace_id)
        elif card.saved is not None:
            after = dataclasses.replace(after, cof_trace_id=card.saved.cof_trace_id)

        def commit() -> None:
            self.orders[after.id] = after
            if registration is not None:
                self.registrations[registration.cof_trace_id] = registration
            if customer is not None:
                self.customers[customer.id] = customer
            if after.status == "hold" and after.reserved_until is not None:
                self.scheduler.at(after.reserved_until, self._expire(after.id), "expire")

        return Pending(after, commit)

    def _expire(self, order_id: str) -> Callable[[dt.datetime], None]:
        def job(moment: dt.datetime) -> None:
            order = self.orders.get(order_id)
            if order is None or order.status != "hold":
                return
            self.orders[order_id] = order.then(
                moment,
                "expired",
                "The reservation ended without a capture; the funds are released",
                status="expired",
                reserved=Decimal(0),
                event_amount=order.reserved,
            )

        return job

    def three_ds(self, order: Order, authenticated: bool) -> Pending[Order]:
        if order.status != "pending_3ds" or order.pending is None:
            raise not_allowed(f"The order is {order.status}: no 3DS authentication is pending")
        now = self.now()
        if authenticated:
            passed = order.then(now, "three_ds_authenticated", "3DS authentication passed")
            return self._approve(passed, order.pending, now)
        after = order.then(
            now,
            "three_ds_failed",
            "3DS authentication failed; the payment is declined",
            status="declined",
            pending=None,
            three_ds_token=None,
        )
        return Pending(after, lambda: self.orders.__setitem__(after.id, after))

    def charge(self, merchant: Merchant, order: Order) -> Pending[Order]:
        """Service-side Recurring: the order's saved card, charged without the cardholder."""
        if order.status != "new":
            raise not_allowed(f"The order is {order.status}: it cannot be charged")
        if not order.items & {Item.RC, Item.RA}:
            if Item.OC in order.items:
                raise not_allowed(
                    "A One-Click order needs the cardholder: present the hosted checkout"
                )
            raise not_allowed(
                "Only a Recurring order with a saved card (client.original_client or "
                "recurring_card) is charged"
            )
        if order.chosen_card is None or order.customer_id is None:
            raise not_allowed(
                "The order names no saved card: a merchant-side Recurring order is paid at "
                "api_do_url with cof_trace_id"
            )
        saved = next(
            card
            for card in self.customers[order.customer_id].cards
            if card.token == order.chosen_card
        )
        now = self.now()
        if (saved.exp_year, saved.exp_month) < (now.year, now.month):
            raise not_allowed(f"The saved card expired in {saved.exp_month:02d}/{saved.exp_year}")
        card = Card(
            saved.brand,
            saved.last4,
            saved.exp_month,
            saved.exp_year,
            saved.issuer_country,
            saved.outcome,
            saved,
        )
        avs = self._avs(merchant, order, card, False)
        return self._approve(order, Payment(card, avs, None, order.items), now)

    # -- after the payment

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
        total = _amount(total_value, order.currency, "total")
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
            amount = _amount(amount_value, order.currency, "amount")
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


# ---------------------------------------------------------------- checks


def _amount(value: object, currency: str, where: str) -> Decimal:
    try:
        return parse_amount(value, currency)
    except AmountError as exc:
        raise Refusal(f"{where}: {exc}") from None


def _percent(value: object, where: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | Decimal | str):
        raise Refusal(f"{where}: must be a number from 0 to 100")
    try:
        percent = Decimal(value)
    except ArithmeticError:
        raise Refusal(f"{where}: must be a number from 0 to 100") from None
    if not percent.is_finite() or not 0 <= percent <= 100:
        raise Refusal(f"{where}: must be a number from 0 to 100")
    if percent != percent.quantize(Decimal("0.01")):
        raise Refusal(f"{where}: at most 2 decimal places")
    return percent.quantize(Decimal("0.01"))


def _int(value: object) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and ascii_digits(value) and len(value) <= 4:
        return int(value)
    return -1


def _date(text: str, where: str, *, short: bool = False) -> dt.date:
    try:
        if short:
            return dt.datetime.strptime(text, "%y%m%d").date()
        return dt.datetime.strptime(text, "%Y%m%d").date()
    except ValueError:
        shape = "yymmdd" if short else "yyyymmdd"
        raise Refusal(f"{where}: {text!r} is not a date {shape}") from None


_SPANS = {
    "lodging": ("checkin_date", "checkout_date"),
    "car_rental": ("pickup_date", "return_date"),
    "cruise": ("departure_date", "return_date"),
    "ground_transportation": ("departure_date", "return_date"),
}


def _check_travel(travel: dict[str, Any]) -> None:
    (member, data), *_ = travel.items()
    where = f"travel_data.{member}"
    if member == "airline_addendum":
        _date(data["ticket_issue_date"], f"{where}.ticket_issue_date", short=True)
        legs = data["legs"]
        if data["n_legs"] != len(legs):
            raise Refusal(f"{where}.n_legs: is {data['n_legs']}, but {len(legs)} legs are sent")
        for index, leg in enumerate(legs):
            _date(leg["departure_date"], f"{where}.legs.{index}.departure_date")
        return
    first, last = _SPANS[member]
    start = _date(data[first], f"{where}.{first}")
    end = _date(data[last], f"{where}.{last}")
    if end < start:
        raise Refusal(f"{where}.{last}: is before {first}")
