"""Identifiers the desk makes: UUIDv7 (RFC 9562), time-ordered, for transfer ids and events;
and random ids that the masking of card numbers leaves whole."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable

from app.core.gateway.cards import mask_card_numbers


def unmasked(make: Callable[[], str]) -> str:
    """``make()``'s id, made again while the masking of card numbers would hide part of it:
    random hex holds 13 or more digits in a row that pass the Luhn check now and then (one
    32-digit id in about 4,500), and such an id came masked in a message telling a person
    to quote it, in the request log and in every log line."""
    while True:
        made = make()
        if mask_card_numbers(made) == made:
            return made


def uuid7(now_ms: int | None = None) -> uuid.UUID:
    """A version 7 UUID: 48 bits of Unix milliseconds, then 74 random bits."""
    millis = time.time_ns() // 1_000_000 if now_ms is None else now_ms
    if not 0 <= millis < 1 << 48:
        raise ValueError("the time does not fit 48 bits of milliseconds")
    random_bits = int.from_bytes(os.urandom(10), "big")
    value = (millis << 80) | random_bits
    value &= ~(0xF << 76)
    value |= 0x7 << 76  # version 7
    value &= ~(0x3 << 62)
    value |= 0x2 << 62  # the RFC 4122 variant
    return uuid.UUID(int=value)


class MonotonicUuid7:
    """UUIDv7s that sort in the order they were made, even within one millisecond (RFC 9562,
    method 2: a later id in the same or an earlier millisecond is the last one plus one in its
    62 random low bits)."""

    _LOW = (1 << 62) - 1

    def __init__(self) -> None:
        self._last = 0

    def next(self, now_ms: int | None = None) -> uuid.UUID:
        value = uuid7(now_ms).int
        if value <= self._last and (self._last & self._LOW) != self._LOW:
            value = self._last + 1
        self._last = value
        return uuid.UUID(int=value)
