"""Card numbers: the Luhn check, the brand, and masking — the full number is never kept, logged
or shown, only its last four digits."""

from __future__ import annotations

import re


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
# a UUID (8-4-4-4-12, or its 32 hex digits alone, as the desk's x-request-ids), digits only
# or not: never a card (14 digits of a random id passing the Luhn check were masked in a log)
_UUID_SHAPED = (
    r"(?<![0-9A-Fa-f])[0-9A-Fa-f]{8}(?:(?:-[0-9A-Fa-f]{4}){3}-|[0-9A-Fa-f]{12})[0-9A-Fa-f]{12}"
    r"(?![0-9A-Fa-f])"
)
# what may stand between a card number's groups: spaces of any width (a no-break space, an
# ideographic one) but line breaks, invisible characters (zero-width, a soft hyphen), dots,
# hyphens and dashes, slashes, underscores, and as a URL writes them, + and %20, %2D, %2F
_SEPARATORS = (
    " \t\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u202f\u205f\u3000\u00ad\u200b\u200c\u200d\u2060\ufeff"
    ".\u00b7\uff0e+_/\uff0f-\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"
)
_SEPARATOR = f"(?:[{re.escape(_SEPARATORS)}]|%20|%2[dDfF]){{1,3}}"
_KEPT = re.compile(f"(?P<iban>{_IBAN_SHAPED})|{_UUID_SHAPED}")
# digits in groups: a run of them, read a group at a time
_RUN = re.compile(f"\\d+(?:{_SEPARATOR}\\d+)*")
_GROUP = re.compile(r"%2[0dDfF]|(\d+)")  # \d: any script's digits, "４" as "4"


def mask_card_numbers(text: str) -> str:
    """Text with every card number in it masked to its last four digits. A card number is 13
    to 19 digits that pass the Luhn check, written whole or in groups, and not part of a
    longer run of digits (a group of 20 digits is no card, nor are some of its digits);
    letters around it do not protect it. IBANs and UUIDs are never cards: they are set
    aside first, so that no run of digits reaches into them."""
    pieces, written = [], 0
    for kept in _KEPT.finditer(text):
        if kept.group("iban") and not _iban_checks(kept.group()):
            continue  # shaped like an IBAN, but none: its digits are looked at as any others
        pieces += [_RUN.sub(_masked_run, text[written : kept.start()]), kept.group()]
        written = kept.end()
    pieces.append(_RUN.sub(_masked_run, text[written:]))
    return "".join(pieces)


def number_cut_off(text: str) -> str:
    """The text without the digits and separators it ends in: a quote cut inside a card
    number shows none of it."""
    end = len(text)
    while end and (
        text[end - 1].isdecimal() or text[end - 1] in _SEPARATORS or text[end - 1] == "%"
    ):
        end -= 1
    return text[:end]


def _iban_checks(text: str) -> bool:
    """The IBAN's check digits fit (ISO 13616, mod 97): letters before a card number do not
    make it an IBAN."""
    compact = "".join(text.split()).upper()
    moved = compact[4:] + compact[:4]
    return int("".join(str(int(ch, 36)) for ch in moved)) % 97 == 1


def _masked_run(match: re.Match[str]) -> str:
    return _mask_run(match.group())


def _ascii(group: str) -> str:
    """A group of digits of any script (full-width "４", Arabic-Indic "٤") in 0-9."""
    return group if group.isascii() else "".join(str(int(digit)) for digit in group)


def _mask_run(run: str) -> str:
    """A run of digit groups with each card number in it masked: the longest whole groups,
    from the left, that make 13 to 19 digits passing the Luhn check."""
    groups = [(m.start(1), m.end(1)) for m in _GROUP.finditer(run) if m.group(1)]
    pieces, written, index = [], 0, 0
    while index < len(groups):
        number, found = "", -1
        for last in range(index, len(groups)):
            number += _ascii(run[groups[last][0] : groups[last][1]])
            if len(number) > 19:
                break
            if len(number) >= 13 and luhn(number):
                found = last
        if found < 0:
            index += 1
            continue
        start, end = groups[index][0], groups[found][1]
        digits_found = "".join(run[a:b] for a, b in groups[index : found + 1])
        pieces += [run[written:start], "*" * (len(digits_found) - 4) + digits_found[-4:]]
        written, index = end, found + 1
    return "".join([*pieces, run[written:]])
