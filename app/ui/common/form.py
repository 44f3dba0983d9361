"""Rows of a form whose problems are shown in place: a caption, the input and, beside it, what
is wrong with it in plain words (or a note, such as the bank of an IBAN). A required field the
user has not come to yet says "Required" quietly (grey), and in red once they come to it or
try to send; the problems of all rows are shown at once, in a column of their own, so the form
never jumps."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QComboBox,
    QDialog,
    QGridLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QSizePolicy,
    QWidget,
)

from app.ui.common.names import name_box
from app.ui.common.notice import NoticeLabel

PROBLEM_STYLE = "color: #b3261e;"
NOTE_STYLE = "color: #44474e;"
INVALID_STYLE = "border: 1px solid #b3261e;"


@dataclass
class Row:
    key: Hashable
    label: str  # as the user reads it: "Recipient IBAN"
    caption: QLabel
    widget: QWidget
    problem: QLabel
    section: str = ""  # the part of the form it is in, when the form has several

    @property
    def named(self) -> str:
        """The row as a summary names it: with its section ("Recipient: First name"), so two
        rows of the same label in two parts of a form are told apart."""
        return f"{self.section}: {self.label}" if self.section else self.label

    def set_visible(self, visible: bool) -> None:
        for each in (self.caption, self.widget, self.problem):
            each.setVisible(visible)


class FormRows(QObject):
    edited = Signal(object)  # the key of the row the user changed

    def __init__(self, grid: QGridLayout, *, problem_width: int = 330, section: str = "") -> None:
        super().__init__()
        self.grid = grid
        self.section = section
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(2, 1)  # a wider form gives its messages room too
        grid.setColumnMinimumWidth(2, problem_width)
        self.rows: dict[Hashable, Row] = {}
        self.touched: set[Hashable] = set()
        self.tried = False  # the user tried to send: every problem is shown

    def add(self, key: Hashable, label: str, widget: QWidget, *, name: str = "") -> Row:
        row_number = self.grid.rowCount()
        caption = QLabel(f"{label}:")
        caption.setBuddy(widget)  # its accessible name, and the focus a click on it gives
        caption.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        problem = NoticeLabel("")
        # a long message is cut (its tooltip holds it all), never given the inputs' width
        problem.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        problem.setMinimumWidth(1)
        if isinstance(widget, QLineEdit | QComboBox | QAbstractSpinBox):
            # the red border of a problem is drawn by a style sheet, whose metrics differ
            # from the platform's: the input keeps the height it has, and the rows below stay
            widget.setFixedHeight(widget.sizeHint().height())
        object_name = name or str(key)
        widget.setObjectName(object_name)
        problem.setObjectName(f"problem:{object_name}")
        # the captions' column as wide as its widest caption, shown or not: rows a kind hides
        # (a form of several kinds) do not move the inputs sideways when they come back
        widest = max(self.grid.columnMinimumWidth(0), caption.sizeHint().width())
        self.grid.setColumnMinimumWidth(0, widest)
        self.grid.addWidget(caption, row_number, 0)
        self.grid.addWidget(widget, row_number, 1)
        self.grid.addWidget(problem, row_number, 2)
        row = Row(key, label.removesuffix(" (optional)"), caption, widget, problem, self.section)
        self.rows[key] = row
        if isinstance(widget, QLineEdit):
            widget.textChanged.connect(lambda _text: self.mark_edited(key))
        elif isinstance(widget, QComboBox):
            widget.currentTextChanged.connect(lambda _text: self.mark_edited(key))
        return row

    def mark_edited(self, key: Hashable) -> None:
        """The user changed the row's input (inputs the form cannot watch say so here)."""
        self.touched.add(key)
        self.edited.emit(key)

    def show(self, problems: Mapping[Any, str], notes: Mapping[Any, str] | None = None) -> str:
        """Mark each row's problem (or note) in place; the reason the form cannot be sent, as
        Submit's tooltip says it ("" when it can)."""
        for key, row in self.rows.items():
            problem = problems.get(key, "")
            quiet = problem.startswith("Required") and not (self.tried or key in self.touched)
            text = problem or (notes or {}).get(key, "")
            if quiet:
                problem = ""
            row.problem.setText(text)
            row.problem.setToolTip(text)
            row.problem.setStyleSheet(PROBLEM_STYLE if problem else NOTE_STYLE)
            row.widget.setStyleSheet(INVALID_STYLE if problem else "")
        return reason(problems, self.rows)


def reason(problems: Mapping[Any, str], rows: Mapping[Any, Row]) -> str:
    """Why the form cannot be sent yet, naming the fields ("" when it can)."""
    if not problems:
        return ""
    count = len(problems)
    names = ", ".join(rows[key].named for key in problems if key in rows)
    return f"{count} field{'s' if count != 1 else ''} to correct first: {names}"


class ReasonLabel(QLabel):
    """Beside a form's send button: why it cannot be pressed yet, in plain sight."""

    def __init__(self) -> None:
        super().__init__("")
        self.setObjectName("formReason")
        self.setWordWrap(True)
        self.setStyleSheet(NOTE_STYLE)


def ask_before_discarding(dialog: QDialog, close: Callable[[], None]) -> QMessageBox:
    """Escape or Close on a form with typed input: ask before what was typed is lost; ``close``
    closes it without asking again."""
    box = QMessageBox(
        QMessageBox.Icon.Question,
        "Discard what you typed?",
        "Close the form without sending it? What you typed is lost.",
        QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
        dialog,
    )
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.finished.connect(
        lambda result: close() if result == QMessageBox.StandardButton.Discard else None
    )
    name_box(box, "discard")
    box.open()  # never exec(): the loop keeps running
    return box
