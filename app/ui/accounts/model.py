"""The Accounts area's small tables: accounts and balances."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from app.ui.common.table_model import Index, ReadOnlyTableModel

AccountRole = Qt.ItemDataRole.UserRole + 1


class RowsModel(ReadOnlyTableModel):
    """A small read-only table of pre-formatted rows, each with its object."""

    def __init__(self, columns: tuple[str, ...], parent: Any = None) -> None:
        super().__init__(parent)
        self.columns = columns
        self._rows: list[tuple[Any, tuple[str, ...]]] = []
        self.right_aligned: set[int] = set()

    def set_rows(self, rows: list[tuple[Any, tuple[str, ...]]]) -> None:
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def item(self, row: int) -> Any:
        return self._rows[row][0]

    def row_count(self) -> int:
        return len(self._rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self._rows[index.row()][1][index.column()]
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() in self.right_aligned:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == AccountRole:
            return self._rows[index.row()][0]
        return None
