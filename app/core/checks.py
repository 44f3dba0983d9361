"""Checks of typed values, as the user reads them: each returns what is wrong in plain words
(None when the value is fine). The forms check with them as the user types, and the service
layer's field types (app.api.fields) refuse with the same words, so a form and the models
agree on the rule and on how it is said."""

from __future__ import annotations

import datetime as dt
import ipaddress
import re
from collections.abc import Callable

from app.core.countries import is_country
from app.core.limits import EMAIL_PATTERN, PHONE_PATTERN, Bound

Check = Callable[[str], str | None]

_EMAIL = re.compile(EMAIL_PATTERN)
_PHONE = re.compile(PHONE_PATTERN)
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def length(text: str, bound: Bound, *, required: bool) -> str | None:
    """Required, or too long; a limit is shown, never applied by cutting the text."""
    if not text:
        return "Required" if required else None
    if len(text) > bound.high:
        return f"At most {bound.high} characters ({len(text)} now)"
    if len(text) < bound.low:
        return f"At least {bound.low} characters"
    return None


def email(text: str) -> str | None:
    if not _EMAIL.fullmatch(text):
        return "Enter an e-mail address like name@example.com"
    return None


def phone(text: str) -> str | None:
    if not _PHONE.fullmatch(text):
        return "Enter + and the country code first: +37061234567"
    return None


def country(text: str) -> str | None:
    code = text.upper()
    if len(code) != 2 or not code.isascii() or not code.isalpha():
        return "Enter a two-letter country code such as LT"
    if not is_country(code):
        return f"{code} is not a country code: use one such as LT"
    return None


def date(text: str) -> str | None:
    if not _DATE.fullmatch(text):
        return "Enter a date as yyyy-mm-dd, like 1988-04-12"
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return f"{text} is not a day of the calendar"
    return None


def ipv4(text: str) -> str | None:
    try:
        ipaddress.IPv4Address(text)
    except ValueError:
        return "Enter an IPv4 address like 192.0.2.10"
    return None
