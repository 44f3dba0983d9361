"""The request log dock: every exchange with the service, as support reads it.

Time, method, path, status, x-request-id and latency. Never headers, bodies or credentials:
the transport does not hand them out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QColor, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import QAbstractItemView, QDockWidget, QHeaderView, QTableView, QWidget

from app.ui.common.names import named
from app.ui.common.table_model import Index, ReadOnlyTableModel
from app.ui.common.widgets import choose_row

if TYPE_CHECKING:
    from app.api.http import Exchange

COLUMNS = ("Time", "Method", "Path", "Status", "x-request-id", "Latency (ms)")
TIME, METHOD, PATH, STATUS, REQUEST_ID, LATENCY = range(len(COLUMNS))
ExchangeRole = Qt.ItemDataRole.UserRole + 1


class RequestLogModel(ReadOnlyTableModel):
    columns = COLUMNS

    """The newest exchange last; the oldest are dropped past ``capacity``."""

    def __init__(self, capacity: int = 5000, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.capacity = capacity
        self._rows: list[tuple[Exchange, tuple[str, ...]]] = []

    def append(self, exchange: Exchange) -> None:
        if len(self._rows) >= self.capacity:
            self.beginRemoveRows(QModelIndex(), 0, 0)
            del self._rows[0]
            self.endRemoveRows()
        if exchange.cancelled:
            status = "cancelled"
        elif exchange.status is not None:
            status = str(exchange.status)
        else:
            status = exchange.error or "—"
        # formatted once, when the row arrives; data() only looks it up
        cells = (
            exchange.started.astimezone().strftime("%H:%M:%S.%f")[:-3],
            exchange.method,
            exchange.path,
            status if exchange.attempt == 1 else f"{status} (try {exchange.attempt})",
            exchange.request_id,
            f"{exchange.latency_ms:.1f}",
        )
        row = len(self._rows)
        self.beginInsertRows(QModelIndex(), row, row)
        self._rows.append((exchange, cells))
        self.endInsertRows()

    def row_count(self) -> int:
        return len(self._rows)

    def lines(self) -> list[str]:
        """Every row as a line of text, the columns apart by tabs (a failed test's record)."""
        return ["\t".join(cells) for _exchange, cells in self._rows]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        exchange, cells = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return cells[index.column()]
        if role == ExchangeRole:
            return exchange
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == PATH:
            return cells[PATH]  # a long path, whole
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() in (STATUS, LATENCY):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == STATUS:
            # a QColor: a Qt.GlobalColor reaches the delegate as a number it does not paint
            if exchange.cancelled:
                return QColor(Qt.GlobalColor.darkGray)
            failed = exchange.status is None or exchange.status >= 400
            return QColor(Qt.GlobalColor.darkRed) if failed else None
        return None


class RequestLogDock(QDockWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Request log", parent)
        self.setObjectName("requestLogDock")
        self.model = RequestLogModel(parent=self)
        self.view = QTableView()
        named(self.view, "requestLogView", "Request log")
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.verticalHeader().setVisible(False)
        self.view.verticalHeader().setDefaultSectionSize(22)
        header = self.view.horizontalHeader()
        for column, width in (
            (TIME, 100),
            (METHOD, 60),
            (PATH, 360),
            (STATUS, 90),
            (REQUEST_ID, 270),
            (LATENCY, 90),
        ):
            header.resizeSection(column, width)
        # the path tells a payment from a capture or a refund: it takes the room left
        header.setSectionResizeMode(PATH, QHeaderView.ResizeMode.Stretch)
        header.setStretchLastSection(False)
        self.setWidget(self.view)
        self.model.rowsInserted.connect(self._follow)
        copy = QShortcut(QKeySequence.StandardKey.Copy, self.view)
        copy.activated.connect(self.copy_selected_request_id)

    def _follow(self) -> None:
        # stay at the newest row unless the user scrolled up to read
        bar = self.view.verticalScrollBar()
        if bar.value() >= bar.maximum() - 2:
            self.view.scrollToBottom()

    def show_request(self, request_id: str) -> bool:
        """Show the log at the newest try of that request, chosen; False when it has none."""
        for row in range(self.model.rowCount() - 1, -1, -1):
            exchange = self.model.data(self.model.index(row, 0), ExchangeRole)
            if exchange.request_id == request_id:
                self.show()
                self.raise_()
                choose_row(self.view, row)
                return True
        return False

    def copy_selected_request_id(self) -> None:
        rows = self.view.selectionModel().selectedRows()
        if rows:
            exchange = self.model.data(rows[0], ExchangeRole)
            QGuiApplication.clipboard().setText(exchange.request_id)
