"""What a test needs to drive the window (the tester's kit, app.testing.plugin, and the
project's own suite): the desk's loop run only while a test waits, message boxes recorded and
answered instead of waiting for a person, widgets found by their object names, and a picture
of a window (with its dialogs over it, for the README's screenshots).

In the app the qasync loop runs all the time; in a test it runs inside ``run_on`` only, and
between two waits Qt still delivers events (a click, a dialog shown) that may step a task whose
call is in flight: ``counted_as_running`` makes such a task see its loop running, as in the
app."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QPoint, QRect, QSettings, QTimer
from PySide6.QtGui import QAction, QColor, QImage, QPainter
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from app.ui.shell.event_loop import new_event_loop

if TYPE_CHECKING:
    import qasync

T = TypeVar("T")

ICONS = {
    QMessageBox.Icon.Critical: "critical",
    QMessageBox.Icon.Warning: "warning",
    QMessageBox.Icon.Information: "information",
    QMessageBox.Icon.Question: "question",
    QMessageBox.Icon.NoIcon: "none",
}


class DeskLoop:
    """The desk's loop for a test session: made once (a qasync loop made and closed per test
    leaves Qt objects behind that crash a later test), closed at the end."""

    def __init__(self, app: QApplication) -> None:
        self.loop: qasync.QEventLoop = new_event_loop(app)
        self._hooks = sys.get_asyncgen_hooks()
        asyncio.set_event_loop(self.loop)

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float = 20.0) -> T:
        return run_on(self.loop, coroutine, timeout)

    @contextlib.contextmanager
    def counted_as_running(self) -> Iterator[None]:
        """Between waits, a task stepped by a Qt event sees its loop running."""
        asyncio.events._set_running_loop(self.loop)
        try:
            yield
        finally:
            asyncio.events._set_running_loop(None)

    def close(self) -> None:
        self.run(asyncio.sleep(0.05))  # what was cancelled last runs its clean-up
        self.loop.close()
        sys.set_asyncgen_hooks(*self._hooks)
        asyncio.set_event_loop(None)


def run_on(loop: qasync.QEventLoop, coroutine: Coroutine[Any, Any, T], timeout: float = 20) -> T:
    """Run the loop until the coroutine is done (TimeoutError past ``timeout`` seconds). Not
    run_until_complete(): after stopping, qasync processes pending Qt events once more with
    no running loop."""
    task = asyncio.ensure_future(asyncio.wait_for(coroutine, timeout), loop=loop)
    task.add_done_callback(lambda _done: loop.stop())
    running = asyncio.events._get_running_loop()
    asyncio.events._set_running_loop(None)
    try:
        loop.run_forever()
    finally:
        asyncio.events._set_running_loop(running)
    return task.result()


def stop_tasks(loop: qasync.QEventLoop, before: set[asyncio.Task[Any]]) -> list[str]:
    """Cancel the loop's tasks that ``before`` did not hold and wait for them; what they were."""
    running = [task for task in asyncio.all_tasks(loop) - before if not task.done()]
    for task in running:
        task.cancel()
    if running:
        run_on(loop, asyncio.wait(running))
    return [repr(task.get_coro()) for task in running]


def delete_closed_windows() -> None:
    """Windows closed meanwhile are deleted now, not during a later test."""
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


@dataclass(frozen=True)
class BoxRecord:
    """A message box as it was shown: its title, text and icon ("critical", "warning",
    "information", "question"), and the button it was answered with."""

    title: str
    text: str
    icon: str
    answered: str


