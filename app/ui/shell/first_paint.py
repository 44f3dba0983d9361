"""The window's first paint and first page: what runs after the frame shows, and the moments
the startup benchmark reads (the frame painted, the first clients painted)."""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer, SignalInstance
from PySide6.QtWidgets import QWidget


class AfterFirstPaint(QObject):
    """Runs ``then`` once the window has painted for the first time."""

    def __init__(self, window: QWidget, then: Callable[[], None]) -> None:
        super().__init__(window)
        self._then = then
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's API
        if event.type() == QEvent.Type.Paint:
            watched.removeEventFilter(self)
            QTimer.singleShot(0, self._then)  # after this paint is done
        return False


class FirstPaintReporter(QObject):
    """Prints the time of the window's first paint (for the startup benchmark)."""

    def __init__(self, window: QWidget, then: Callable[[], object]) -> None:
        super().__init__(window)
        self._then = then
        self._done = False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's API
        if not self._done and event.type() == QEvent.Type.Paint:
            self._done = True
            print(f"shown {time.time():.6f}", flush=True)
            QTimer.singleShot(0, self._then)
        return False


class UsableReporter(QObject):
    """Prints the time the Clients table first paints rows (for the startup benchmark): the
    moment a person can use the window, not its first frame."""

    def __init__(
        self, window: QWidget, area_built: SignalInstance, then: Callable[[], object]
    ) -> None:
        super().__init__(window)
        self._then = then
        self._done = False
        area_built.connect(self._watch)

    def _watch(self, area: object) -> None:
        from app.ui.clients import ClientsArea

        if isinstance(area, ClientsArea):
            self._table = area.view.table
            self._table.viewport().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's API
        if self._done or event.type() != QEvent.Type.Paint:
            return False
        model = self._table.model()
        if model is not None and model.rowCount() > 0:
            self._done = True
            print(f"usable {time.time():.6f}", flush=True)
            QTimer.singleShot(0, self._then)
        return False
