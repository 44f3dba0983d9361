"""The qasync loop for GUI tests: coroutines run on Qt's event loop, as in the app."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, TypeVar

import pytest
import qasync
from PySide6.QtCore import QSettings

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
    yield loop
    loop.run_until_complete(asyncio.sleep(0.05))
    loop.close()
    asyncio.set_event_loop(None)


def run_on(loop: qasync.QEventLoop, coroutine: Coroutine[Any, Any, T], timeout: float = 20) -> T:
    return loop.run_until_complete(asyncio.wait_for(coroutine, timeout))


async def until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.02)


@pytest.fixture
def settings(tmp_path) -> QSettings:
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
