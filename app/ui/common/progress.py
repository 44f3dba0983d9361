"""A progress bar whose busy state (no count known yet: its range 0 to 0) it draws itself, a
step every fifth of a second. The style's own busy animation repaints the bar 60 times a
second, about a millisecond each: 7% of a core for as long as it shows, which a million-row
load (5% of its time) and the other work of the GUI thread then do not have; a step is a
repaint of the bar and of what lies behind it, up to the window."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QTimer
from PySide6.QtGui import QHideEvent, QPainter, QPaintEvent
from PySide6.QtWidgets import QProgressBar, QStyle, QStyleOptionProgressBar, QWidget

BUSY_STEP_MS = 200  # five steps a second: the chunk still moves enough to read "busy"
BUSY_STEPS = 8  # steps from one end of the bar to the other (1.6 s, as ever)
CHUNK_SHARE = 0.3  # of the bar's width


class ProgressBar(QProgressBar):
    """A QProgressBar; with a count it is drawn by the style as any other."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._step = 0  # the busy chunk's place, 0 to 2 * BUSY_STEPS: there and back
        self._steps = QTimer(self)
        self._steps.setInterval(BUSY_STEP_MS)
        self._steps.timeout.connect(self._advance)

    @property
    def busy(self) -> bool:
        return self.minimum() == 0 and self.maximum() == 0

    @property
    def animating(self) -> bool:
        """The busy chunk is moving (only while the bar is busy and shown)."""
        return self._steps.isActive()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's API
        if not self.busy:
            self._steps.stop()
            super().paintEvent(event)
            return
        if not self._steps.isActive() and self.isVisible():  # not for a picture of it
            self._steps.start()
        option = QStyleOptionProgressBar()
        self.initStyleOption(option)
        style = self.style()
        painter = QPainter(self)
        try:
            # the groove as the style draws it; the contents not: drawing them busy starts
            # the style's animation
            style.drawControl(QStyle.ControlElement.CE_ProgressBarGroove, option, painter, self)
            inner = QRectF(
                style.subElementRect(QStyle.SubElement.SE_ProgressBarContents, option, self)
            ).adjusted(1, 1, -1, -1)
            width = inner.width() * CHUNK_SHARE
            there = self._step if self._step <= BUSY_STEPS else 2 * BUSY_STEPS - self._step
            left = inner.left() + (inner.width() - width) * there / BUSY_STEPS
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(self.palette().highlight().color().darker(120))
            painter.setBrush(self.palette().highlight())
            painter.drawRoundedRect(QRectF(left, inner.top(), width, inner.height()), 2, 2)
        finally:
            painter.end()

    def hideEvent(self, event: QHideEvent) -> None:  # noqa: N802 - Qt's API
        self._steps.stop()
        super().hideEvent(event)

    def _advance(self) -> None:
        if not self.busy or not self.isVisible():
            self._steps.stop()
            return
        self._step = (self._step + 1) % (2 * BUSY_STEPS)
        self.update()
