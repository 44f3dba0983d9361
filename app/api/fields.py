"""Field types shared by the models of every service, their bounds from app.core.limits."""

from __future__ import annotations

import ipaddress
from typing import Annotated, Any

from pydantic import AfterValidator, Field, StringConstraints

from app.core import limits
from app.core.countries import is_country
from app.core.limits import EMAIL_PATTERN, PHONE_PATTERN, Bound
from app.core.money import is_currency


def text(bound: Bound) -> Any:
    """The constraint of a text field with this length bound."""
    return StringConstraints(min_length=bound.low, max_length=bound.high)


def _country(value: str) -> str:
    if not is_country(value):
        raise ValueError(f"{value!r} is not an ISO 3166 alpha-2 country code (such as LT)")
    return value


def _currency(value: str) -> str:
    if not is_currency(value):
        raise ValueError(f"{value!r} is not an ISO 4217 currency code (such as EUR)")
    return value


def _ipv4(value: str) -> str:
    try:
        ipaddress.IPv4Address(value)
    except ValueError:
        raise ValueError(f"{value!r} is not an IPv4 address such as 192.0.2.10") from None
    return value


# strict: an amount is a JSON integer, never 100.0
Amount = Annotated[int, Field(strict=True, ge=limits.AMOUNT.low, le=limits.AMOUNT.high)]
FeeAmount = Annotated[int, Field(ge=limits.FEE_AMOUNT.low, le=limits.FEE_AMOUNT.high)]
Currency = Annotated[str, text(limits.CURRENCY), AfterValidator(_currency)]
Country = Annotated[str, text(limits.COUNTRY), AfterValidator(_country)]
Ip = Annotated[str, text(limits.IP), AfterValidator(_ipv4)]
Phone = Annotated[str, StringConstraints(pattern=PHONE_PATTERN, max_length=limits.PHONE.high)]
Email = Annotated[str, StringConstraints(pattern=EMAIL_PATTERN, max_length=limits.EMAIL.high)]
