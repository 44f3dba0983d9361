"""The sandbox gateway's checks of values a request sends: amounts, percents, integers,
dates and travel data, each refused in words naming the field."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from app.core.gateway.amounts import AmountError, parse_amount
from app.core.gateway.cards import ascii_digits
from app.sandbox.errors import Refusal

# ---------------------------------------------------------------- checks


def amount_of(value: object, currency: str, where: str) -> Decimal:
    try:
        return parse_amount(value, currency)
    except AmountError as exc:
        raise Refusal(f"{where}: {exc}") from None


def percent_of(value: object, where: str) -> Decimal:
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


def integer_of(value: object) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and ascii_digits(value) and len(value) <= 4:
        return int(value)
    return -1


def date_of(text: str, where: str, *, short: bool = False) -> dt.date:
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


def check_travel(travel: dict[str, Any]) -> None:
    (member, data), *_ = travel.items()
    where = f"travel_data.{member}"
    if member == "airline_addendum":
        date_of(data["ticket_issue_date"], f"{where}.ticket_issue_date", short=True)
        legs = data["legs"]
        if data["n_legs"] != len(legs):
            raise Refusal(f"{where}.n_legs: is {data['n_legs']}, but {len(legs)} legs are sent")
        for index, leg in enumerate(legs):
            date_of(leg["departure_date"], f"{where}.legs.{index}.departure_date")
        return
    first, last = _SPANS[member]
    start = date_of(data[first], f"{where}.{first}")
    end = date_of(data[last], f"{where}.{last}")
    if end < start:
        raise Refusal(f"{where}.{last}: is before {first}")
