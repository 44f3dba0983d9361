"""A line chart of the balance over the statement's period, painted directly."""

from __future__ import annotations

import datetime as dt

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from app.ui.common.formatting import money_text


class BalanceChart(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("balanceChart")
        self.setMinimumHeight(140)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self._points: list[tuple[dt.date, int]] = []
        self._currency = ""

    @property
    def points(self) -> list[tuple[dt.date, int]]:
        return self._points

    def set_series(self, points: list[tuple[dt.date, int]], currency: str) -> None:
        self._points = points
        self._currency = currency
        self.setToolTip(self.caption() if currency else "")
        self.update()

    def placeholder(self) -> str:
        """What stands in the chart's place while there is no line to draw."""
        if not self._currency:
            return "The balance chart appears when a statement with movements is loaded."
        if not self._points:
            return f"No {self._currency} movements in this period."
        day, balance = self._points[0]
        return (
            f"One day with {self._currency} movements: the balance was "
            f"{money_text(balance, self._currency)} {self._currency} at the end of {day}."
        )

    def caption(self) -> str:
        """What the line is: the balance after each day's last movement, not every movement."""
        return f"{self._currency} balance at the end of each day with movements"

    def _label(self, amount: int) -> str:
        return money_text(amount, self._currency, with_code=True)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's API
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        painter.fillRect(self.rect(), palette.base())
        text_pen = QPen(palette.text().color())
        painter.setPen(text_pen)
        if len(self._points) < 2:
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, self.placeholder())
            return
        metrics = painter.fontMetrics()
        low = min(balance for _, balance in self._points)
        high = max(balance for _, balance in self._points)
        labels = [self._label(high), self._label(low)]
        left = max(metrics.horizontalAdvance(label) for label in labels) + 12
        plot = QRectF(left, 10, self.width() - left - 12, self.height() - 20 - metrics.height())
        first_day, last_day = self._points[0][0], self._points[-1][0]
        span_days = max((last_day - first_day).days, 1)
        span_money = max(high - low, 1)

        def at(day: dt.date, balance: int) -> QPointF:
            x = plot.left() + plot.width() * (day - first_day).days / span_days
            y = plot.bottom() - plot.height() * (balance - low) / span_money
            return QPointF(x, y)

        painter.setPen(QPen(palette.mid().color()))
        painter.drawRect(plot)
        painter.setPen(text_pen)
        painter.drawText(
            QRectF(0, plot.top() - 6, left - 6, 20), Qt.AlignmentFlag.AlignRight, labels[0]
        )
        painter.drawText(
            QRectF(0, plot.bottom() - 14, left - 6, 20), Qt.AlignmentFlag.AlignRight, labels[1]
        )
        bottom = plot.bottom() + 4
        painter.drawText(
            QRectF(plot.left(), bottom, 120, 20), Qt.AlignmentFlag.AlignLeft, first_day.isoformat()
        )
        painter.drawText(
            QRectF(plot.right() - 120, bottom, 120, 20),
            Qt.AlignmentFlag.AlignRight,
            last_day.isoformat(),
        )
        caption_room = QRectF(plot.left() + 110, bottom, max(plot.width() - 220, 0), 20)
        caption = metrics.elidedText(
            self.caption(), Qt.TextElideMode.ElideRight, int(caption_room.width())
        )
        painter.drawText(caption_room, Qt.AlignmentFlag.AlignHCenter, caption)
        path = QPainterPath(at(*self._points[0]))
        for day, balance in self._points[1:]:
            path.lineTo(at(day, balance))
        painter.setPen(QPen(QColor("#1f6feb"), 1.6))
        painter.drawPath(path)
