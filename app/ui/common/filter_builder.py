"""The filter builder: pick a field, an operator and a value; it writes the filter language
and shows the text it wrote, which can also be edited by hand."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core import filter as flt
from app.ui.common.names import named
from app.ui.common.notice import NoticeLabel

OPERATORS = {
    "eq": "equals",
    "ne": "differs from",
    "like": "like (% any, _ one)",
    "gt": "after / greater than",
    "gte": "from / at least",
    "lt": "before / less than",
    "lte": "until / at most",
    "range": "between (low..high)",
}
RANGE_SEPARATOR = ".."


def _value(text: str, kind: flt.FieldType, field: str) -> flt.Scalar:
    text = text.strip()
    if kind is dt.date:
        try:
            if len(text) != 10:
                raise ValueError
            return dt.date.fromisoformat(text)
        except ValueError:
            raise flt.FilterError(f"{field} takes a date yyyy-mm-dd, not {text!r}") from None
    if kind is int:
        try:
            return int(text)
        except ValueError:
            raise flt.FilterError(f"{field} takes an integer, not {text!r}") from None
    return text


def build_condition(
    field: str, operator: str, value_text: str, fields: Mapping[str, flt.FieldType]
) -> flt.Condition:
    kind = fields[field]
    if operator == "range":
        low, separator, high = value_text.partition(RANGE_SEPARATOR)
        if not separator:
            raise flt.FilterError(f"write a range as low{RANGE_SEPARATOR}high")
        return flt.cond(
            field, operator, flt.Range(_value(low, kind, field), _value(high, kind, field))
        )
    if operator == "like" and kind is not str:
        raise flt.FilterError(f"like works on text fields, not on {field}")
    return flt.cond(field, operator, _value(value_text, kind, field))


def combine(existing: str, condition: flt.Condition, join: str) -> str:
    """The filter text with one more condition, joined with and/or."""
    if not existing.strip():
        return flt.to_string(condition)
    current = flt.parse(existing)
    joined = flt.all_of(current, condition) if join == "and" else flt.any_of(current, condition)
    return flt.to_string(joined)


def example(fields: Mapping[str, flt.FieldType]) -> str:
    """A filter of these fields to show as an example: a text and a date condition."""
    text = next((name for name, kind in fields.items() if kind is str), None)
    day = next((name for name, kind in fields.items() if kind is dt.date), None)
    parts = []
    if text is not None:
        parts.append(f'{text}[like]"%@example.lt"')
    if day is not None:
        parts.append(f"{day}[gte]2024-01-01")
    if day is not None and text is None:
        parts.append(f"{day}[lte]2024-12-31")
    return " and ".join(parts)


def checked(text: str, fields: Mapping[str, flt.FieldType]) -> str | None:
    """The filter as it will be sent (normalised), None when empty; FilterError if bad."""
    if not text.strip():
        return None
    node = flt.parse(text)
    flt.check_fields(node, fields)
    return flt.to_string(node)


class FilterBuilder(QWidget):
    """Emits ``applied`` with the checked filter text (None for no filter)."""

    applied = Signal(object)

    def __init__(
        self, fields: Mapping[str, flt.FieldType], prefix: str, parent: QWidget | None = None
    ) -> None:
        """``prefix``: of its controls' object names (``clientsFilter.text``…)."""
        super().__init__(parent)
        self._fields = dict(fields)
        self._applied: str | None = None
        self.field = QComboBox()
        self.field.addItems(list(self._fields))
        self.operator = QComboBox()
        for name, label in OPERATORS.items():
            self.operator.addItem(label, name)
        self.value = QLineEdit()
        self.value.setPlaceholderText("value: text, or a date yyyy-mm-dd; a range as low..high")
        self.join = QComboBox()
        self.join.addItems(["and", "or"])
        self.add_button = QPushButton("Add condition")
        self.text = QLineEdit()
        self.text.setPlaceholderText("filter, e.g. " + example(self._fields))
        self.apply_button = QPushButton("Apply")
        self.clear_button = QPushButton("Clear")
        for part, widget, spoken in (
            ("field", self.field, "Filter: field"),
            ("operator", self.operator, "Filter: operator"),
            ("value", self.value, "Filter: value"),
            ("join", self.join, "Filter: and or or"),
            ("add", self.add_button, "Add condition"),
            ("text", self.text, "Filter"),
            ("apply", self.apply_button, "Apply the filter"),
            ("clear", self.clear_button, "Clear the filter"),
        ):
            named(widget, f"{prefix}.{part}", spoken)
        self.problem = NoticeLabel("")
        self.problem.setObjectName(f"{prefix}.problem")
        self.problem.setStyleSheet("color: #b3261e;")
        self.problem.setWordWrap(True)
        self.problem.setVisible(False)

        parts = QHBoxLayout()
        parts.addWidget(QLabel("Filter:"))
        parts.addWidget(self.field)
        parts.addWidget(self.operator)
        parts.addWidget(self.value, 1)
        parts.addWidget(self.join)
        parts.addWidget(self.add_button)
        written = QHBoxLayout()
        written.addWidget(self.text, 1)
        written.addWidget(self.apply_button)
        written.addWidget(self.clear_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(parts)
        layout.addLayout(written)
        layout.addWidget(self.problem)

        self.add_button.clicked.connect(self.add_condition)
        self.value.returnPressed.connect(self.add_condition)
        self.apply_button.clicked.connect(self.apply)
        self.text.returnPressed.connect(self.apply)
        self.clear_button.clicked.connect(self.clear)

    def _show_problem(self, message: str | None) -> None:
        self.problem.setText(message or "")
        self.problem.setVisible(bool(message))

    def add_condition(self) -> None:
        try:
            condition = build_condition(
                self.field.currentText(),
                str(self.operator.currentData()),
                self.value.text(),
                self._fields,
            )
            self.text.setText(combine(self.text.text(), condition, self.join.currentText()))
        except flt.FilterError as exc:
            self._show_problem(str(exc))
            return
        self._show_problem(None)
        self.value.clear()

    def apply(self) -> None:
        try:
            normalised = checked(self.text.text(), self._fields)
        except flt.FilterError as exc:
            self._show_problem(f"The filter is not valid: {exc}")
            return
        self._show_problem(None)
        self._applied = normalised
        self.applied.emit(normalised)

    def clear(self) -> None:
        self.text.clear()
        self._show_problem(None)
        self._applied = None
        self.applied.emit(None)

    def current(self) -> str | None:
        """The filter last applied (None for none)."""
        return self._applied
