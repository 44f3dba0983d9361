"""The qasync loop for GUI tests: coroutines run on Qt's event loop, as in the app."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, TypeVar

import pytest
import qasync
from PySide6.QtCore import QSettings

from app.ui.shell.event_loop import adopt_async_generators

T = TypeVar("T")


# Drive buttons with QAbstractButton.click(): QTest's mouse and key functions process pending
# Qt events, which would step a running request's task outside the qasync loop. In the app
# that loop is always running; in tests it runs only inside run_on().


@pytest.fixture(scope="session")
def qloop(qapp) -> Iterator[qasync.QEventLoop]:
    # one loop for the session, as in the app: creating and closing a qasync loop per test
    # leaves Qt objects behind that crash a later test
    loop = qasync.QEventLoop(qapp, already_running=False)
    asyncio.set_event_loop(loop)
    hooks = sys.get_asyncgen_hooks()
    adopt_async_generators(loop)
    yield loop
    loop.run_until_complete(asyncio.sleep(0.05))
    loop.close()
    sys.set_asyncgen_hooks(*hooks)
    asyncio.set_event_loop(None)


def run_on(loop: qasync.QEventLoop, coroutine: Coroutine[Any, Any, T], timeout: float = 20) -> T:
    """Run the loop until the coroutine is done. Not run_until_complete(): after stopping,
    qasync processes pending Qt events once more with no running loop."""
    task = asyncio.ensure_future(asyncio.wait_for(coroutine, timeout), loop=loop)
    task.add_done_callback(lambda _done: loop.stop())
    asyncio.events._set_running_loop(None)
    try:
        loop.run_forever()
    finally:
        asyncio.events._set_running_loop(loop)
    return task.result()


@pytest.fixture(autouse=True)
def _loop_counts_as_running(qloop: qasync.QEventLoop) -> Iterator[None]:
    """In the app the qasync loop runs for the whole session; in a test it runs only inside
    run_on(). Between two run_on() calls Qt still processes events (a click, a dialog shown)
    and may step a task whose request is in flight: that task must see its loop as running,
    as it always does in the app, or httpx finds no event loop."""
    asyncio.events._set_running_loop(qloop)
    yield
    asyncio.events._set_running_loop(None)


async def until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.02)


@pytest.fixture
def settings(tmp_path) -> QSettings:
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
