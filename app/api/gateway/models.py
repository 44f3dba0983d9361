"""The card gateway's models (resources/openapi/gateway.yaml): requests checked against the
contract's rules and limits before anything is sent, answers with Decimal amounts.

Card data (``PaymentCreate.card_number``, ``cvv``, ``csc``) is held as ``SecretStr``: its
repr, a log line or a traceback shows ``**********``; only the request body reveals it.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    SecretStr,
    StringConstraints,
    field_validator,
    model_validator,
)

from app.api.fields import Country, Currency, Email, shaped
from app.api.gateway.fields import (
    Airport,
    AnswerAmount,
    AnswerPercent,
    AnswerTime,
    Booking,
    Brand,
    Date8,
    LongText,
    Name,
    OrderStatus,
    SavingScenario,
    Subdivision,
    Uuid,
    Zip,
    calendar_day,
    exact_decimal,
    list_within,
    percent_value,
    text_within,
    whole_within,
)
from app.api.models import Model, RequestModel
from app.core.gateway import limits
from app.core.gateway.amounts import (
    AmountError,
    format_amount,
    parse_amount,
    smallest,
)
from app.core.gateway.cards import ascii_digits, luhn
from app.core.gateway.matrix import BY_CODE, FIELDS, Item, conflicts, derive

# ---------------------------------------------------------------- customers and taxes


class CustomerCreate(RequestModel):
    email: Email


class CustomerCreated(Model):
    id: str


class SavedCard(Model):
    token: str
    brand: Brand
    last4: Annotated[str, StringConstraints(pattern=r"^[0-9]{4}$")]
    exp_month: int
    exp_year: int
    scenario: SavingScenario | None
    saved_at: AnswerTime

    @property
    def masked(self) -> str:
        return f"•••• {self.last4}"


class Customer(Model):
    id: str
    email: str
    created_at: AnswerTime
    cards: list[SavedCard]


class TaxCreate(RequestModel):
    name: Name
    percent: Annotated[Decimal, AfterValidator(percent_value)]

    @field_validator("percent", mode="before")
    @classmethod
    def _exact(cls, value: object) -> Decimal:
        return exact_decimal(value)

    def body(self) -> dict[str, Any]:
        return {"name": self.name, "percent": str(self.percent)}


class Tax(Model):
    id: str
    name: str
    percent: AnswerPercent


# ---------------------------------------------------------------- order request


class OrderClient(RequestModel):
    email: Email | None = None
    original_client: Uuid | None = None
    send_to_email: bool | None = None
    first_name: Name | None = None
    last_name: Name | None = None
    address: LongText | None = None
    city: Name | None = None
    country: Country | None = None
    state: Subdivision | None = None
    zip_code: Zip | None = None


class ProductTax(RequestModel):
    id: Uuid
    name: Name | None = None
    percent: Annotated[Decimal, AfterValidator(percent_value)] | None = None


class Product(RequestModel):
    title: LongText
    price: Decimal
    quantity: Annotated[int, whole_within(limits.QUANTITY)] | None = None
    description: Annotated[str, text_within(limits.PRODUCT_DESCRIPTION)] | None = None
    tax: ProductTax | None = None

    @field_validator("price", mode="before")
    @classmethod
    def _exact(cls, value: object) -> Decimal:
        return exact_decimal(value)


class RecipientClient(RequestModel):
    """Account Funding: every field is required."""

    first_name: Name
    last_name: Name
    birth_date: dt.date
    city: Name
    account_type: Annotated[str, text_within(limits.ACCOUNT_TYPE)]
    account_number: Booking
    country: Country
    recipient_address: LongText
    same_as_client: bool


class ServiceLocation(RequestModel):
    city: Name | None = None
    region: Subdivision | None = None
    country: Country | None = None
    zip_code: Zip | None = None


class Leg(RequestModel):
    departure_airport: Airport
    carrier_code: Annotated[
        str,
        shaped(r"^[A-Z0-9]{2}$", "Two capital letters or digits, such as BT"),
        StringConstraints(pattern=r"^[A-Z0-9]{2}$"),
    ]
    destination_airport: Airport
    departure_date: Annotated[Date8, AfterValidator(lambda v: calendar_day(v) and v)]
    service_class: Annotated[str, text_within(limits.SERVICE_CLASS)] | None = None
    trip_number: Annotated[str, text_within(limits.TRIP_NUMBER)] | None = None


class AirlineAddendum(RequestModel):
    ticket_number: Annotated[str, text_within(limits.TICKET_NUMBER)]
    passenger_name: Name
    customer_ref: Booking | None = None
    n_legs: Annotated[int, whole_within(limits.LEGS)]
    carrier_name: Name
    ticket_issue_date: Annotated[
        str,
        shaped(r"^[0-9]{6}$", "6 digits, yymmdd"),
        StringConstraints(pattern=r"^[0-9]{6}$"),
        AfterValidator(lambda v: calendar_day(v, "%y%m%d") and v),
    ]
    legs: Annotated[list[Leg], list_within(limits.LEGS)]

    @model_validator(mode="after")
    def _count(self) -> AirlineAddendum:
        if self.n_legs != len(self.legs):
            raise ValueError(f"n_legs is {self.n_legs}, but {len(self.legs)} legs are given")
        return self


def _span(first: str, last: str) -> Any:
    def check(model: Any) -> Any:
        start, end = calendar_day(getattr(model, first)), calendar_day(getattr(model, last))
        if end < start:
            raise ValueError(f"{last} is before {first}")
        return model

    return model_validator(mode="after")(check)


class Stay(RequestModel):
    booking_number: Booking
    checkin_date: Date8
    checkout_date: Date8
    _order = _span("checkin_date", "checkout_date")


class CarRental(RequestModel):
    booking_number: Booking
    pickup_date: Date8
    return_date: Date8
    _order = _span("pickup_date", "return_date")


class Journey(RequestModel):
    booking_number: Booking
    departure_date: Date8
    return_date: Date8
    _order = _span("departure_date", "return_date")


class TravelData(RequestModel):
    """One member only: for a package, the first service of the order."""

    airline_addendum: AirlineAddendum | None = None
    lodging: Stay | None = None
    car_rental: CarRental | None = None
    cruise: Journey | None = None
    ground_transportation: Journey | None = None

    @model_validator(mode="after")
    def _one(self) -> TravelData:
        given = [name for name in type(self).model_fields if getattr(self, name) is not None]
        if len(given) != 1:
            raise ValueError(
                "exactly one of airline_addendum, lodging, car_rental, cruise, "
                "ground_transportation"
            )
        return self


class OrderCreate(RequestModel):
    """An order request. Checked here as the gateway checks it, so a refused combination is
    named before anything is sent: amounts with the currency's exponent, product price at
    least 0.01, the compatibility matrix over the derived scenario and capabilities, Zero-Amount
    needing saving, Account Funding needing the client's name and address."""

    client: OrderClient
    products: Annotated[list[Product], list_within(limits.PRODUCTS)] | None = None
    currency: Currency
    language: (
        Annotated[
            str,
            shaped(r"^[a-z]{2}$", "Two lower-case letters, such as lt"),
            StringConstraints(pattern=r"^[a-z]{2}$"),
        ]
        | None
    ) = None
    setup_future_use: SavingScenario | None = None
    force_save_method: bool | None = None
    use_scenario: SavingScenario | None = None
    recurring_card: Uuid | None = None
    recurring_number: Booking | None = None
    recurring_number_expected: Booking | None = None
    recurring_period: Booking | None = None
    recurring_reference: Booking | None = None
    skip_capture: bool | None = None
    payment_system: Literal["CARD", "AUTH", "QCASH", "SDWO_FUNDING"] | None = None
    is_moto: bool | None = None
    dynamic_descriptor: Annotated[str, text_within(limits.DYNAMIC_DESCRIPTOR)] | None = None
    sdwo_merchant_id: Booking | None = None
    service_location: ServiceLocation | None = None
    travel_data: TravelData | None = None
    recipient_client: RecipientClient | None = None

    @model_validator(mode="after")
    def _rules(self) -> OrderCreate:
        # the matrix first, as the gateway checks it: a combination is named before the data
        items = derive(self.model_dump(exclude_none=True))
        found = conflicts(items, saved_as=self.setup_future_use)
        if found:
            _first, second, reason = found[0]
            raise ValueError(f"{FIELDS[second]}: {reason}")
        for index, product in enumerate(self.products or []):
            where = f"products.{index}.price"
            try:
                price = parse_amount(product.price, self.currency)
            except AmountError as exc:
                raise ValueError(f"{where}: {exc}") from None
            low = smallest(self.currency)
            if price < low:
                raise ValueError(f"{where}: must be at least {format_amount(low, self.currency)}")
            product.price = price
        zero_amount = Item.ZA in items
        if zero_amount and self.products:
            raise ValueError("products: a Zero-Amount order (payment_system AUTH) sends none")
        if zero_amount and Item.PMS not in items:
            raise ValueError(
                "products: are required, except in a Zero-Amount order, which needs "
                "setup_future_use or force_save_method"
            )
        if Item.AF in items:
            for name in ("first_name", "last_name", "address", "city", "country"):
                if getattr(self.client, name) is None:
                    raise ValueError(f"client.{name}: is required for Account Funding")
        saved_method = self.client.original_client or self.recurring_card
        if (
            self.recurring_number is not None
            and "recurring" not in (self.setup_future_use, self.use_scenario)
            and not (saved_method and self.use_scenario is None)  # the card's scenario applies
        ):
            raise ValueError(
                "recurring_number: goes only with a recurring order (setup_future_use or "
                "use_scenario recurring, or a card saved for recurring)"
            )
        return self

    def items(self) -> set[Item]:
        """The scenario and capabilities, as far as the request tells (the merchant's AVS
        permission and a saved card's scenario are the gateway's to add)."""
        return derive(self.model_dump(exclude_none=True))


