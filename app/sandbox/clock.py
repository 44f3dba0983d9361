"""The sandbox's time: a clock that can be moved forward, and a scheduler that runs
time-driven changes (settlements, reviews, expiries, deliveries) when their time comes, on
the sandbox's own loop, whether or not a request arrives.

Tests freeze the clock and move it with the control call ``POST /_sandbox/clock``: the answer
comes once every change that fell due has run, so no test sleeps to wait for time.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import heapq
import itertools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

log = logging.getLogger("partner_desk.sandbox")

Job = Callable[[dt.datetime], None]  # called with the moment it was due


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class Clock:
    """Real time (or, frozen, a fixed moment) plus how far the clock was moved forward."""

    def __init__(self, *, frozen_at: dt.datetime | None = None) -> None:
        self._frozen_at = frozen_at
        self._offset = dt.timedelta(0)

    @property
    def frozen(self) -> bool:
        return self._frozen_at is not None

    def now(self) -> dt.datetime:
        base = self._frozen_at if self._frozen_at is not None else utc_now()
        return base + self._offset

    def advance(self, delta: dt.timedelta) -> None:
        if delta < dt.timedelta(0):
            raise ValueError("the clock only moves forward")
        self._offset += delta


@dataclass(order=True)
class _Entry:
    due: dt.datetime
    order: int
    job: Job = field(compare=False)
    name: str = field(compare=False)


class Scheduler:
    """Jobs due at a moment of the clock, run in the order they fall due."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._heap: list[_Entry] = []
        self._order = itertools.count()
        self._wake: asyncio.Event | None = None

    def at(self, due: dt.datetime, job: Job, name: str = "job") -> None:
        heapq.heappush(self._heap, _Entry(due, next(self._order), job, name))
        if self._wake is not None:
            self._wake.set()  # the runner may be sleeping past this job's time

    def run_due(self) -> int:
        """Run every job whose time has come; a job that fails is logged and dropped (it is
        all-or-nothing itself, so it leaves nothing half done)."""
        ran = 0
        now = self.clock.now()
        while self._heap and self._heap[0].due <= now:
            entry = heapq.heappop(self._heap)
            try:
                entry.job(entry.due)
            except Exception:
                log.exception("sandbox job %s failed", entry.name)
            ran += 1
        return ran

    def next_due(self) -> dt.datetime | None:
        return self._heap[0].due if self._heap else None

    def __len__(self) -> int:
        return len(self._heap)

    async def run(self, longest_sleep: float = 1.0) -> None:
        """Run jobs as they fall due, until cancelled; wakes early when a job is added."""
        self._wake = asyncio.Event()
        try:
            while True:
                self.run_due()
                due = self.next_due()
                pause = longest_sleep
                if due is not None and not self.clock.frozen:
                    pause = min(pause, max((due - self.clock.now()).total_seconds(), 0.0))
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), pause)
        finally:
            self._wake = None
