"""JSON read strictly, as both servers read what they are sent: a key given twice in one
object, NaN and Infinity are refused (two readers could take such a text two ways)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any


class NotStrictJson(ValueError):
    """Text json.loads would take that JSON does not allow, or cannot mean one thing."""


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:  # which one counts would be a guess: refused
            raise NotStrictJson(f"the key {key[:40]!r} appears twice in one object")
        found[key] = value
    return found


def _no_constant(name: str) -> Any:
    raise NotStrictJson(f"{name} is not a JSON number")


def loads(text: str, *, parse_float: Callable[[str], Any]) -> Any:
    """The value of ``text``; NotStrictJson for what JSON does not allow, ValueError (and
    RecursionError for a deep nesting) for what is not JSON at all."""
    return json.loads(
        text,
        parse_float=parse_float,
        parse_constant=_no_constant,
        object_pairs_hook=_no_duplicate_keys,
    )
