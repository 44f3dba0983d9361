"""The clients table: v1 persons and v2 persons and companies, loaded page by page as the
user scrolls (canFetchMore/fetchMore)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, Qt, Signal

from app.api.errors import ApiError, InvalidInput
from app.ui.common.table_model import Index, ReadOnlyTableModel
from app.ui.shell.tasks import TaskGroup

if TYPE_CHECKING:
    import asyncio

    from app.api.banking import ClientV2

COLUMNS = (
    "ID",
    "Type",
    "Name",
    "E-mail",
    "Mobile",
    "External ID",
    "External reference",
    "Status",
    "Created",
)
ID, TYPE, NAME, EMAIL, MOBILE, EXTERNAL_ID, REFERENCE, STATUS, CREATED = range(len(COLUMNS))
ClientRole = Qt.ItemDataRole.UserRole + 1
CLIENT_WIDTHS = {
    ID: 90,
    TYPE: 75,
    NAME: 200,
    EMAIL: 220,
    MOBILE: 130,
    EXTERNAL_ID: 100,
    REFERENCE: 130,
    STATUS: 85,
    CREATED: 95,
}
PAGE_SIZE = 50

PageSource = Callable[[int, int, "str | None"], Awaitable[list["ClientV2"]]]


def client_cells(client: ClientV2) -> tuple[str, ...]:
    if client.company is not None:
        details: Any = client.company
        name = details.name
        kind = "Company"
    else:
        details = client.person
        name = " ".join(
            part for part in (details.first_name, details.middle_name, details.last_name) if part
        )
        kind = "Person"
    return (
        client.id,
        kind,
        name,
        details.email,
        details.contact_mobile_number,
        details.external_id or "",
        client.external_reference or "",
        client.status,
        details.create_date.isoformat() if details.create_date else "",
    )


class ClientsModel(ReadOnlyTableModel):
    columns = COLUMNS

    failed = Signal(object)  # an error while fetching a page: the window shows it
    page_loaded = Signal(int)  # rows now loaded

    def __init__(self, fetch_page: PageSource, tasks: TaskGroup, parent: Any = None) -> None:
        super().__init__(parent)
        self._fetch_page = fetch_page
        self.page_size = PAGE_SIZE
        self._tasks = tasks
        self._clients: list[ClientV2] = []
        self._cells: list[tuple[str, ...]] = []
        self._filter: str | None = None
        self._exhausted = True  # nothing to fetch until the first reload()
        self._fetching = False
        self._generation = 0  # pages of an older filter are dropped when they arrive
        self.pending: asyncio.Task[None] | None = None  # the page being fetched

    @property
    def filter(self) -> str | None:
        return self._filter

    @property
    def fetching(self) -> bool:
        return self._fetching

    def reload(self, filter_text: str | None = None) -> None:
        """Start again from the first page, with this filter."""
        self.beginResetModel()
        self._clients, self._cells = [], []
        self._filter = filter_text or None
        self._exhausted = False
        self._fetching = False
        self._generation += 1
        self.endResetModel()
        self.fetchMore(QModelIndex())

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008, N802 - Qt's API
        return not parent.isValid() and not self._exhausted and not self._fetching

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008, N802 - Qt's API
        if not self.canFetchMore(parent):
            return
        self._fetching = True
        self.pending = self._tasks.spawn(self._fetch(self._generation, len(self._clients)))

    async def _fetch(self, generation: int, offset: int) -> None:
        try:
            page = await self._fetch_page(offset, self.page_size, self._filter)
        except (ApiError, InvalidInput) as exc:
            if generation == self._generation:
                self._fetching = False
                self._exhausted = True  # until the user reloads: no request storm
                self.failed.emit(exc)
            return
        if generation != self._generation:
            return
        self._fetching = False
        self._exhausted = len(page) < self.page_size
        if page:
            first = len(self._clients)
            self.beginInsertRows(QModelIndex(), first, first + len(page) - 1)
            self._clients.extend(page)
            self._cells.extend(client_cells(client) for client in page)
            self.endInsertRows()
        self.page_loaded.emit(len(self._clients))

    def replace(self, client: ClientV2) -> None:
        """Show a client as the service now returns it (after an edit)."""
        for row, known in enumerate(self._clients):
            if known.id == client.id:
                self._clients[row] = client
                self._cells[row] = client_cells(client)
                self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))
                return

    # -- Qt

    def row_count(self) -> int:
        return len(self._clients)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self._cells[index.row()][index.column()]
        if role == ClientRole:
            return self._clients[index.row()]
        return None
