"""The go-to box without its widgets: what a pasted or typed text is (an IBAN, an e-mail, a
name, or an identifier to look for: a request or error ID, an order, a client, an account or
a transfer), the clients
it matches best, and the recent look-ups offered first."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

IBAN_SHAPE = re.compile(r"[A-Z]{2}[0-9]{2}[A-Z0-9]{10,30}")
EMAIL_SHAPE = re.compile(r"[^@\s\"\\]+@[^@\s\"\\]+\.[^@\s\"\\]+")
ID_SHAPE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")
NAME_SHAPE = re.compile(r"[^\W\d_]+(?:[ .'-]+[^\W\d_]+)*[.]?")  # letters, words apart
MATCHES = 8  # clients offered as one types
RECENT = 10  # look-ups remembered
TEXT_MAX = 200  # a longer text is no look-up (a pasted page)

Kind = Literal["iban", "email", "id", "name"]


@dataclass(frozen=True)
class Target:
    kind: Kind
    value: str  # the IBAN without spaces, upper case; the e-mail in lower case; the id


def target_of(text: str) -> Target | str:
    """What the text is, or why it cannot be looked up (in the user's words)."""
    typed = text.strip()
    if not typed:
        return "Type or paste an IBAN, an e-mail, a name, an ID, or a request or error ID"
    if len(typed) > TEXT_MAX:
        return f"At most {TEXT_MAX} characters ({len(typed)} now)"
    compact = "".join(typed.split()).upper()
    # a request ID (32 hex digits) can begin like an IBAN, "eb43…": only a length its
    # country's IBANs have, or a text no ID can be (spaces), makes it one
    if IBAN_SHAPE.fullmatch(compact):
        from app.core.iban import iban_length  # the registry: loaded when first needed

        if iban_length(compact[:2]) == len(compact) or not ID_SHAPE.fullmatch(typed):
            return Target("iban", compact)
    if "@" in typed:
        if not EMAIL_SHAPE.fullmatch(typed):
            return f"{typed[:60]!r} is not an e-mail address like name@example.com"
        return Target("email", typed.lower())
    if ID_SHAPE.fullmatch(typed):
        return Target("id", typed)
    if NAME_SHAPE.fullmatch(typed):
        return Target("name", typed)
    return f"{typed[:60]!r} is no IBAN, e-mail, name or ID"


Client = tuple[str, str, str]  # id, name, e-mail


def best_matches(text: str, clients: list[Client], limit: int = MATCHES) -> list[Client]:
    """The clients the text matches, best first, at most ``limit``: the name beginning with
    it, then a word of the name, then the e-mail, then the name or e-mail holding it anywhere
    (any case); the list's order within each."""
    wanted = text.strip().casefold()
    if not wanted:
        return []
    ranked: list[tuple[int, int, Client]] = []
    for position, client in enumerate(clients):
        name, email = client[1].casefold(), client[2].casefold()
        if name.startswith(wanted):
            rank = 0
        elif any(word.startswith(wanted) for word in name.split()):
            rank = 1
        elif email.startswith(wanted):
            rank = 2
        elif wanted in name or wanted in email:
            rank = 3
        else:
            continue
        ranked.append((rank, position, client))
    ranked.sort(key=lambda each: each[:2])
    return [client for _rank, _position, client in ranked[:limit]]


def remembered(recent: list[str], text: str) -> list[str]:
    """The recent look-ups with this one first (once), at most RECENT."""
    typed = text.strip()
    return [typed, *(each for each in recent if each != typed)][:RECENT]
