"""The sandbox gateway's records: merchants and their test cards, customers with saved
cards, taxes, orders (immutable values: an operation prepares the order it would become and
commits it in one step) and the registrations behind cof_trace_ids; and the state they live
in (GatewayBase), which the gateway's parts build on."""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from app.core import filter as flt
from app.core.gateway.amounts import format_amount
from app.core.gateway.matrix import CODES, Item
from app.sandbox.clock import Scheduler
from app.sandbox.pending import iso_seconds

RESERVATION = dt.timedelta(days=7)  # the contract's 6..28 days: 7 in the sandbox (decided)
# what one sandbox holds at most (decided): memory stays bounded; a reset starts over
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
DEFAULT_CARD = TestCard("approve", "US")

AVS_RESULTS = {
    "MATCH": ("Y", "Address and ZIP code match"),
    "ADDRESS_MATCH": ("A", "Address matches, ZIP code does not"),
    "NO_MATCH": ("N", "Neither address nor ZIP code match"),
    "UNAVAILABLE": ("U", "Address information is unavailable"),
}


def two_years_after(moment: dt.datetime) -> dt.datetime:
    """The same calendar day two years on (29 February becomes 28 February)."""
    try:
        return moment.replace(year=moment.year + 2)
    except ValueError:
        return moment.replace(year=moment.year + 2, day=28)


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

    def card(self) -> Card:
        """The card a payment with this saved card is made with."""
        return Card(
            self.brand,
            self.last4,
            self.exp_month,
            self.exp_year,
            self.issuer_country,
            self.outcome,
            self,
        )

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
class GatewayBase:
    scheduler: Scheduler
    reservation: dt.timedelta = RESERVATION
    customers: dict[str, Customer] = field(default_factory=dict)
    taxes: dict[str, Tax] = field(default_factory=dict)
    orders: dict[str, Order] = field(default_factory=dict)
    registrations: dict[str, Registration] = field(default_factory=dict)

    def now(self) -> dt.datetime:
        return self.scheduler.clock.now()


def avs_result(merchant: Merchant, order: Order, card: Card, custom: bool) -> dict[str, Any] | None:
    """The AVS result of a payment, when the merchant or the request asks for one."""
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
