"""The New order window's repeated rows: a product, a leg of a flight."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.forms.order import Product
from app.forms.order_parts import LEG_FIELDS
from app.ui.common.form import PROBLEM_STYLE
from app.ui.common.names import named
from app.ui.common.notice import NoticeLabel


class ProductRow(QWidget):
    """One product: title, price, quantity and (with Taxes) a tax; its problems below."""

    def __init__(self, index: int, remove: Callable[[ProductRow], None]) -> None:
        super().__init__()
        self.title = QLineEdit()
        self.title.setPlaceholderText("Title")
        self.title.setObjectName(f"products.{index}.title")
        self.price = QLineEdit()
        self.price.setPlaceholderText("Price, e.g. 10.50")
        self.price.setObjectName(f"products.{index}.price")
        self.quantity = QLineEdit("1")
        named(self.quantity, f"products.{index}.quantity", f"Product {index + 1}: quantity")
        self.quantity.setMaximumWidth(60)
        self.tax = QComboBox()
        named(self.tax, f"products.{index}.tax", f"Product {index + 1}: tax")
        self.remove_button = named(
            QPushButton("Remove"), f"products.{index}.remove", f"Remove product {index + 1}"
        )
        self.remove_button.setAutoDefault(False)
        self.remove_button.clicked.connect(lambda: remove(self))
        self.problem = NoticeLabel("")
        self.problem.setStyleSheet(PROBLEM_STYLE)
        self.problem.setWordWrap(True)
        line = QHBoxLayout()
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(self.title, 3)
        line.addWidget(self.price, 1)
        line.addWidget(QLabel("×"))
        line.addWidget(self.quantity)
        line.addWidget(self.tax, 1)
        line.addWidget(self.remove_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(line)
        layout.addWidget(self.problem)

    def product(self) -> Product:
        return Product(
            self.title.text(), self.price.text(), self.quantity.text(), self.tax.currentData() or ""
        )


class LegRow(QWidget):
    def __init__(self, remove: Callable[[LegRow], None]) -> None:
        super().__init__()
        self.inputs: dict[str, QLineEdit] = {}
        line = QHBoxLayout(self)
        line.setContentsMargins(0, 0, 0, 0)
        for key, label, placeholder in LEG_FIELDS:
            edit = QLineEdit()
            edit.setPlaceholderText(f"{label} ({placeholder})")
            edit.setObjectName(f"leg.{key}")
            self.inputs[key] = edit
            line.addWidget(edit)
        remove_button = named(QPushButton("Remove"), "leg.remove", "Remove the leg")
        remove_button.setAutoDefault(False)
        remove_button.clicked.connect(lambda: remove(self))
        line.addWidget(remove_button)


R = TypeVar("R", bound=QWidget)


class RowList(Generic[R]):
    """Rows of one kind in a layout: at least one, at most ``most``; ``changed`` is called
    after each row added or removed."""

    def __init__(self, layout: QVBoxLayout, most: int, changed: Callable[[], None]) -> None:
        self._layout = layout
        self._most = most
        self._changed = changed
        self.rows: list[R] = []

    def add(self, make: Callable[[Callable[[R], None]], R]) -> R | None:
        """A new row from ``make(remove)``, whose Remove button calls ``remove``; None when
        the list is full."""
        if len(self.rows) >= self._most:
            return None
        row = make(self.remove)
        self.rows.append(row)
        self._layout.addWidget(row)
        self._changed()
        return row

    def remove(self, row: R) -> None:
        if len(self.rows) <= 1:
            return  # the last row stays: it is emptied, not removed
        self.rows.remove(row)
        row.setParent(None)
        row.deleteLater()
        self._changed()
