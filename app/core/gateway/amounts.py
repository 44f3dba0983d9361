"""Gateway amounts are decimals in major units ("10.50"), never floats: taken from a JSON
number (parsed as Decimal) or a string, padded to the currency's exponent, refused when they
carry more digits than it has, and written back as a string with exactly that many."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from app.core.money import MoneyError, exponent

_TEXT = re.compile(r"[0-9]{1,15}(\.[0-9]{1,15})?")
# an amount in an answer, as gateway.yaml's amountText writes it
_ANSWER = re.compile(r"[0-9]{1,13}(\.[0-9]{1,4})?")
_PERCENT = re.compile(r"[0-9]{1,3}(\.[0-9]{1,2})?")


class AmountError(ValueError):
    """An amount that cannot be used; the message says why."""


def parse_amount(value: object, currency: str) -> Decimal:
    """The amount as a Decimal with the currency's exponent; AmountError naming the problem."""
    try:
        places = exponent(currency)
    except MoneyError as exc:
        raise AmountError(str(exc)) from None
    if isinstance(value, bool) or not isinstance(value, int | Decimal | str):
        raise AmountError('must be a decimal number, as a JSON number or a string like "10.50"')
    if isinstance(value, str):
        if not _TEXT.fullmatch(value):
            raise AmountError(f"{value[:30]!r} is not an amount like 10.50")
        value = Decimal(value)
    amount = Decimal(value)
    if not amount.is_finite():
        raise AmountError("must be a finite number")
    if amount < 0:
        raise AmountError("must not be negative")
    try:
        exact = amount.quantize(Decimal(1).scaleb(-places))
    except InvalidOperation:
        raise AmountError("is too large") from None
    if exact != amount:
        raise AmountError(
            f"{currency} amounts have {places} decimal places"
            if places
            else f"{currency} amounts have no decimals"
        )
    if exact >= Decimal(10) ** 12:
        raise AmountError("is too large")
    return exact


def format_amount(amount: Decimal, currency: str) -> str:
    """The amount as the gateway writes it: "10.50" (JPY "1000")."""
    return f"{amount:.{exponent(currency)}f}"


def smallest(currency: str) -> Decimal:
    """The smallest amount of the currency: 0.01 EUR, 1 JPY."""
    return Decimal(1).scaleb(-exponent(currency))


def answer_amount(value: object) -> Decimal:
    """An amount as the gateway's answers carry it: a string of at most 13 digits before the
    point and 4 after ("10.50"). Anything else (a float, an exponent, a huge number, a
    negative one) is no amount: AmountError. Only bounded text is ever turned into a Decimal,
    so an answer cannot make the desk print or hold an unbounded number."""
    if not isinstance(value, str) or not _ANSWER.fullmatch(value):
        shown = repr(value)[:40] if isinstance(value, str) else type(value).__name__
        raise AmountError(
            f'{shown} is not an amount like "10.50" (at most 13 digits before the point '
            "and 4 after)"
        )
    return Decimal(value)


def answer_percent(value: object) -> Decimal:
    """A tax percent in an answer: "21.00", from 0 to 100 with at most 2 decimals."""
    if not isinstance(value, str) or not _PERCENT.fullmatch(value) or Decimal(value) > 100:
        shown = repr(value)[:40] if isinstance(value, str) else type(value).__name__
        raise AmountError(f'{shown} is not a percent like "21.00" (0 to 100, 2 decimals)')
    return Decimal(value)
