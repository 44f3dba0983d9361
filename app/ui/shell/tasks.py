"""Running coroutines from Qt signal handlers on the qasync loop."""

from __future__ import annotations

import logging
import sys
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

log = logging.getLogger("partner_desk.ui")


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
        """Return once none of these tasks runs, those they start meanwhile included (the
        task awaiting this excepted)."""
        import asyncio  # here, not at the top: the window shows before asyncio loads

        while others := self._tasks - {asyncio.current_task()}:
            await asyncio.wait(others)

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
