"""The qasync loop for GUI tests (coroutines run on Qt's event loop, as in the app), windows
that are always closed, records of what was shown, and the check that a test leaves no task
running and no window open."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, TypeVar

import pytest
import qasync
from PySide6.QtCore import QCoreApplication, QEvent, QSettings
from PySide6.QtWidgets import QApplication

from app.ui.common.slice_budget import SliceBudget, use_budget
from app.ui.shell.event_loop import new_event_loop
from app.ui.shell.main_window import Backend, MainWindow
from tests.leak_check import passed

T = TypeVar("T")


# Drive buttons with QAbstractButton.click(): QTest's mouse and key functions process pending
# Qt events, which would step a running request's task outside the qasync loop. In the app
# that loop is always running; in tests it runs only inside run_on().


@pytest.fixture(scope="session")
def qloop(qapp) -> Iterator[qasync.QEventLoop]:
    # one loop for the session, as in the app: creating and closing a qasync loop per test
    # leaves Qt objects behind that crash a later test
    loop = new_event_loop(qapp)
    asyncio.set_event_loop(loop)
    hooks = sys.get_asyncgen_hooks()
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


@pytest.fixture(autouse=True)
def _short_pauses(monkeypatch) -> None:
    """A person's pauses are a test's waste: the pause after typing and the interval of
    following a transfer are shortened. A test types without running the loop, so each pause
    still begins after the last key; what waits for it waits for the window to be idle."""
    from app.ui.common import account_chooser
    from app.ui.transfers import form

    monkeypatch.setattr(account_chooser, "TYPING_PAUSE_S", 0.05)
    monkeypatch.setattr(form, "FEE_PAUSE_S", 0.02)
    monkeypatch.setattr(form, "FOLLOW_MS", 50)


@pytest.fixture(autouse=True)
def _no_task_or_window_left(request, qapp, qloop) -> Iterator[None]:
    """A test leaves no task of the loop running and no window open (its fixtures' clean-up
    included): what it left is named, then stopped and closed, so that the next test starts
    clean whatever this one did."""
    tasks = set(asyncio.all_tasks(qloop))
    windows = {id(w) for w in QApplication.topLevelWidgets() if w.isVisible()}
    yield
    leaks = []
    running = [task for task in asyncio.all_tasks(qloop) - tasks if not task.done()]
    if running:
        leaks += [f"task still running: {task.get_coro()!r}" for task in running]
        for task in running:
            task.cancel()
        run_on(qloop, asyncio.wait(running))
    for widget in QApplication.topLevelWidgets():
        if widget.isVisible() and id(widget) not in windows:
            leaks.append(f"window still open: {type(widget).__name__} {widget.windowTitle()!r}")
            widget.close()
    # windows closed during the test are deleted now, not in a later test
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    if leaks and passed(request.node):
        pytest.fail("the test left behind:\n" + "\n".join(leaks), pytrace=False)


async def until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait for a state that, once reached, stays (a row listed, a dialog open). Never for one
    that passes (a "Loading…"): `Record` keeps those."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.02)


class Record:
    """Every value a signal carried since the record began (a label's texts, as shown), so a
    test can ask whether a value passed by without having to look at the right moment."""

    def __init__(self, signal: Any) -> None:
        self.values: list[Any] = []
        self._waiting: list[tuple[Callable[[Any], bool], asyncio.Future[Any]]] = []
        self._signal = signal
        signal.connect(self._heard)

    def _heard(self, value: Any) -> None:
        self.values.append(value)
        for wanted, future in list(self._waiting):
            if not future.done() and wanted(value):
                future.set_result(value)

    async def seen(self, wanted: Any, timeout: float = 10.0) -> Any:
        """The first value since the record began that is ``wanted`` (a value, or a test of
        one); waits for it if none has come yet."""
        test = wanted if callable(wanted) else (lambda value: value == wanted)
        for value in self.values:
            if test(value):
                return value
        future = asyncio.get_running_loop().create_future()
        entry = (test, future)
        self._waiting.append(entry)
        try:
            return await asyncio.wait_for(future, timeout)
        finally:
            self._waiting.remove(entry)


@pytest.fixture
def settings(tmp_path) -> QSettings:
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def one_step_slices() -> Iterator[SliceBudget]:
    """Long work is sliced by steps, one a slice, not by time: where a slice ends, and that
    there is more than one, does not depend on the machine's speed."""
    with use_budget(SliceBudget(steps=1)) as budget:
        yield budget


@pytest.fixture
def open_window(qapp, qloop, settings) -> Iterator[Callable[..., MainWindow]]:
    """``open_window(url)``: a main window on the server at ``url`` (signed in to it as the
    embedded sandbox, unless ``connect`` is false), closed with its connection after the
    test however the test ends."""
    windows: list[MainWindow] = []

    def open_(
        url: str | Callable[[], str],
        *,
        name: str = "Test sandbox",
        connect: bool = True,
        size: tuple[int, int] | None = None,
    ) -> MainWindow:
        start = url if callable(url) else (lambda: url)
        window = MainWindow(Backend(name, start), settings=settings)
        windows.append(window)
        if size is not None:
            window.resize(*size)
        window.show()
        if connect:
            run_on(qloop, window.connect_backend())
        return window

    yield open_
    # closed here, not by qtbot: its clean-up runs before this one and deletes the window
    for window in windows:
        window.close()
        run_on(qloop, window.aclose())
        window.deleteLater()


def settle(qloop: qasync.QEventLoop, window: MainWindow) -> None:
    """Run the loop until every call and load the window started has ended."""
    run_on(qloop, window.idle())