class BoxRecorder(QObject):
    """Records every message box shown while it is installed, and answers it at once with
    ``answer`` (a QMessageBox.StandardButton) when the box has that button, else with the
    box's default button (or its escape button, or its first): nothing waits for a person."""

    active: BoxRecorder | None = None  # the one installed, which a test's idle waits for

    def __init__(self, app: QApplication) -> None:
        super().__init__()
        self.records: list[BoxRecord] = []
        self.answer: QMessageBox.StandardButton | None = None
        self.pending = 0  # boxes shown and not yet answered
        self._app = app
        app.installEventFilter(self)
        BoxRecorder.active = self

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's API
        if event.type() == QEvent.Type.Show and isinstance(watched, QMessageBox):
            button = self._button(watched)
            answered = button.text().replace("&", "") if button is not None else ""
            self.records.append(
                BoxRecord(watched.windowTitle(), watched.text(), ICONS[watched.icon()], answered)
            )
            # after the box has shown: clicking it inside its own show event confuses Qt
            self.pending += 1
            QTimer.singleShot(0, lambda: self._answer(watched, button))
        return False

    def _answer(self, box: QMessageBox, button: Any) -> None:
        self.pending -= 1
        if button is not None:
            button.click()
        else:
            box.reject()

    def _button(self, box: QMessageBox) -> Any:
        if self.answer is not None:
            chosen = box.button(self.answer)
            if chosen is not None:
                return chosen
        return box.defaultButton() or box.escapeButton() or next(iter(box.buttons()), None)

    def remove(self) -> None:
        self._app.removeEventFilter(self)
        if BoxRecorder.active is self:
            BoxRecorder.active = None


async def settled(idle: Callable[[], Awaitable[None]]) -> None:
    """``idle()`` awaited until no recorded box is still to be answered: an answered box lets
    its action go on (the call after a confirmation), which is awaited too."""
    while True:
        await idle()
        recorder = BoxRecorder.active
        if recorder is None or not recorder.pending:
            return
        while recorder.pending:  # Qt's timers answer them while the loop runs
            await asyncio.sleep(0.01)


def find_action(window: QWidget, name: str) -> QAction:
    """The window's action named ``name``: a LookupError when it has none."""
    found = window.findChild(QAction, name)
    if found is None:
        raise LookupError(f"no action is named {name!r}")
    return found


def find_widget(name: str, within: QWidget | None = None) -> QWidget:
    """The one visible widget named ``name`` in ``within`` (or in every window shown): a
    LookupError naming what was found when there is none, or more than one."""
    roots = [within] if within is not None else QApplication.topLevelWidgets()
    found: list[QWidget] = []
    for root in roots:
        if root is None or not root.isVisible():
            continue
        if root.objectName() == name:
            found.append(root)
        found += [w for w in root.findChildren(QWidget, name) if w.isVisible()]
    unique = list({id(w): w for w in found}.values())
    if len(unique) == 1:
        return unique[0]
    if not unique:
        raise LookupError(f"no visible widget is named {name!r}")
    kinds = ", ".join(type(w).__name__ for w in unique)
    raise LookupError(f"{len(unique)} visible widgets are named {name!r}: {kinds}")


def settings_in(path: Path) -> QSettings:
    """Settings of their own, in an INI file (never the user's)."""
    return QSettings(str(path), QSettings.Format.IniFormat)


def standard_button(name: str) -> QMessageBox.StandardButton:
    """A message box's button by its name ("yes", "no", "ok", "cancel", "discard", …)."""
    buttons = {str(b.name).lower(): b for b in QMessageBox.StandardButton}
    if name.lower() not in buttons:
        raise ValueError(f"{name!r} is no button of a message box: {', '.join(buttons)}")
    return buttons[name.lower()]


def picture_of(window: QWidget, *dialogs: QWidget) -> QImage:
    """The window as a person sees it, its dialogs drawn over it centred, as a desktop's
    window manager places a dialog (offscreen, Qt places it anywhere), each framed by a line."""
    image = window.grab().toImage()
    painter = QPainter(image)
    try:
        for dialog in dialogs:
            picture = dialog.grab()
            place = QPoint(
                max((image.width() - picture.width()) // 2, 0),
                max((image.height() - picture.height()) // 2, 0),
            )
            painter.drawPixmap(place, picture)
            painter.setPen(QColor("#6b6b6b"))
            painter.drawRect(QRect(place, picture.size()).adjusted(-1, -1, 0, 0))
    finally:
        painter.end()
    return image


def save_pictures(folder: Path, name: str) -> list[Path]:
    """A picture of every window shown (the main window and its dialogs), as PNG files."""
    folder.mkdir(parents=True, exist_ok=True)
    saved = []
    shown = [w for w in QApplication.topLevelWidgets() if w.isVisible()]
    for index, window in enumerate(shown):
        path = folder / (f"{name}.png" if index == 0 else f"{name}.{index}.png")
        if window.grab().save(str(path), "PNG"):
            saved.append(path)
    return saved
