"""A label that tells each text it is given: what passed through it ("Signing in…", then the
answer) can be followed by whoever listens, a test or a screen reader, not only what shows
at the moment one looks."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel


class NoticeLabel(QLabel):
    shown = Signal(str)  # each text set, as it is set

    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        super().setText(text)
        self.shown.emit(text)

    def clear(self) -> None:
        self.setText("")
