"""Bulk work with the cyclic garbage collector paused.

Loading a million statement records allocates and frees millions of small objects; every so
often that wakes a full collection, which walks every object of the app (Qt's wrappers, the
models, the modules) for 50 ms or more: a visible stall, found no garbage. The records and
their columns hold no reference cycles and are freed by reference counting, so each step of the
work (a piece of a statement, a slice of a sort) pauses the collector and resumes it when
done — never across an await or a return to the event loop, so no other code runs paused.
Pauses nest; the collector resumes only if it ran before the first.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_pauses = 0
_was_enabled = False


@contextmanager
def gc_paused() -> Iterator[None]:
    global _pauses, _was_enabled
    if _pauses == 0:
        _was_enabled = gc.isenabled()
        gc.disable()
    _pauses += 1
    try:
        yield
    finally:
        _pauses -= 1
        if _pauses == 0 and _was_enabled:
            gc.enable()
