"""What every read-only table model here shares: its columns and its header."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

Index = QModelIndex | QPersistentModelIndex


class ReadOnlyTableModel(QAbstractTableModel):
    """Subclasses set ``columns`` and answer ``row_count()`` and ``data()``."""

    columns: tuple[str, ...] = ()

    def row_count(self) -> int:
        raise NotImplementedError

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802 - Qt's API
        return 0 if parent.isValid() else self.row_count()

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802 - Qt's API
        return 0 if parent.isValid() else len(self.columns)

    def headerData(  # noqa: N802 - Qt's API
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.columns[section]
        return None


class RowsModel(ReadOnlyTableModel):
    """A small read-only table of text rows."""

    def __init__(self, columns: tuple[str, ...], parent: Any = None) -> None:
        super().__init__(parent)
        self.columns = columns
        self._rows: list[tuple[str, ...]] = []

    def set_rows(self, rows: Sequence[tuple[str, ...]]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def row_count(self) -> int:
        return len(self._rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if index.isValid() and role == Qt.ItemDataRole.DisplayRole:
            return self._rows[index.row()][index.column()]
        return None
