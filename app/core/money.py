"""Money in integer minor units, with each currency's ISO 4217 exponent.

Amounts never pass through float: text is parsed with Decimal and scaled exactly.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from functools import cache


@cache
def _exponents() -> dict[str, int]:
    """ISO 4217 minor-unit exponents of every active code (EUR 2, JPY 0, KWD 3). Codes without a
    minor unit (funds, precious metals, testing) are left out: not money we move. Loaded on
    first use, not at start-up."""
    import iso4217

    return {
        currency.code: currency.exponent
        for currency in iso4217.Currency
        if currency.exponent is not None
    }


class MoneyError(ValueError):
    """An amount or currency that cannot be used; the message says why."""


def is_currency(code: str) -> bool:
    return code in _exponents()


def exponent(currency: str) -> int:
    """The number of decimal places of the currency's minor unit (EUR 2, JPY 0, KWD 3)."""
    if not is_currency(currency):
        raise MoneyError(f"unknown currency {currency!r}: use an ISO 4217 code such as EUR")
    return _exponents()[currency]


def to_minor(text: str, currency: str) -> int:
    """Parse an amount in major units ("1234.56", "1 234,56") into minor units."""
    places = exponent(currency)
    cleaned = text.strip().replace(" ", "").replace("\u00a0", "")
    if "," in cleaned and "." not in cleaned:
        cleaned = cleaned.replace(",", ".")
    try:
        value = Decimal(cleaned)
    except InvalidOperation:
        raise MoneyError(f"{text!r} is not an amount") from None
    if not value.is_finite():
        raise MoneyError(f"{text!r} is not an amount")
    scaled = value.scaleb(places)
    if scaled != scaled.to_integral_value():
        raise MoneyError(f"{currency} amounts have at most {places} decimal places")
    return int(scaled)


def format_minor(amount: int, currency: str, *, with_code: bool = True) -> str:
    """Minor units as major-unit text: 123456 EUR -> "1,234.56 EUR"."""
    places = exponent(currency)
    sign = "-" if amount < 0 else ""
    whole, fraction = divmod(abs(amount), 10**places)
    text = f"{sign}{whole:,}"
    if places:
        text += f".{fraction:0{places}d}"
    return f"{text} {currency}" if with_code else text


def minor_to_decimal(amount: int, currency: str) -> Decimal:
    return Decimal(amount).scaleb(-exponent(currency))


def plain_decimal(amount: int, currency: str) -> str:
    """Minor units as a plain decimal a spreadsheet reads as a number: 123456 EUR -> "1234.56",
    -5 JPY -> "-5" (no thousands separators, no code). Unknown currencies keep minor units."""
    try:
        places = exponent(currency)
    except MoneyError:
        return str(amount)
    return f"{Decimal(amount).scaleb(-places):.{places}f}"
