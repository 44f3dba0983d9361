"""The qasync loop for GUI tests (coroutines run on Qt's event loop, as in the app), windows
that are always closed, records of what was shown, and the check that a test leaves no task
running and no window open."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pytest
import qasync
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from app.ui.common.slice_budget import SliceBudget, use_budget
from app.ui.shell.harness import DeskLoop, delete_closed_windows, run_on, stop_tasks
from app.ui.shell.main_window import Backend, MainWindow
from tests.leak_check import passed

T = TypeVar("T")


# Drive buttons with QAbstractButton.click(): QTest's mouse and key functions process pending
# Qt events, which would step a running request's task outside the qasync loop. In the app
# that loop is always running; in tests it runs only inside run_on().


@pytest.fixture(scope="session")
def qloop(desk_loop: DeskLoop) -> qasync.QEventLoop:
    """The desk's loop of the session, as the tester's kit makes it (app.ui.shell.harness)."""
    return desk_loop.loop


@pytest.fixture(autouse=True)
def _loop_counts_as_running(desk_loop: DeskLoop) -> Iterator[None]:
    with desk_loop.counted_as_running():
        yield


@pytest.fixture(autouse=True)
def _short_pauses(monkeypatch) -> None:
    """A person's pauses are a test's waste: the pause after typing and the interval of
    following a transfer are shortened. A test types without running the loop, so each pause
    still begins after the last key; what waits for it waits for the window to be idle."""
    from app.ui.common import account_chooser
    from app.ui.transfers import form

    monkeypatch.setattr(account_chooser, "TYPING_PAUSE_S", 0.05)  # the Accounts area too
    monkeypatch.setattr(form, "FEE_PAUSE_S", 0.02)
    monkeypatch.setattr(form, "FEE_SPACING_S", 0.05)
    monkeypatch.setattr(form, "FOLLOW_MS", 50)


@pytest.fixture(autouse=True)
def _no_task_or_window_left(request, qapp, qloop) -> Iterator[None]:
    """A test leaves no task of the loop running and no window open (its fixtures' clean-up
    included): what it left is named, then stopped and closed, so that the next test starts
    clean whatever this one did."""
    tasks = set(asyncio.all_tasks(qloop))
    windows = {id(w) for w in QApplication.topLevelWidgets() if w.isVisible()}
    yield
    leaks = [f"task still running: {coroutine}" for coroutine in stop_tasks(qloop, tasks)]
    for widget in QApplication.topLevelWidgets():
        if widget.isVisible() and id(widget) not in windows:
            leaks.append(f"window still open: {type(widget).__name__} {widget.windowTitle()!r}")
            widget.close()
    delete_closed_windows()
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