# ---------------------------------------------------------------- payment


_MASKS = "*•xX"


def _card_number(secret: SecretStr) -> SecretStr:
    number = secret.get_secret_value()
    if any(mark in number for mark in _MASKS):
        if not ascii_digits(number[-4:]):
            raise ValueError("a masked number ends with the card's last four digits")
        return secret
    plain = number.replace(" ", "").replace("-", "")
    if not ascii_digits(plain) or not 13 <= len(plain) <= 19:
        raise ValueError("must be 13 to 19 digits 0-9 (spaces allowed)")
    if not luhn(plain):
        raise ValueError("is not a valid card number (it fails the Luhn check)")
    return SecretStr(plain)


def _security_code(secret: SecretStr) -> SecretStr:
    code = secret.get_secret_value()
    if not ascii_digits(code) or not 3 <= len(code) <= 4:
        raise ValueError("must be 3 or 4 digits")
    return secret


def _ip(value: str) -> str:
    try:
        ipaddress.ip_address(value)
    except ValueError:
        raise ValueError(f"{value[:45]!r} is not an IPv4 or IPv6 address") from None
    return value


Masked = Annotated[str, StringConstraints(pattern=r"^\*{1,4}$")]


class PaymentCreate(RequestModel):
    """The payment request posted to the order's api_do_url."""

    card_number: Annotated[SecretStr, AfterValidator(_card_number)]
    exp_month: Annotated[int, whole_within(limits.EXP_MONTH)] | Masked
    exp_year: Annotated[int, whole_within(limits.EXP_YEAR)] | Masked
    cvv: Annotated[SecretStr, AfterValidator(_security_code)] | None = None
    csc: Annotated[SecretStr, AfterValidator(_security_code)] | None = None
    cardholder_name: Name | None = None
    saved_by_merchant: bool | None = None
    ip_address: Annotated[str, text_within(limits.PAYER_IP), AfterValidator(_ip)] | None = None
    scenario: SavingScenario | None = None
    cof_trace_id: Booking | None = None
    avs: bool | None = None

    @property
    def masked(self) -> bool:
        return any(mark in self.card_number.get_secret_value() for mark in _MASKS)

    @model_validator(mode="after")
    def _expiry(self) -> PaymentCreate:
        masked_expiry = isinstance(self.exp_month, str) or isinstance(self.exp_year, str)
        if masked_expiry and not self.masked:
            raise ValueError("a masked expiry goes only with a saved card's masked number")
        return self

    def body(self) -> dict[str, Any]:
        """The request body: the only place the card data is revealed."""
        data = self.model_dump(mode="json", exclude_none=True)
        for name in ("card_number", "cvv", "csc"):
            secret = getattr(self, name)
            if secret is not None:
                data[name] = secret.get_secret_value()
        return data


