"""A read-only table of a list the service pages (offset and limit), loaded page by page as
the user scrolls (canFetchMore/fetchMore). Each row keeps its object, reachable with
``ItemRole``; cells are formatted once, when the row arrives."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from PySide6.QtCore import QModelIndex, Qt, Signal

from app.api.errors import ApiError
from app.ui.common.table_model import Index, ReadOnlyTableModel
from app.ui.shell.tasks import TaskGroup

if TYPE_CHECKING:
    import asyncio

T = TypeVar("T")

ItemRole = Qt.ItemDataRole.UserRole + 1
PAGE_SIZE = 50

#: fetch_page(offset, limit, query): one page; ``query`` is what the list is filtered by
PageSource = Callable[[int, int, Any], Awaitable[list[T]]]


class PagedTableModel(ReadOnlyTableModel, Generic[T]):
    failed = Signal(object)  # an error while fetching a page: the area shows it
    page_loaded = Signal(int)  # rows now loaded

    def __init__(
        self,
        columns: tuple[str, ...],
        fetch_page: PageSource[T],
        cells: Callable[[T], tuple[str, ...]],
        tasks: TaskGroup,
        parent: Any = None,
    ) -> None:
        super().__init__(parent)
        self.columns = columns
        self._fetch_page = fetch_page
        self._cells_of = cells
        self.page_size = PAGE_SIZE
        self._tasks = tasks
        self._items: list[T] = []
        self._cells: list[tuple[str, ...]] = []
        self._query: Any = None
        self._exhausted = True  # nothing to fetch until the first reload()
        self._fetching = False
        self._generation = 0  # pages of an older query are dropped when they arrive
        self.pending: asyncio.Task[None] | None = None  # the page being fetched

    @property
    def query(self) -> Any:
        return self._query

    @property
    def fetching(self) -> bool:
        return self._fetching

    def items(self) -> list[T]:
        return self._items

    def key(self, item: T) -> Hashable | None:
        """What makes an item the same one (an id); None: items are not matched (the
        default). With a key, an item a page brings that is listed already replaces its row
        instead of showing twice."""
        return None

    def reload(self, query: Any = None) -> None:
        """Start again from the first page, with this query: the load in flight, if any, is
        dropped (one load at a time; the latest wins)."""
        if self.pending is not None and not self.pending.done():
            self.pending.cancel()
        self.beginResetModel()
        self._items, self._cells = [], []
        self._query = query
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
        self.pending = self._tasks.spawn(self._fetch(self._generation, len(self._items)))

    async def _fetch(self, generation: int, offset: int) -> None:
        try:
            page = await self._fetch_page(offset, self.page_size, self._query)
        except ApiError as exc:
            if generation == self._generation:
                self._fetching = False
                self._exhausted = True  # until the user reloads: no request storm
                self.failed.emit(exc)
            return
        if generation != self._generation:
            return
        self._fetching = False
        self._exhausted = len(page) < self.page_size
        new = []
        rows = {self.key(item): row for row, item in enumerate(self._items)}
        for item in page:
            row = rows.get(self.key(item))
            if row is None or self.key(item) is None:
                new.append(item)
            else:  # listed already (shown on its own meanwhile): its row, not a second one
                self._set_row(row, item)
        if new:
            first = len(self._items)
            self.beginInsertRows(QModelIndex(), first, first + len(new) - 1)
            self._items.extend(new)
            self._cells.extend(self._cells_of(item) for item in new)
            self.endInsertRows()
        self.page_loaded.emit(len(self._items))

    def replace(self, item: T, same: Callable[[T], bool]) -> None:
        """Show an item as the service now returns it (after an edit)."""
        for row, known in enumerate(self._items):
            if same(known):
                self._set_row(row, item)
                return

    def _set_row(self, row: int, item: T) -> None:
        self._items[row] = item
        self._cells[row] = self._cells_of(item)
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.columns) - 1))

    # -- Qt

    def row_count(self) -> int:
        return len(self._items)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self._cells[index.row()][index.column()]
        if role == ItemRole:
            return self._items[index.row()]
        return self.decoration(self._items[index.row()], index.column(), role)

    def decoration(self, item: T, column: int, role: int) -> Any:
        """Alignment, colour and the like of a cell; none by default."""
        return None
