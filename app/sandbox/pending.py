"""A prepared change (the sandbox's all-or-nothing step) and the timestamps both services
write with whole seconds."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Pending(Generic[T]):
    """A prepared change: its result, and the commit that applies it."""

    value: T
    commit: Callable[[], None]


def iso_seconds(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
