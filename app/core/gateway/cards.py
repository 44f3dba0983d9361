"""Card numbers: the Luhn check, the brand, and masking — the full number is never kept, logged
or shown, only its last four digits."""

from __future__ import annotations

import re
from bisect import bisect_left
from itertools import accumulate


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


# an IBAN, written whole or in groups of four (apart by a space, no-break or not): its digits
# are not a card's
_IBAN_SHAPED = (
    r"(?<![0-9A-Za-z])[A-Z]{2}[0-9]{2}(?:[ \u00a0\u2009\u202f]?[A-Z0-9]{4}){2,7}"
    r"(?:[ \u00a0\u2009\u202f]?[A-Z0-9]{1,3})?(?![0-9A-Za-z])"
)
# a UUID (8-4-4-4-12, or its 32 hex digits alone, as the desk's x-request-ids), digits only
# or not: never a card (14 digits of a random id passing the Luhn check were masked in a log)
_UUID_SHAPED = (
    r"(?<![0-9A-Fa-f])[0-9A-Fa-f]{8}(?:(?:-[0-9A-Fa-f]{4}){3}-|[0-9A-Fa-f]{12})[0-9A-Fa-f]{12}"
    r"(?![0-9A-Fa-f])"
)
# what may stand between a card number's groups, up to three of them: spaces of any width
# (a no-break space, an ideographic one) but line breaks; dots, pluses, underscores,
# slashes, hyphens and dashes, full-width ones too; and as a URL, JSON, Python's repr or
# HTML write them (%20, %C2%A0, \u00a0, \xa0, \/, &nbsp;). Invisible characters (zero-width,
# direction marks, a soft hyphen) may stand there too, any number of them: they show nothing
_VISIBLE_SEPARATORS = (
    " \t\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u202f\u205f\u3000"
    ".\u00b7\u2024\u2027\u30fb\uff0e\uff65+\uff0b_\uff3f/\u2044\u2215\uff0f"
    "-\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2e3a\u2e3b\u301c\u30fc\ufe58\ufe63"
    "\uff0d\uff5e"
)
_INVISIBLE = (
    "\u00ad\u034f\u061c\u180e\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d"
    "\u202e\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff"
)
_SEPARATORS = _VISIBLE_SEPARATORS + _INVISIBLE
_WRITTEN = r"%[0-9A-Fa-f]{2}|\\x[0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4}|&#160;|&#[xX][aA]0;"
_VISIBLE = f"[{re.escape(_VISIBLE_SEPARATORS)}]|{_WRITTEN}|\\\\/|&nbsp;"
_HIDDEN = f"[{re.escape(_INVISIBLE)}]"
# possessive: a long run of invisible characters is read once, never split again and again
_SEPARATOR = f"(?:{_HIDDEN})*+(?:(?:{_VISIBLE})(?:{_HIDDEN})*+){{1,3}}|(?:{_HIDDEN})++"
_KEPT = re.compile(f"(?P<iban>{_IBAN_SHAPED})|{_UUID_SHAPED}")
# digits in groups: a run of them, read a group at a time (what a separator writes in digits,
# %20 or \u00a0, is no group)
_RUN = re.compile(f"\\d+(?:(?:{_SEPARATOR})\\d+)*")
_GROUP = re.compile(f"{_WRITTEN}|(\\d+)")  # \d: any script's digits, "４" as "4"
_DOUBLED = [0, 2, 4, 6, 8, 1, 3, 5, 7, 9]  # a digit doubled, as the Luhn check adds it


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
        if kept.group()[:13].isdigit():
            continue  # 32 hex digits that begin with 13 digits: maybe a card and hex letters
        pieces += [_RUN.sub(_masked_run, text[written : kept.start()]), kept.group()]
        written = kept.end()
    pieces.append(_RUN.sub(_masked_run, text[written:]))
    return "".join(pieces)


def number_cut_off(text: str) -> str:
    """The text without the last digits it ends in (the groups of them that hold 19 digits,
    a card's most): a quote cut inside a card number shows none of it, nor one whose cut
    made it look like an id (a card followed by hex letters, cut after 32 of them, reads as
    a UUID). A list of numbers keeps its others; a word cut is kept."""
    end = len(text)
    while end and (text[end - 1] in _CUT_OFF or text[end - 1].isdecimal()):
        end -= 1
    tail = text[end:]
    groups = [match.span(1) for match in _GROUP.finditer(tail) if match.group(1)]
    if not groups:
        return text
    digits_seen, cut = 0, len(tail)
    for start, stop in reversed(groups):
        digits_seen, cut = digits_seen + stop - start, start
        if digits_seen >= 19:
            break
    return text[: end + cut].rstrip(_SEPARATORS)


# what a number's tail may hold: separators, hex letters, and the letters of the escapes
# that write separators (\u00a0, \xa0, &nbsp;, &#160;, %20)
_CUT_OFF = frozenset(_SEPARATORS + "%\\&#;abcdefABCDEFnpsuxNPSUX")


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
    """A run of digit groups with each card number in it masked: from each group on, the
    longest whole groups that make 13 to 19 digits passing the Luhn check, overlapping ones
    masked as one. Each check takes a
    subtraction of two running sums (one for either parity of the last digit), so a long
    run costs a few steps a group, not a Luhn check of up to 19 digits for each of 19."""
    groups = [match.span(1) for match in _GROUP.finditer(run) if match.group(1)]
    values = list(map(int, "".join(_ascii(run[a:b]) for a, b in groups)))
    # sums[parity][i]: the first i digits added, those at that parity as they are and the
    # others doubled — the Luhn sum of digits a..b-1 is then a difference of two sums
    doubled = [_DOUBLED[value] for value in values]
    even, odd = doubled[:], values[:]
    even[0::2], odd[0::2] = values[0::2], doubled[0::2]
    sums = [list(accumulate(even, initial=0)), list(accumulate(odd, initial=0))]
    ends = list(accumulate(b - a for a, b in groups))  # the digits up to each group's end
    # every window of whole groups that is a card, from any group on: a number just before a
    # card (a time, an amount) made a window that ended inside the card and left its end shown
    spans: list[list[int]] = []
    for index in range(len(groups)):
        first = ends[index - 1] if index else 0
        found = -1
        # the groups that end 13 to 19 digits after this one begins
        for last in range(bisect_left(ends, first + 13, index), len(groups)):
            if ends[last] - first > 19:
                break
            parity = (ends[last] - 1) % 2  # the last digit is added as it is
            if (sums[parity][ends[last]] - sums[parity][first]) % 10 == 0:
                found = last
        if found < 0:
            continue
        if spans and index <= spans[-1][1]:  # overlapping the one before: one masked span
            spans[-1][1] = max(spans[-1][1], found)
        else:
            spans.append([index, found])
    pieces, written = [], 0
    for first_group, last_group in spans:
        start, end = groups[first_group][0], groups[last_group][1]
        digits_found = "".join(run[a:b] for a, b in groups[first_group : last_group + 1])
        pieces += [run[written:start], "*" * (len(digits_found) - 4) + digits_found[-4:]]
        written = end
    return "".join([*pieces, run[written:]])
