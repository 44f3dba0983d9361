"""The go-to box without its widgets: what a pasted or typed text is (an IBAN, an e-mail, or
an identifier to look for: a request or error ID, an order or a client), and the recent
look-ups offered first."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

IBAN_SHAPE = re.compile(r"[A-Z]{2}[0-9]{2}[A-Z0-9]{10,30}")
EMAIL_SHAPE = re.compile(r"[^@\s\"\\]+@[^@\s\"\\]+\.[^@\s\"\\]+")
ID_SHAPE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")
RECENT = 10  # look-ups remembered
TEXT_MAX = 200  # a longer text is no look-up (a pasted page)

Kind = Literal["iban", "email", "id"]


@dataclass(frozen=True)
class Target:
    kind: Kind
    value: str  # the IBAN without spaces, upper case; the e-mail in lower case; the id


def target_of(text: str) -> Target | str:
    """What the text is, or why it cannot be looked up (in the user's words)."""
    typed = text.strip()
    if not typed:
        return "Type or paste an IBAN, an e-mail, an order or client ID, or a request ID"
    if len(typed) > TEXT_MAX:
        return f"At most {TEXT_MAX} characters ({len(typed)} now)"
    compact = "".join(typed.split()).upper()
    if IBAN_SHAPE.fullmatch(compact):
        return Target("iban", compact)
    if "@" in typed:
        if not EMAIL_SHAPE.fullmatch(typed):
            return f"{typed[:60]!r} is not an e-mail address like name@example.com"
        return Target("email", typed.lower())
    if not ID_SHAPE.fullmatch(typed):
        return f"{typed[:60]!r} is no IBAN, e-mail or ID: letters, digits and - . _ : only"
    return Target("id", typed)


def remembered(recent: list[str], text: str) -> list[str]:
    """The recent look-ups with this one first (once), at most RECENT."""
    typed = text.strip()
    return [typed, *(each for each in recent if each != typed)][:RECENT]
