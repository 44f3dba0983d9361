"""The time by which a streamed answer must have ended, over all its reads."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")


class AnswerDeadline:
    """The time by which an answer must have ended, over all its reads: one timer for the
    whole answer, where a timeout around each read armed one each (under qasync a Qt timer
    each, registered until the deadline: 1,500 for a million-row statement). When its time
    comes during a read, the read is cancelled (as `asyncio.timeout` does) and TimeoutError
    raised in its stead; when it comes between reads (the reader working on what came, or
    reads that find bytes waiting and never wait, app.api.http.network), the next read is
    not started: an answer that always has more is stopped."""

    def __init__(self, loop: asyncio.AbstractEventLoop, when: float) -> None:
        self._loop = loop
        self._when = when
        self._passed = False
        self._reading: asyncio.Task[Any] | None = None  # the task in a read, cancelled when due
        self._cancelling = 0  # its cancellations asked before the read (not the deadline's)
        self._timer = loop.call_at(when, self._due)

    def _due(self) -> None:
        self._passed = True
        if self._reading is not None:
            self._reading.cancel()

    async def within(self, read: Callable[[], Awaitable[T]]) -> T:
        """What ``read`` gives, or TimeoutError (the read cancelled, or never started)."""
        if self._passed or self._loop.time() >= self._when:
            raise TimeoutError
        task = asyncio.current_task()
        assert task is not None
        self._reading, self._cancelling = task, task.cancelling()
        try:
            return await read()
        except asyncio.CancelledError:
            if self._passed and task.uncancel() <= self._cancelling:
                raise TimeoutError from None  # the deadline's cancellation, not another's
            raise
        finally:
            self._reading = None

    def close(self) -> None:
        self._timer.cancel()
