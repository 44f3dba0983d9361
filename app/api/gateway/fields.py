"""The card gateway's field types: texts within the contract's limits (app.core.gateway.limits),
shapes named in the user's words, exact decimals (never a float), and an answer's amounts,
percents and moments read within bounds."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BeforeValidator, Field, StringConstraints

from app.api.fields import shaped
from app.core.gateway import limits
from app.core.gateway.amounts import AmountError, answer_amount, answer_percent
from app.core.limits import Bound

SavingScenario = Literal["one-click", "automatic", "recurring"]


OrderStatus = Literal[
    "new",
    "pending_3ds",
    "hold",
    "charged",
    "partially_refunded",
    "refunded",
    "reversed",
    "declined",
    "expired",
    "verified",
]


Brand = Literal["visa", "mastercard", "amex", "other"]


UUID_PATTERN = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"


def text_within(bound: Bound, pattern: str | None = None) -> Any:
    return StringConstraints(min_length=bound.low, max_length=bound.high, pattern=pattern)


def list_within(bound: Bound) -> Any:
    return Field(min_length=bound.low, max_length=bound.high)


def whole_within(bound: Bound) -> Any:
    return Field(strict=True, ge=bound.low, le=bound.high)


Uuid = Annotated[
    str,
    shaped(UUID_PATTERN, "A UUID: 32 hexadecimal digits in groups of 8-4-4-4-12"),
    StringConstraints(pattern=UUID_PATTERN),
]


Name = Annotated[str, text_within(limits.NAME)]


LongText = Annotated[str, text_within(limits.TEXT)]


Booking = Annotated[str, text_within(limits.REFERENCE)]


Zip = Annotated[
    str,
    shaped(r"^[A-Za-z0-9 -]{0,16}$", "Letters, digits, spaces and dashes, at most 16"),
    text_within(limits.ZIP_CODE, pattern=r"^[A-Za-z0-9 -]{1,16}$"),
]


Subdivision = Annotated[
    str,
    shaped(r"^[A-Z0-9]{0,3}$", "Up to 3 capital letters or digits, such as CA"),
    text_within(limits.SUBDIVISION, pattern=r"^[A-Z0-9]{1,3}$"),
]


Date8 = Annotated[
    str, shaped(r"^[0-9]{8}$", "8 digits, yyyymmdd"), StringConstraints(pattern=r"^[0-9]{8}$")
]


Airport = Annotated[
    str,
    shaped(r"^[A-Z]{3}$", "Three capital letters, such as VNO"),
    StringConstraints(pattern=r"^[A-Z]{3}$"),
]


def exact_decimal(value: object) -> Decimal:
    """A decimal taken from a Decimal, an int or a string, never from a float."""
    if isinstance(value, float):
        raise ValueError("must be a Decimal or a string such as 10.50, never a float")
    if isinstance(value, bool) or not isinstance(value, Decimal | int | str):
        raise ValueError("must be a decimal number such as 10.50")
    try:
        return Decimal(value)
    except ArithmeticError:
        raise ValueError(f"{str(value)[:30]!r} is not a decimal number such as 10.50") from None


def percent_value(value: object) -> Decimal:
    percent = exact_decimal(value)
    if not percent.is_finite() or not 0 <= percent <= 100:
        raise ValueError("must be a number from 0 to 100")
    if percent != percent.quantize(Decimal("0.01")):
        raise ValueError("at most 2 decimal places")
    return percent


Percent = Annotated[Decimal, Field(union_mode="left_to_right"), AfterValidator(percent_value)]


def calendar_day(text: str, shape: str = "%Y%m%d") -> dt.date:
    try:
        return dt.datetime.strptime(text, shape).date()
    except ValueError:
        written = "yymmdd" if shape == "%y%m%d" else "yyyymmdd"
        raise ValueError(f"{text} is not a day of the calendar ({written})") from None


def _answer_amount(value: object) -> Decimal:
    try:
        return answer_amount(value)
    except AmountError as exc:
        raise ValueError(str(exc)) from None


def _answer_percent(value: object) -> Decimal:
    try:
        return answer_percent(value)
    except AmountError as exc:
        raise ValueError(str(exc)) from None


# a decimal of an answer, read from bounded text only (never "1E+999999999")
AnswerAmount = Annotated[Decimal, BeforeValidator(_answer_amount)]


AnswerPercent = Annotated[Decimal, BeforeValidator(_answer_percent)]


EARLIEST, LATEST = 1900, 9000  # the years a moment in an answer may fall in


def _answer_time(moment: dt.datetime) -> dt.datetime:
    """A moment of an answer, in UTC: with its zone, and within years every date sum the desk
    makes stays inside (a year-1 date with an offset, or 9999's, overflowed when shown)."""
    if moment.tzinfo is None:
        raise ValueError("a moment needs its time zone, such as Z")
    try:
        utc = moment.astimezone(dt.UTC)
    except OverflowError:
        utc = None
    if utc is None or not EARLIEST <= utc.year <= LATEST:
        raise ValueError(f"{moment.isoformat()[:40]} is not a moment from {EARLIEST} to {LATEST}")
    return utc


AnswerTime = Annotated[dt.datetime, AfterValidator(_answer_time)]
