"""Card numbers: the Luhn check, the brand, and masking — the full number is never kept, logged
or shown, only its last four digits."""

from __future__ import annotations

import re

# 13 to 19 digits, maybe grouped by spaces, dashes or dots (a few of them, or as a URL writes
# them: + and %20), not part of a longer word or number: shaped like a card number (an IBAN's
# digits follow its letters)
CARD_SHAPED = re.compile(
    r"(?<![\dA-Za-z])(?:\d(?:[ .\t+-]|%20|%2[dD]){0,3}){12,18}\d(?![\dA-Za-z])"
)


def ascii_digits(text: str) -> bool:
    """Only the digits 0-9 (str.isdigit takes "４" and "٤" too)."""
    return text.isascii() and text.isdigit()


def digits(text: str) -> str:
    return "".join(ch for ch in text if ch.isdecimal())


def luhn(number: str) -> bool:
    if not ascii_digits(number) or not 13 <= len(number) <= 19:
        return False
    total = 0
    for position, char in enumerate(reversed(number)):
        value = int(char)
        if position % 2 == 1:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


def brand(number: str) -> str:
    """visa, mastercard, amex or other."""
    if number.startswith("4"):
        return "visa"
    if number[:2] in ("34", "37"):
        return "amex"
    if number[:2] in ("51", "52", "53", "54", "55") or "2221" <= number[:4] <= "2720":
        return "mastercard"
    return "other"


def masked(number: str) -> str:
    """A card number as it may be shown: its last four digits only."""
    return f"•••• {digits(number)[-4:]}"


# an IBAN, written whole or in groups of four: its digits are not a card's
_IBAN_SHAPED = (
    r"(?<![0-9A-Za-z])[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?(?![0-9A-Za-z])"
)
_URL_SEPARATOR = re.compile("%2[0dD]")
_SCAN = re.compile(f"(?P<iban>{_IBAN_SHAPED})|(?P<card>{CARD_SHAPED.pattern})")


def mask_card_numbers(text: str) -> str:
    """Text with everything shaped like a card number masked to its last four digits, whether
    or not it passes the Luhn check (a mistyped number is still somebody's card). IBANs are
    left as they are."""

    def mask(match: re.Match[str]) -> str:
        if match.group("iban"):
            return match.group()
        found = digits(_URL_SEPARATOR.sub("", match.group()))
        return "*" * (len(found) - 4) + found[-4:]

    return _SCAN.sub(mask, text)
