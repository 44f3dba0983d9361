"""Running coroutines from Qt signal handlers on the qasync loop."""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import asyncio

log = logging.getLogger("partner_desk.ui")

# the tasks waiting for a person to answer a dialog: not at work, as far as idle() goes
_with_the_user: set[asyncio.Task[Any]] = set()
_waiting_for_change: set[asyncio.Future[None]] = set()


@contextlib.contextmanager
def waiting_for_the_user() -> Iterator[Callable[[], None]]:
    """The current task waits for a person inside: a window whose other work has ended is
    idle meanwhile. What it yields is called the moment the person answers: the task is at
    work again from then on, before it even resumes."""
    import asyncio  # here, not at the top: the window shows before asyncio loads

    task = asyncio.current_task()
    if task is None:
        yield lambda: None
        return

    def answered() -> None:
        if task in _with_the_user:
            _with_the_user.discard(task)
            _told_of_change()

    _with_the_user.add(task)
    _told_of_change()
    try:
        yield answered
    finally:
        answered()


def _told_of_change() -> None:
    for waiting in list(_waiting_for_change):
        if not waiting.done():
            waiting.set_result(None)


class TaskGroup:
    """Keeps references to running tasks (asyncio holds only weak ones) and never loses a
    failure: an exception nobody handled goes to sys.excepthook, which shows it."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, coroutine: Coroutine[Any, Any, Any] | Awaitable[Any]) -> asyncio.Task[Any]:
        import asyncio  # here, not at the top: the window shows before asyncio loads

        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def spawn_awaitable(self, awaitable: Awaitable[Any] | None) -> None:
        """Keep an awaitable someone else started (or nothing) running to its end here."""
        if awaitable is not None:
            self.spawn(awaitable)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            sys.excepthook(type(error), error, error.__traceback__)

    def cancel_all(self) -> None:
        for task in list(self._tasks):
            task.cancel()

    async def aclose(self) -> None:
        """Cancel what still runs and wait until it has stopped."""
        import asyncio  # here, not at the top: the window shows before asyncio loads

        running = list(self._tasks)
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)

    async def idle(self) -> None:
        """Return once none of these tasks is at work: each has ended or waits for a person
        to answer a dialog (those they start meanwhile included; the task awaiting this
        excepted)."""
        import asyncio  # here, not at the top: the window shows before asyncio loads

        loop = asyncio.get_running_loop()
        while busy := self._tasks - _with_the_user - {asyncio.current_task()}:
            changed = loop.create_future()
            _waiting_for_change.add(changed)
            try:
                await asyncio.wait([*busy, changed], return_when=asyncio.FIRST_COMPLETED)
            finally:
                _waiting_for_change.discard(changed)

    @property
    def running(self) -> int:
        return len(self._tasks)


class Debounce:
    """Runs ``action`` once input has paused for ``seconds``; each new input starts the pause
    again. The pause is a task of the group: a window waiting for its calls to end (its
    ``idle``) waits for the call that the pause is about to make."""

    def __init__(self, tasks: TaskGroup, seconds: float, action: Callable[[], object]) -> None:
        self._tasks = tasks
        self.seconds = seconds
        self._action = action
        self._pause: asyncio.Task[None] | None = None

    def restart(self) -> None:
        self.stop()
        self._pause = self._tasks.spawn(self._wait())

    def stop(self) -> None:
        if self._pause is not None:
            self._pause.cancel()
            self._pause = None

    @property
    def pending(self) -> bool:
        return self._pause is not None

    async def _wait(self) -> None:
        import asyncio  # here, not at the top: the window shows before asyncio loads

        await asyncio.sleep(self.seconds)
        self._pause = None
        self._action()


class LiveCall:
    """Keeps an answer up to date with input as it is typed: ``call`` is made once the input
    has paused for ``pause`` seconds and, while the typing goes on, at most once every
    ``spacing`` seconds; one at a time — input that changes while a call is on its way is
    asked for once it has answered. At a person's pace (a key every 120 ms, with 0.09 s and
    0.3 s) that is a call every third key and one 0.09 s after the last: the answer shows
    soon after the typing stops, with four calls for ten keys. ``call`` returns what to
    await (the call and the showing of its answer), or None when there is nothing to ask.
    The work is a task of the group: a window waiting for its calls (its ``idle``) waits
    for the answer to the last input."""

    def __init__(
        self,
        tasks: TaskGroup,
        pause: float,
        spacing: float,
        call: Callable[[], Awaitable[None] | None],
        *,
        clock: Clock | None = None,
    ) -> None:
        self._tasks = tasks
        self.pause = pause
        self.spacing = spacing
        self._call = call
        self._clock = clock
        self._due: float | None = None  # when the next call is to be made
        self._started = float("-inf")  # when the last call was made
        self._worker: asyncio.Task[None] | None = None
        self.in_flight = False
        self.calls = 0

    def changed(self) -> None:
        """The input changed: a call for it is due after the pause, and not before the
        spacing since the last call has passed."""
        now = (self._clock or _LoopClock()).now()
        if self._due is not None and self._due <= now:
            # overdue (the loop was busy when it came due): made as soon as the loop runs it,
            # with this input, not put off by a pause that began after it came due
            return
        self._due = max(now + self.pause, self._started + self.spacing)
        if self._worker is None:
            self._worker = self._tasks.spawn(self._work())

    def stop(self) -> None:
        self._due = None
        if self._worker is not None:
            self._worker.cancel()
            self._worker = None

    @property
    def pending(self) -> bool:
        """A call is due or on its way."""
        return self._worker is not None

    async def _work(self) -> None:
        import asyncio  # here, not at the top: the window shows before asyncio loads

        clock = self._clock or _LoopClock()
        try:
            while self._due is not None:
                wait = self._due - clock.now()
                if wait > 0:
                    await clock.sleep(wait)  # the due time may have moved on meanwhile
                    continue
                self._due = None
                answered = self._call()
                if answered is not None:  # a call made: the spacing counts from here
                    self._started = clock.now()
                    self.calls += 1
                    self.in_flight = True
                    try:
                        await answered
                    finally:
                        self.in_flight = False
        finally:
            if self._worker is asyncio.current_task():
                self._worker = None


class Clock(Protocol):
    """The time a LiveCall keeps: the event loop's, or a test's own."""

    def now(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...


class _LoopClock:
    def now(self) -> float:
        import asyncio  # here, not at the top: the window shows before asyncio loads

        return asyncio.get_running_loop().time()

    async def sleep(self, seconds: float) -> None:
        import asyncio

        await asyncio.sleep(seconds)
