"""Field types shared by the models of every service, their bounds from app.core.limits."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, StringConstraints

from app.core import checks, limits
from app.core.limits import EMAIL_PATTERN, PHONE_PATTERN, Bound
from app.core.money import is_currency


def text(bound: Bound) -> Any:
    """The constraint of a text field with this length bound."""
    return StringConstraints(min_length=bound.low, max_length=bound.high)


def said(check: checks.Check) -> Any:
    """A validator refusing, in the words of ``check`` (app.core.checks), a text the check
    finds wrong: the same words as the form that checks it as it is typed."""

    def validate(value: object) -> object:
        if isinstance(value, str):
            problem = check(value)
            if problem:
                raise ValueError(problem)
        return value

    return BeforeValidator(validate)


def shaped(pattern: str, expected: str) -> Any:
    """A validator refusing a text not of this shape, saying what is expected (``expected``,
    in the user's words: "Three capital letters, such as VNO")."""
    compiled = re.compile(pattern)

    def validate(value: object) -> object:
        if isinstance(value, str) and not compiled.fullmatch(value):
            raise ValueError(expected)
        return value

    return BeforeValidator(validate)


def _country(value: str) -> str | None:
    return checks.country(value) or (
        None if value == value.upper() else "Enter the country code in capitals, such as LT"
    )


def _currency(value: str) -> str | None:
    return None if is_currency(value) else "Enter an ISO 4217 code such as EUR"


# strict: an amount is a JSON integer, never 100.0
Amount = Annotated[int, Field(strict=True, ge=limits.AMOUNT.low, le=limits.AMOUNT.high)]
FeeAmount = Annotated[int, Field(ge=limits.FEE_AMOUNT.low, le=limits.FEE_AMOUNT.high)]
Currency = Annotated[str, said(_currency), text(limits.CURRENCY)]
Country = Annotated[str, said(_country), text(limits.COUNTRY)]
Ip = Annotated[str, said(checks.ipv4), text(limits.IP)]
Phone = Annotated[
    str, said(checks.phone), StringConstraints(pattern=PHONE_PATTERN, max_length=limits.PHONE.high)
]
Email = Annotated[
    str, said(checks.email), StringConstraints(pattern=EMAIL_PATTERN, max_length=limits.EMAIL.high)
]
