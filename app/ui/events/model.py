"""Registration events as the Events area lists them."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from app.ui.common.table_model import Index, ReadOnlyTableModel

if TYPE_CHECKING:
    from app.webhooks.delivery import Event

COLUMNS = ("Occurred (UTC)", "Type", "Status", "data.id", "Signature", "Duplicates", "Received")
OCCURRED, TYPE, STATUS, DATA_ID, SIGNATURE, DUPLICATES, RECEIVED = range(len(COLUMNS))
# the type takes the room left: the columns fit the table's width, with no scrolling sideways
WIDTHS = {OCCURRED: 150, STATUS: 80, DATA_ID: 100, SIGNATURE: 75, DUPLICATES: 80, RECEIVED: 150}
EventRole = Qt.ItemDataRole.UserRole + 1


_MOMENT = re.compile(r"(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})[.,]?\d*(Z|[+-]00:?00)?")


def _time(text: str) -> str:
    """A moment to the second, as the column has room for ("2026-11-25 18:21:33"); the
    sender's whole text, with its fractions of a second, is the cell's tooltip."""
    moment = _MOMENT.fullmatch(text)
    if moment is None:
        return text.replace("T", " ").removesuffix("Z")
    return f"{moment.group(1)} {moment.group(2)}"


def cells(event: Event) -> tuple[str, ...]:
    return (
        _time(event.occurred_at),
        event.event_type + ("" if event.known_type else " (unknown type)"),
        event.status or "",
        event.data_id or "—",
        "verified" if event.signature_verified else "not signed",
        str(event.duplicates),
        _time(event.received_at),
    )


class EventsModel(ReadOnlyTableModel):
    columns = COLUMNS

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._events: list[Event] = []
        self._cells: list[tuple[str, ...]] = []

    def events(self) -> list[Event]:
        return self._events

    def show(self, events: list[Event]) -> bool:
        """Show these events; False when nothing changed (the selection stays as it is)."""
        if events == self._events:
            return False
        self.beginResetModel()
        self._events = list(events)
        self._cells = [cells(event) for event in events]
        self.endResetModel()
        return True

    def row_count(self) -> int:
        return len(self._events)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        event = self._events[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._cells[index.row()][index.column()]
        if role == Qt.ItemDataRole.ToolTipRole and index.column() in (OCCURRED, RECEIVED):
            return event.occurred_at if index.column() == OCCURRED else event.received_at
        if role == EventRole:
            return event
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == SIGNATURE:
            return QColor("#1b7f3b" if event.signature_verified else "#8a5a00")
        return None
