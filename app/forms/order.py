"""The New order form without its widgets: customer, products, currency and language, a
scenario and capabilities, and the fields each capability needs.

The draft offers only what the compatibility matrix (app.core.gateway.matrix) allows with what
is already chosen, and says why a choice is not offered; it checks every field against the same
model the service layer sends (app.api.gateway.OrderCreate) and names each problem with its
part of the form; it builds the request, the confirmation's text and the total, and owns the
action key: one draft, one order. The parts of the form and their fields are one table
(PARTS), which the window builds its groups from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from app.api.action import ActionKey
from app.api.errors import InvalidInput
from app.core.gateway import limits
from app.core.gateway.amounts import AmountError, format_amount, parse_amount
from app.core.gateway.matrix import NAMES, Item, conflicts
from app.core.money import is_currency
from app.forms.order_parts import CARDHOLDER_NEEDS, LABELS, PART_OF, TRAVEL_MEMBERS

if TYPE_CHECKING:
    from app.api.gateway import GatewayClient, Order, Tax

#: The scenario choice, and the items each one makes.
SCENARIOS: tuple[tuple[str, frozenset[Item]], ...] = (
    ("One-Step", frozenset({Item.OS})),
    ("Two-Step", frozenset({Item.TS})),
    ("Zero-Amount", frozenset({Item.ZA})),
    ("Recurring", frozenset({Item.OS, Item.RC})),
    ("Recurring (Automatic)", frozenset({Item.OS, Item.RA})),
    ("One-Click", frozenset({Item.OS, Item.OC})),
)
SCENARIO_NAMES = tuple(name for name, _items in SCENARIOS)
USE_SCENARIO = {Item.RC: "recurring", Item.RA: "automatic", Item.OC: "one-click"}
CAPABILITIES: tuple[Item, ...] = (
    Item.PMS,
    Item.TD,
    Item.AF,
    Item.DD,
    Item.SL,
    Item.QC,
    Item.MO,
    Item.SF,
    Item.SP,
    Item.TX,
    Item.AVS,
)
CURRENCIES = ("EUR", "USD", "GBP", "CHF", "JPY")
SAVED_AS = ("one-click", "automatic", "recurring")
SAVING_CHOICES = (*SAVED_AS, "(none: force_save_method only)")
MAX_PRODUCTS = limits.PRODUCTS.high
MAX_LEGS = limits.LEGS.high
RECURRING_FIELDS = (
    "recurring_card",
    "recurring_number",
    "recurring_number_expected",
    "recurring_period",
    "recurring_reference",
)


@dataclass
class Product:
    title: str = ""
    price: str = ""  # as typed: "10,50" too
    quantity: str = "1"
    tax_id: str = ""

    def price_text(self) -> str:
        """The price as the service takes it ("10,50" typed: "10.50")."""
        text = self.price.strip()
        return text.replace(",", ".") if text.count(",") == 1 and "." not in text else text


@dataclass
class Availability:
    """What the matrix offers with what is chosen: each choice not offered, with the reason
    (the reason is "" for a choice that is offered)."""

    capabilities: dict[Item, str] = field(default_factory=dict)
    saving: list[str] = field(default_factory=list)
    scenarios: list[str] = field(default_factory=list)


class OrderDraft:
    def __init__(self) -> None:
        self.values: dict[str, str] = dict.fromkeys(LABELS, "")
        self.values.update(currency="EUR", scenario=SCENARIO_NAMES[0])
        self.values["setup_future_use"] = SAVING_CHOICES[0]
        self.capabilities: set[Item] = set()  # the ticked capability boxes
        self.force_save = False
        self.same_as_client = False
        self.travel_member = next(iter(TRAVEL_MEMBERS))
        self.products: list[Product] = [Product()]
        self.legs: list[dict[str, str]] = [{}]
        self.taxes: list[Tax] = []
        self.action = ActionKey()
        self.created: Order | None = None

    def text(self, path: str) -> str:
        return self.values.get(path, "").strip()

    # -- what is chosen

    def scenario_items(self) -> frozenset[Item]:
        name = self.values["scenario"]
        return SCENARIOS[SCENARIO_NAMES.index(name) if name in SCENARIO_NAMES else 0][1]

    def chosen(self) -> set[Item]:
        return set(self.scenario_items()) | self.capabilities

    def saved_as(self) -> str | None:
        if Item.PMS not in self.capabilities:
            return None
        text = self.values["setup_future_use"]
        return text if text in SAVED_AS else None

    def recurring_shown(self) -> bool:
        return Item.RC in self.chosen() or self.saved_as() == "recurring"

    def shown(self) -> set[str]:
        """The parts of the form that what is chosen needs."""
        chosen = self.chosen()
        parts = {"customer", "order"}
        if Item.ZA not in chosen:
            parts.add("products")
        if Item.PMS in chosen:
            parts.add("saving")
        if self.recurring_shown():
            parts.add("recurring")
        if Item.TD in chosen:
            parts.update({"travel", self.travel_member})
        if Item.AF in chosen:
            parts.add("funding")
        if chosen & {Item.AF, Item.AVS}:
            parts.add("cardholder")
        parts.update(part for item, part in PART_OF.items() if item in chosen)
        return parts

    def availability(self) -> Availability:
        """Offer only what the matrix allows with what is chosen; say why not."""
        chosen = self.chosen()
        # what saving would be chosen as, even before its box is ticked
        saving = self.values["setup_future_use"]
        saved_as = saving if saving in SAVED_AS else None
        found = Availability()
        for item in CAPABILITIES:
            checked = item in self.capabilities
            found.capabilities[item] = (
                "" if checked else _conflict_with(chosen | {item}, item, saved_as)
            )
        for choice in SAVING_CHOICES:
            as_saved = choice if choice in SAVED_AS else None
            reason = _conflict_with(chosen | {Item.PMS}, Item.PMS, as_saved)
            found.saving.append("" if choice == saving else reason)
        current = self.scenario_items()
        for _name, items in SCENARIOS:
            candidate = (chosen - current) | items
            reason = next((r for i in items if (r := _conflict_with(candidate, i, saved_as))), "")
            found.scenarios.append("" if items == current else reason)
        return found

    # -- the request

    def _fields(self, prefix: str, *, optional: bool = True) -> dict[str, str]:
        found = {}
        depth = prefix.count(".") + 1
        for path in self.values:
            if path.startswith(f"{prefix}.") and path.count(".") == depth:
                value = self.text(path)
                if value or not optional:
                    found[path.rsplit(".", 1)[1]] = value
        return found

    def request(self) -> dict[str, Any]:
        """The order request, from what the draft holds (empty optional fields left out)."""
        items = self.chosen()
        client: dict[str, Any] = {
            k: v for k, v in self._fields("client").items() if k in ("email", "original_client")
        }
        if items & {Item.AF, Item.AVS}:
            client.update(self._fields("client"))
        body: dict[str, Any] = {"client": client, "currency": self.text("currency").upper()}
        if self.text("language"):
            body["language"] = self.text("language")
        if Item.ZA in items:
            body["payment_system"] = "AUTH"
        else:
            body["products"] = [self._product(row, Item.TX in items) for row in self.products]
        if Item.TS in items:
            body["skip_capture"] = True
        for item, use in USE_SCENARIO.items():
            if item in items:
                body["use_scenario"] = use
        if Item.PMS in items:
            if self.saved_as() is not None:
                body["setup_future_use"] = self.saved_as()
            if self.force_save:
                body["force_save_method"] = True
        if self.recurring_shown():
            body.update({key: self.text(key) for key in RECURRING_FIELDS if self.text(key)})
        if Item.TD in items:
            body["travel_data"] = self._travel()
        if Item.AF in items:
            recipient: dict[str, Any] = self._fields("recipient_client", optional=False)
            recipient["same_as_client"] = self.same_as_client
            body["recipient_client"] = recipient
        if Item.DD in items:
            body["dynamic_descriptor"] = self.text("dynamic_descriptor")
        if Item.SL in items:
            body["service_location"] = self._fields("service_location")
        if Item.QC in items:
            body["payment_system"] = "QCASH"
        if Item.SF in items:
            body["payment_system"] = "SDWO_FUNDING"
        if Item.MO in items:
            body["is_moto"] = True
        if Item.SP in items:
            body["sdwo_merchant_id"] = self.text("sdwo_merchant_id")
        return body

    @staticmethod
    def _product(row: Product, taxes: bool) -> dict[str, Any]:
        product: dict[str, Any] = {"title": row.title.strip(), "price": row.price_text()}
        quantity = row.quantity.strip()
        if quantity:
            product["quantity"] = (
                int(quantity) if quantity.isascii() and quantity.isdigit() else quantity
            )
        if taxes and row.tax_id:
            product["tax"] = {"id": row.tax_id}
        return product

    def _travel(self) -> dict[str, Any]:
        member = self.travel_member
        data: dict[str, Any] = self._fields(f"travel_data.{member}", optional=True)
        if member == "airline_addendum":
            legs = [{k: v.strip() for k, v in leg.items() if v.strip()} for leg in self.legs]
            data["legs"] = legs
            data["n_legs"] = len(legs)
        return {member: data}

    # -- problems

    def problems(self) -> tuple[dict[str, str], str]:
        """Each field's problem, and the order's (one not of a single field)."""
        from app.api.gateway import OrderCreate
        from app.api.models import build

        problems: dict[str, str] = {}
        general = ""
        body = self.request()
        chosen = self.chosen()
        currency = body["currency"]
        if not is_currency(currency):
            problems["currency"] = "an ISO 4217 code such as EUR"
        for index, row in enumerate(self.products if Item.ZA not in chosen else []):
            text = row.price.strip().replace(",", ".")
            if text and is_currency(currency):
                try:
                    parse_amount(text, currency)
                except AmountError as exc:
                    problems[f"products.{index}.price"] = str(exc)
        if Item.TX in chosen and not any(row.tax_id for row in self.products):
            general = "Taxes: choose a tax for at least one product"
        if Item.ZA in chosen and Item.PMS not in chosen:
            general = "A Zero-Amount order saves or verifies a card: tick Payment Method Saving"
        for item, names in CARDHOLDER_NEEDS.items():  # all at once, not one per try
            if item in chosen:
                for name in names:
                    if not self.text(f"client.{name}"):
                        problems[f"client.{name}"] = f"Required for {NAMES[item]}"
        try:
            build(OrderCreate, body)
        except InvalidInput as exc:  # each problem in the user's words already
            for key, text in exc.problems.items():
                if key in self.values or key.startswith(("products.", "travel_data.")):
                    problems.setdefault(key, text)
                elif not general:
                    general = f"{self.label(key)}: {text}" if key else text
        conflict = conflicts(chosen, saved_as=self.saved_as())
        if conflict:
            general = conflict[0][2]
        return problems, general

    def notes(self) -> dict[str, str]:
        """What is said beside a field that is not wrong."""
        if Item.AF in self.chosen() and not self.text("client.state"):
            # the contract asks for it only when the card is issued in Canada or the USA,
            # which is not known before the card is taken: said, not required
            return {"client.state": "Needed when the card is issued in Canada or the USA"}
        return {}

    def reason(self, problems: dict[str, str], general: str) -> str:
        """Why the order cannot be created yet, naming each thing to correct ("" when it can)."""
        count = len(problems) + (1 if general else 0)
        if not count:
            return ""
        names = [self.label(key) for key in problems]
        if general:
            names.append(general)
        return f"{count} thing{'s' if count != 1 else ''} to correct first: {'; '.join(names)}"

    @staticmethod
    def product_problems(problems: dict[str, str], index: int) -> str:
        """What is wrong with product ``index``, as its row says it ("price: …")."""
        prefix = f"products.{index}."
        found = [
            f"{key.rsplit('.', 1)[1]}: {text}"
            for key, text in problems.items()
            if key.startswith(prefix)
        ]
        return "; ".join(found)

    @staticmethod
    def leg_problems(problems: dict[str, str]) -> str:
        """What is wrong with the legs of a flight, as the list of legs says it."""
        airline = "travel_data.airline_addendum."
        found = [
            f"{key.removeprefix(airline)}: {text}"
            for key, text in problems.items()
            if key.startswith((f"{airline}legs", f"{airline}n_legs"))
        ]
        return "; ".join(found)

    @staticmethod
    def label(key: str) -> str:
        """A field as the summary names it: with its part of the form."""
        if key in LABELS:
            return LABELS[key]
        if key.startswith("products."):
            return f"Product {int(key.split('.')[1]) + 1}: {key.rsplit('.', 1)[1]}"
        section, _, name = key.rpartition(".")
        words = name.replace("_", " ")
        return (
            f"{section.replace('_', ' ').capitalize()}: {words}" if section else words.capitalize()
        )

    # -- what it comes to

    def total(self) -> str:
        """The total of the products, taxes included ("" when there is none to show)."""
        currency = self.text("currency").upper()
        chosen = self.chosen()
        if Item.ZA in chosen or not is_currency(currency):
            return ""
        total = Decimal(0)
        taxes = {tax.id: tax.percent for tax in self.taxes}
        try:
            step = Decimal(1).scaleb(-len(format_amount(Decimal(1), currency).partition(".")[2]))
            for row in self.products:
                price = parse_amount(row.price_text() or "0", currency)
                line = price * int(row.quantity.strip() or "1")
                percent = taxes.get(row.tax_id)
                if percent is not None and Item.TX in chosen:
                    line += (line * percent / 100).quantize(step, rounding=ROUND_HALF_UP)
                total += line
        except (AmountError, ValueError, InvalidOperation):
            return "Total: —"
        return f"Total: {format_amount(total, currency)} {currency}"

    def summary(self) -> str:
        """The confirmation's text."""
        chosen = self.chosen()
        capabilities = [NAMES[i] for i in CAPABILITIES if i in chosen]
        lines = [f"Create this {self.values['scenario']} order?", ""]
        lines.append(f"Customer: {self.text('client.email') or '(no e-mail)'}")
        if self.text("client.original_client"):
            lines.append(f"Customer ID: {self.text('client.original_client')}")
        if capabilities:
            lines.append(f"Capabilities: {', '.join(capabilities)}")
        if Item.ZA not in chosen:
            for row in self.products:
                quantity = row.quantity.strip() or 1
                lines.append(f"  {row.title.strip()}: {row.price_text()} × {quantity}")
            lines.append(self.total())
        else:
            lines.append("No money moves (Zero-Amount).")
        return "\n".join(lines)

    # -- the service

    def check(self, request: dict[str, Any]) -> None:
        """The service layer's own check of the request (InvalidInput)."""
        from app.api.gateway import OrderCreate
        from app.api.models import build

        build(OrderCreate, request)

    async def send(self, gateway: GatewayClient, request: dict[str, Any]) -> Order:
        """Create the order with the draft's key; when the first Create's outcome is unknown,
        it goes again first."""
        from app.api.gateway import OrderCreate
        from app.api.models import build

        order = await self.action.send(
            request,
            lambda sent, key: gateway.create_order(build(OrderCreate, sent), request_id=key),
        )
        self.created = order
        return order

    async def create_customer(self, gateway: GatewayClient) -> str:
        """A gateway customer from the draft's e-mail, taken as the order's customer: its id."""
        from app.api.gateway import CustomerCreate
        from app.api.models import build

        email = self.text("client.email")
        created = await gateway.create_customer(build(CustomerCreate, {"email": email}))
        self.values["client.original_client"] = created.id
        return created.id


def _conflict_with(items: set[Item] | frozenset[Item], item: Item, saved_as: str | None) -> str:
    for a, b, reason in conflicts(items, saved_as=saved_as):
        if item in (a, b):
            return reason
    return ""
