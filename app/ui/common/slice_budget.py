"""How much long work the GUI thread does between two paints: the one budget that sorting,
searching, revealing a loading statement and writing an export all take their slices from.

In the app a slice is a span of time, well under a frame. Tests that check that work is
sliced set a budget of steps instead (``use_budget``): then where a slice ends does not
depend on how fast the machine is."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class SliceBudget:
    """A slice ends once ``seconds`` have passed or, when ``steps`` is set, after that many
    steps whatever the time. ``reveal_seconds``: how often a load shows the rows that arrived
    (with ``steps``, every ``steps`` pieces)."""

    seconds: float = 0.012  # well under a frame of 16 ms: scrolling stays smooth
    steps: int | None = None
    # each time a loading statement's rows are shown, the table lays out and repaints what
    # it shows (about 7 ms for a window of rows): four times a second took a twentieth of
    # a million-row load's time, once a second a fiftieth
    reveal_seconds: float = 1.0

    def __post_init__(self) -> None:
        if self.steps is not None and self.steps < 1:
            raise ValueError("a slice is at least one step")

    def slice(self) -> Slice:
        return Slice(self)

    def reveal_pacer(self) -> Slice:
        """When a load tells the view of the rows that arrived, and an export its count."""
        return Slice(SliceBudget(self.reveal_seconds, self.steps))


class Slice:
    """One slice of a budget: ``spent()`` after each step says whether the slice is over."""

    __slots__ = ("_deadline", "_left", "_seconds", "_steps")

    def __init__(self, budget: SliceBudget) -> None:
        self._seconds = budget.seconds
        self._steps = budget.steps
        self.renew()

    def renew(self) -> None:
        """A new slice of the same budget."""
        self._deadline = time.perf_counter() + self._seconds
        self._left = self._steps or 0

    def spent(self) -> bool:
        if self._steps is not None:
            self._left -= 1
            return self._left <= 0
        return time.perf_counter() >= self._deadline


_current = SliceBudget()


def current_budget() -> SliceBudget:
    return _current


@contextlib.contextmanager
def use_budget(budget: SliceBudget) -> Iterator[SliceBudget]:
    """Work started inside takes its slices from ``budget`` (tests)."""
    global _current
    previous, _current = _current, budget
    try:
        yield budget
    finally:
        _current = previous
