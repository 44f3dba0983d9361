"""A date typed as yyyy-mm-dd, taken as typed (or marked as wrong, never silently changed),
or picked from a calendar."""

from __future__ import annotations

import datetime as dt

from PySide6.QtCore import QDate, Signal
from PySide6.QtWidgets import (
    QCalendarWidget,
    QHBoxLayout,
    QLineEdit,
    QMenu,
    QToolButton,
    QWidget,
    QWidgetAction,
)

from app.core import checks
from app.ui.common.form import INVALID_STYLE
from app.ui.common.names import named


class DateField(QWidget):
    date_changed = Signal(object)  # the new date (dt.date), typed whole or picked

    def __init__(
        self, name: str, caption: str, day: dt.date | None = None, parent: QWidget | None = None
    ) -> None:
        """``name``: its object name (its calendar button's is ``name.pick``); ``caption``:
        what it is, as a screen reader says it ("Statement from")."""
        super().__init__(parent)
        self.line = QLineEdit()
        self.line.setPlaceholderText("yyyy-mm-dd")
        self.line.setMaximumWidth(self.line.fontMetrics().horizontalAdvance("0000-00-00") + 30)
        self.calendar = QCalendarWidget()
        self.calendar.setGridVisible(True)
        self.button = QToolButton()
        self.button.setText("▾")
        self.button.setToolTip("Pick the date from a calendar")
        self.button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.button)
        picker = QWidgetAction(menu)
        picker.setDefaultWidget(self.calendar)
        menu.addAction(picker)
        self.button.setMenu(menu)
        named(self.line, name, caption, "A date as yyyy-mm-dd")
        named(self.button, f"{name}.pick", f"{caption}: pick from a calendar")
        named(self.calendar, f"{name}.calendar", f"{caption}: calendar")
        self.calendar.clicked.connect(self._picked)
        self.calendar.activated.connect(self._picked)
        self.line.textChanged.connect(self._typed)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.line)
        layout.addWidget(self.button)
        if day is not None:
            self.set_date(day)

    def problem(self) -> str | None:
        text = self.line.text().strip()
        return "Enter a date as yyyy-mm-dd" if not text else checks.date(text)

    def date(self) -> dt.date | None:
        """The date typed, when it is a whole and real one."""
        return None if self.problem() else dt.date.fromisoformat(self.line.text().strip())

    def set_date(self, day: dt.date | QDate) -> None:
        if isinstance(day, QDate):
            day = dt.date(day.year(), day.month(), day.day())
        self.line.setText(day.isoformat())

    def _typed(self, _text: str) -> None:
        problem = self.problem()
        self.line.setStyleSheet(INVALID_STYLE if problem and self.line.text() else "")
        self.line.setToolTip(problem or "")
        day = self.date()
        if day is not None:
            self.calendar.setSelectedDate(QDate(day.year, day.month, day.day))
            self.date_changed.emit(day)

    def _picked(self, day: QDate) -> None:
        self.set_date(day)
        menu = self.button.menu()
        if menu is not None:
            menu.close()
