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


_starting = False


def pause_for_start() -> None:
    """The window's start makes some 300,000 objects that live as long as it does (modules,
    classes, Qt's wrappers) and frees almost none in cycles: woken every 700 allocations, the
    collector walked them over and over, 10% of the time to the first page. Paused until
    ``started()``."""
    global _starting
    if gc.isenabled() and _pauses == 0:
        gc.disable()
        _starting = True


def started() -> None:
    """The start is over: its few cycles are collected, what it made is moved out of the
    collector's reach for good (later full collections, each a stall of the GUI, no longer
    walk it) and the collector resumes."""
    global _starting
    if _starting:
        _starting = False
        gc.collect()
        gc.freeze()
        gc.enable()
