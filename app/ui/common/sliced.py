"""Long work on the GUI thread in slices, between which the window keeps painting.

The work is a generator that yields every few thousand rows; it runs until its slice is spent
(`slice_budget`), then the event loop gets its turn, then the next slice runs. Work that fits
in one slice is done before ``start`` returns, so small tables answer at once. Work waiting on
something outside (a forked copy sorting) yields `WAITING`: it is asked again a few
milliseconds later, not at once, so that the GUI thread does not spin meanwhile. Work that
raises is ended, logged and said through its ``failed``: never left running for ever.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Generator
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from app.core.gc_pause import gc_paused
from app.ui.common.slice_budget import Slice, current_budget

log = logging.getLogger("partner_desk.ui")

WAITING = object()  # what work yields while it waits on something outside
WAIT_MS = 4  # how long it is left waiting before it is asked again


class SlicedWork(QObject):
    """One piece of work at a time: starting another stops the one running."""

    started = Signal(str)  # the work did not fit in one slice: what it is doing
    finished = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._work: Generator[object, None, Any] | None = None
        self._done: Callable[[Any], None] | None = None
        self._failed: Callable[[Exception], None] | None = None
        self._what = ""
        self._slice: Slice | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._step)

    @property
    def running(self) -> bool:
        return self._work is not None

    def start(
        self,
        what: str,
        work: Generator[object, None, Any],
        done: Callable[[Any], None],
        failed: Callable[[Exception], None],
    ) -> None:
        """Run ``work``; ``done`` gets what it returns, or ``failed`` what it raised."""
        self.stop()
        self._work, self._done, self._failed, self._what = work, done, failed, what
        self._slice = current_budget().slice()  # the budget of when the work began
        self._step(first=True)

    def stop(self) -> None:
        self._timer.stop()
        work, self._work, self._done, self._failed = self._work, None, None, None
        if work is not None:
            work.close()

    def _step(self, first: bool = False) -> None:
        work, this_slice = self._work, self._slice
        if work is None or this_slice is None:
            return
        this_slice.renew()
        try:
            with gc_paused():  # a slice's many small objects: see app.core.gc_pause
                waiting = next(work) is WAITING
                while not waiting and not this_slice.spent():
                    waiting = next(work) is WAITING
        except StopIteration as stop:
            self._end(self._done, stop.value)
            return
        except Exception as exc:  # a fault of the work's own: it ends, the window goes on
            log.exception("%s failed", self._what.rstrip("…"))
            # its traceback holds the work's frames, and what they made: out of memory, the
            # recovery needs that memory back
            self._end(self._failed, exc.with_traceback(None))
            return
        if first:
            self.started.emit(self._what)
        self._timer.start(WAIT_MS if waiting else 0)

    def _end(self, then: Callable[[Any], None] | None, outcome: Any) -> None:
        self._work = self._done = self._failed = None
        if then is not None:
            then(outcome)  # may start the next piece of work
        if self._work is None:
            self.finished.emit()