# ---------------------------------------------------------------- answers


class AvsStatus(Model):
    code: str
    description: str
    raw_code: str | None = None


class HistoryEntry(Model):
    at: AnswerTime
    event: str
    status: OrderStatus
    amount: AnswerAmount | None = None
    message: str


class PaidCard(Model):
    brand: Brand
    last4: Annotated[str, StringConstraints(pattern=r"^[0-9]{4}$")]  # never more of the number

    @property
    def masked(self) -> str:
        return f"•••• {self.last4}"


class Order(Model):
    id: str
    status: OrderStatus
    scenario: Literal["one_step", "two_step", "zero_amount"]
    capabilities: list[str]
    currency: str
    amount: AnswerAmount
    amount_reserved: AnswerAmount
    amount_captured: AnswerAmount
    amount_refunded: AnswerAmount
    reserved_until: AnswerTime | None
    created_at: AnswerTime
    paid_at: AnswerTime | None = None
    checkout_url: str
    checkout_script_url: str
    api_do_url: str
    three_ds_url: str | None = None
    avs_status: AvsStatus | None
    cof_trace_id: str | None
    client_email: str | None = None
    customer_id: str | None = None
    card: PaidCard | None = None
    history: list[HistoryEntry]

    @property
    def items(self) -> set[Item]:
        """The scenario and capabilities as the matrix names them (unknown names skipped)."""
        names = [self.scenario, *self.capabilities]
        return {BY_CODE[name] for name in names if name in BY_CODE}

    @property
    def refundable(self) -> Decimal:
        return self.amount_captured - self.amount_refunded
