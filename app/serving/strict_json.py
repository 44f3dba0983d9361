"""JSON read strictly, as both servers read what they are sent: a key given twice in one
object, NaN and Infinity are refused (two readers could take such a text two ways)."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any


class NotStrictJson(ValueError):
    """Text json.loads would take that JSON does not allow, or cannot mean one thing."""


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)  # in C; the pairs are looked through only when a key came twice
    if len(found) == len(pairs):
        return found
    seen: set[str] = set()
    for key, _value in pairs:
        if key in seen:  # which one counts would be a guess: refused
            raise NotStrictJson(f"the key {key[:40]!r} appears twice in one object")
        seen.add(key)
    raise AssertionError("unreachable")  # pragma: no cover


def _no_constant(name: str) -> Any:
    raise NotStrictJson(f"{name} is not a JSON number")


@functools.lru_cache(maxsize=8)  # a few ways at most; bounded all the same
def _decoder(parse_float: Callable[[str], Any]) -> json.JSONDecoder:
    """One decoder for each way of reading numbers (json.loads makes one a call)."""
    return json.JSONDecoder(
        parse_float=parse_float, parse_constant=_no_constant, object_pairs_hook=_no_duplicate_keys
    )


def loads(text: str, *, parse_float: Callable[[str], Any]) -> Any:
    """The value of ``text``; NotStrictJson for what JSON does not allow, ValueError (and
    RecursionError for a deep nesting) for what is not JSON at all."""
    if text.startswith("\ufeff"):  # as json.loads words it
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    return _decoder(parse_float).decode(text)
