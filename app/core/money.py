"""Money in integer minor units, with each currency's ISO 4217 exponent.

Amounts never pass through float: text is parsed with Decimal and scaled exactly.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from functools import cache

# ISO 4217 minor-unit exponents that differ from the usual 2; every other active code has 2.
_EXPONENT_EXCEPTIONS: dict[str, int] = {
    **dict.fromkeys(
        [
            "BIF",
            "CLP",
            "DJF",
            "GNF",
            "ISK",
            "JPY",
            "KMF",
            "KRW",
            "PYG",
            "RWF",
            "UGX",
            "UYI",
            "VND",
            "VUV",
            "XAF",
            "XOF",
            "XPF",
        ],
        0,
    ),
    **dict.fromkeys(["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"], 3),
    "CLF": 4,
    "UYW": 4,
}
# Codes without a minor unit at all (funds, precious metals, testing): not money we move.
_NO_MINOR_UNIT = frozenset(
    ["XAG", "XAU", "XBA", "XBB", "XBC", "XBD", "XDR", "XPD", "XPT", "XSU", "XTS", "XUA", "XXX"]
)


class MoneyError(ValueError):
    """An amount or currency that cannot be used; the message says why."""


def is_currency(code: str) -> bool:
    return (
        len(code) == 3
        and code.isascii()
        and code.isupper()
        and code not in _NO_MINOR_UNIT
        and code in _iso_currencies()
    )


@cache
def _iso_currencies() -> frozenset[str]:
    # loaded on first use, not at start-up
    import pycountry

    return frozenset(str(currency.alpha_3) for currency in pycountry.currencies)


def exponent(currency: str) -> int:
    """The number of decimal places of the currency's minor unit (EUR 2, JPY 0, KWD 3)."""
    if not is_currency(currency):
        raise MoneyError(f"unknown currency {currency!r}: use an ISO 4217 code such as EUR")
    return _EXPONENT_EXCEPTIONS.get(currency, 2)


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
