"""Money in integer minor units, with each currency's ISO 4217 exponent.

Amounts never pass through float: text is parsed with Decimal and scaled exactly.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal
from functools import cache

from app.core.resources import package_file


@cache
def _exponents() -> dict[str, int]:
    """ISO 4217 minor-unit exponents of every active code (EUR 2, JPY 0, KWD 3). Codes without a
    minor unit (funds, precious metals, testing) are left out: not money we move. Loaded on
    first use, not at start-up."""
    try:
        return _exponents_in_table()
    except (OSError, ValueError, SyntaxError):  # the table laid out otherwise (a ParseError)
        import iso4217

        return {
            currency.code: currency.exponent
            for currency in iso4217.Currency
            if currency.exponent is not None
        }


def _exponents_in_table() -> dict[str, int]:
    """The exponents read from iso4217's table as iso4217 reads it (a code's first entry with
    a number; "N.A." for no minor unit), without importing iso4217: its import builds an enum
    of every code, 35 ms of the GUI thread when a statement's first rows are painted."""
    from xml.etree import ElementTree

    # the installed package's own table, as iso4217 itself parses it
    table = ElementTree.fromstring(package_file("iso4217", "table.xml"))  # noqa: S314
    exponents: dict[str, int] = {}
    seen: set[str] = set()
    for entry in table.iterfind("CcyTbl/CcyNtry"):
        code, number, minor = (entry.findtext(tag) for tag in ("Ccy", "CcyNbr", "CcyMnrUnts"))
        if code is None or (code := code.strip()) in seen:
            continue
        seen.add(code)
        if number is not None and minor is not None and (minor := minor.strip()).isdigit():
            exponents[code] = int(minor)
    if not exponents:
        raise ValueError("no currency in the table")
    return exponents


class MoneyError(ValueError):
    """An amount or currency that cannot be used; the message says why."""


def is_currency(code: str) -> bool:
    return code in _exponents()


def exponent(currency: str) -> int:
    """The number of decimal places of the currency's minor unit (EUR 2, JPY 0, KWD 3)."""
    if not is_currency(currency):
        raise MoneyError(f"unknown currency {currency!r}: use an ISO 4217 code such as EUR")
    return _exponents()[currency]


_SPACES = str.maketrans("", "", " \u00a0\u202f\u2009")  # spaces that group digits
_GROUPED = re.compile(r"[0-9]{1,3}([.,'][0-9]{3})+")
_DIGITS = re.compile(r"[0-9]+")


def to_minor(text: str, currency: str) -> int:
    """An amount typed in major units, in the currency's own way — "1234.50", "1 234,50",
    "1,234.50", "1.234,50", JPY "1 000" — as minor units. The last "." or "," before one or
    more trailing digits is the decimal mark when the other mark groups the digits or it is
    the only one; spaces group digits. Never through float."""
    places = exponent(currency)
    cleaned = text.strip().translate(_SPACES)
    if not cleaned:
        raise MoneyError("Enter an amount")
    if cleaned.startswith("-"):
        raise MoneyError("The amount must be positive")
    whole, fraction = _split_decimal(cleaned, places)
    if not _DIGITS.fullmatch(whole) and not _GROUPED.fullmatch(whole):
        raise MoneyError(f"{text.strip()[:40]!r} is not an amount: use digits, like 1234.50")
    if fraction and not _DIGITS.fullmatch(fraction):
        raise MoneyError(f"{text.strip()[:40]!r} is not an amount: use digits, like 1234.50")
    if len(fraction) > places:
        if places == 0:
            raise MoneyError(f"{currency} amounts have no decimals")
        raise MoneyError(f"{currency} amounts have at most {places} decimal places")
    digits = "".join(ch for ch in whole if ch.isdigit())
    if len(digits) > 15:
        raise MoneyError("The amount is too large")
    return int(Decimal(f"{digits}.{fraction or '0'}").scaleb(places))


def _split_decimal(cleaned: str, places: int) -> tuple[str, str]:
    """The whole part and the fraction; which mark is decimal follows to_minor's rule."""
    marks = [i for i, ch in enumerate(cleaned) if ch in ".,"]
    if not marks:
        return cleaned, ""
    last = marks[-1]
    kinds = {cleaned[i] for i in marks}
    if len(kinds) == 1 and len(marks) > 1:
        return cleaned, ""  # "1,234,567": all group marks
    if len(marks) == 1 and _GROUPED.fullmatch(cleaned) and places != 3:
        # "1,234" or "1.234": three decimals cannot be meant unless the currency has them
        return cleaned, ""
    return cleaned[:last], cleaned[last + 1 :]


def format_minor(amount: int, currency: str, *, with_code: bool = True) -> str:
    """Minor units as major-unit text: 123456 EUR -> "1,234.56 EUR"."""
    places = exponent(currency)
    sign = "-" if amount < 0 else ""
    whole, fraction = divmod(abs(amount), 10**places)
    text = f"{sign}{whole:,}"
    if places:
        text += f".{fraction:0{places}d}"
    return f"{text} {currency}" if with_code else text


def plain_decimal(amount: int, currency: str) -> str:
    """Minor units as a plain decimal a spreadsheet reads as a number: 123456 EUR -> "1234.56",
    -5 JPY -> "-5" (no thousands separators, no code). Unknown currencies keep minor units."""
    try:
        places = exponent(currency)
    except MoneyError:
        return str(amount)
    return decimal_text(amount, places)


def decimal_text(amount: int, places: int) -> str:
    """Minor units with ``places`` decimals as a plain decimal: (-5, 2) -> "-0.05". Integer
    arithmetic: exact, and a million rows export in seconds, not tens of seconds."""
    return decimal_texts([amount], places)[0]


def decimal_texts(amounts: Iterable[int], places: int) -> list[str]:
    """`decimal_text` of many amounts of one currency at once (a column of an export)."""
    if not places:
        return [str(amount) for amount in amounts]
    scale = 10**places
    positive = f"%d.%0{places}d"  # %-formatting: a third less time than an f-string here
    negative = "-" + positive
    return [
        negative % divmod(-amount, scale) if amount < 0 else positive % divmod(amount, scale)
        for amount in amounts
    ]
