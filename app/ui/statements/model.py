"""The statement table model: a million rows, held as columns, stay smooth.

The records live in `StatementColumns`; a row's cells are formatted when the view asks for
them (only the rows on screen). The rows shown are an array of row numbers: searching and
sorting compute a new one in slices (`SlicedWork`) between which the window keeps painting,
and no proxy model is involved. Rows that arrive while a sort or search is being worked out,
or into a sorted table, wait in ``_pending`` and are placed when the work is done.
"""

from __future__ import annotations

import datetime as dt
from array import array
from collections.abc import Callable, Generator, Iterator
from functools import partial
from itertools import chain, pairwise
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, Qt, Signal

from app.api.banking.columns import StatementColumns
from app.core.csv_export import Block
from app.ui.common.formatting import money_text
from app.ui.common.sliced import SlicedWork
from app.ui.common.table_model import Index, ReadOnlyTableModel
from app.ui.statements.export import export_blocks, export_chunks
from app.ui.statements.ordering import STEP, rows_in_order
from app.ui.statements.packed_keys import row_numbers
from app.ui.statements.search import Search
from app.ui.statements.table_columns import AMOUNT, BALANCE, COLUMNS

if TYPE_CHECKING:
    from app.api.banking import StatementRecord

RecordRole = Qt.ItemDataRole.UserRole + 1
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
_CACHED_ROWS = 2048  # formatted rows kept: a few screens' worth


def _exported_rows(data: StatementColumns, order: array[int]) -> Iterator[tuple[str, ...]]:
    return chain.from_iterable(export_chunks(data, order))


def format_cells(data: StatementColumns, row: int) -> tuple[str, ...]:
    """A row as the table shows it."""
    currency = data.currency(row)
    return (
        dt.date.fromordinal(data.days[row]).isoformat(),
        data.types[row] or "",
        money_text(data.signed_amount(row), currency),
        currency,
        data.descriptions[row],
        data.counterparty_names[row] or "",
        data.counterparty_accounts[row] or "",
        data.references[row],
        money_text(data.balances[row], currency),
    )


class StatementModel(ReadOnlyTableModel):
    columns = COLUMNS
    working = Signal(str)  # a search or sort takes more than a moment: what it is
    settled = Signal()  # the rows shown are searched and sorted as asked
    failed = Signal()  # a search or sort could not be worked out (`failure` says why)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._data = StatementColumns()
        self._placed = 0  # the rows of _data searched and placed (shown, or waiting)
        self._order = array("I")  # the rows shown, as row numbers
        self._pending = array("I")  # rows that match, waiting for the work to place them
        self._unrevealed = array("I")  # rows that match, in place, not yet told to the view
        self._search = Search(self._data, "")
        self._sort: tuple[int, Qt.SortOrder] | None = None
        self._searching = False  # a search is being worked out
        self._arranging: array[int] | None = None  # the rows a sort being worked out orders
        self._place_all = False  # every waiting row is to be placed once the work is done
        self._formatted: dict[int, tuple[str, ...]] = {}  # the rows lately shown
        self.failure = ""  # why the last search or sort could not be worked out, for the user
        self._work = SlicedWork(self)
        self._work.started.connect(self.working)
        self._work.finished.connect(self.settled)

    # -- loading

    def clear(self) -> None:
        self._work.stop()
        self._searching = self._place_all = False
        self._arranging = None
        self.failure = ""
        self.beginResetModel()
        # an active search keeps filtering the rows of the next load
        self._data = StatementColumns()
        self._placed = 0
        self._search = Search(self._data, self._search.needle)
        self._order, self._pending, self._unrevealed = array("I"), array("I"), array("I")
        self._sort = None
        self._formatted.clear()
        self.endResetModel()

    def rows_arrived(self, *, reveal: bool = True) -> None:
        """Place the rows added to `storage` since last time. With ``reveal`` false they
        wait for a later call or `reveal()`: telling the view of every small piece of a
        million rows costs it more than the rows themselves."""
        start, self._placed = self._placed, len(self._data)
        shown = self._search.rows(start, self._placed)
        if self._sort is not None or self._work.running:
            self._pending.extend(shown)
        else:
            self._unrevealed.extend(shown)
        if reveal:
            self._show_waiting(eager=False)

    def add_records(self, records: list[StatementRecord]) -> None:
        """Records from elsewhere than a statement's stream (tests, a file)."""
        self._data.add_records(records)
        self.rows_arrived(reveal=False)
        self.reveal()

    def reveal(self) -> None:
        """Show every row waiting (rows into a sorted table once sorted in)."""
        self._show_waiting(eager=True)

    def _show_waiting(self, *, eager: bool) -> None:
        waiting = self._unrevealed
        if waiting:
            self._unrevealed = array("I")
            first = len(self._order)
            self.beginInsertRows(QModelIndex(), first, first + len(waiting) - 1)
            self._order.extend(waiting)
            self.endInsertRows()
        # rows for a sorted table: sorting all again for each piece of a long load would sort
        # a million rows a thousand times, so only once they are half as many as those shown
        # (the work done stays within twice a sort of the whole), and when asked for
        pending = len(self._pending)
        if pending and self._work.running:
            self._place_all = self._place_all or eager  # once the work is done
        elif pending and (eager or 2 * pending >= len(self._order)):
            self._arrange(search_again=False)

    @property
    def loaded(self) -> int:
        return len(self._data)

    @property
    def storage(self) -> StatementColumns:
        return self._data

    @property
    def searching(self) -> bool:
        return bool(self._search.needle)

    @property
    def busy(self) -> bool:
        """A search or sort is still being worked out."""
        return self._work.running

    def visible_rows(self) -> Iterator[tuple[str, ...]]:
        """The rows as shown: searched and sorted."""
        data = self._data
        return (format_cells(data, row) for row in array("I", self._order))

    def export_rows(self) -> Iterator[tuple[str, ...]]:
        """The rows shown, in their order, as a spreadsheet reads them (neutralised): the
        rows of the moment (a later sort does not change the file)."""
        return _exported_rows(self._data, array("I", self._order))

    def find_exported_texts(self) -> Iterator[None]:
        """Where the exported free texts start, found a piece at a time (a yield after each)
        when the export reads its rows one by one, as a sorted or searched table's does:
        found once here, not by each forked copy for every export (app.api.banking.text_column).
        The booking order's rows are read in runs, each piece's text split."""
        if self._sort is not None or self._search.needle:
            yield from self._data.descriptions.find_starts()
            yield from self._data.references.find_starts()

    def export_parts(self, count: int) -> list[Callable[[], Iterator[Block]]]:
        """`export_rows` cut into ``count`` parts that follow each other, each made in blocks
        when called (in a forked copy: app.ui.common.csv_file.write_csv_in_copies)."""
        data, order = self._data, array("I", self._order)
        cuts = [len(order) * part // count for part in range(count + 1)]
        return [partial(export_blocks, data, order[low:high]) for low, high in pairwise(cuts)]

    # -- Qt

    def row_count(self) -> int:
        return len(self._order)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        # the view asks for many roles of every cell it paints: the ones not used end first
        if role == Qt.ItemDataRole.DisplayRole:
            if not index.isValid():
                return None
            row = self._order[index.row()]
            cells = self._formatted.get(row)
            if cells is None:
                if len(self._formatted) >= _CACHED_ROWS:
                    self._formatted.clear()
                cells = self._formatted[row] = format_cells(self._data, row)
            return cells[index.column()]
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return _RIGHT if index.column() in (AMOUNT, BALANCE) else None
        if role == RecordRole and index.isValid():
            return self._data.record(self._order[index.row()])
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort by a column; column -1 (no sort indicator) is the booking order again."""
        wanted = None if column < 0 else (column, order)
        if wanted == self._sort and self._work.running:
            return  # asked again while worked out (QTableView.sortByColumn asks twice)
        self._sort = wanted
        self._arrange(search_again=False)

    # -- search

    def set_search(self, text: str) -> None:
        self._search = Search(self._data, text)
        self._arrange(search_again=True)

    # -- the work

    def _arrange(self, *, search_again: bool) -> None:
        """Work out the rows shown (searched again, or the rows shown and waiting) in the
        order asked for; rows arriving meanwhile wait."""
        self.failure = ""
        waiting, self._unrevealed = self._unrevealed, array("I")
        self._pending = waiting + self._pending  # in the work, never told to the view
        # a search still being worked out is worked out again, with the new order
        search_again = search_again or self._searching
        self._searching = search_again
        loaded = len(self._data)
        # a sort asked for while another is worked out starts from the rows given to that
        # one (those shown and those that were waiting), not from those shown alone
        shown = self._arranging if self._arranging is not None else self._order
        rows = None if search_again else shown + self._pending
        self._arranging = rows
        self._pending = array("I")
        what = "Searching…" if search_again else "Sorting…"
        self._work.start(what, self._rows_in_order(rows, loaded), self._show, self._failed)

    def _rows_in_order(self, rows: array[int] | None, loaded: int) -> Generator[Any, None, Any]:
        if rows is None:
            rows = array("I")
            search = self._search
            for low in range(0, loaded, STEP):
                rows.extend(search.rows(low, min(low + STEP, loaded)))
                yield
            if self._sort is None:
                return rows  # the search keeps booking order
        column, order = self._sort or (-1, Qt.SortOrder.AscendingOrder)
        descending = order == Qt.SortOrder.DescendingOrder
        return (yield from rows_in_order(self._data, rows, column, descending))

    def _failed(self, error: Exception) -> None:
        """Every row placed, in booking order, neither searched nor sorted: none is lost
        and none is shown twice, whatever the work had got to."""
        what = "searched" if self._searching else "sorted"
        every_row = row_numbers(0, self._placed)  # first: nothing is changed if it fails
        self._search = Search(self._data, "")
        self._sort = None
        self._searching = self._place_all = False
        self._arranging = None
        self._pending, self._unrevealed = array("I"), array("I")
        self.beginResetModel()
        self._order = every_row
        self.endResetModel()
        self.failure = (
            f"The rows could not be {what} ({type(error).__name__}): "
            "all of them are shown in booking order"
        )
        self.failed.emit()

    def _show(self, rows: array[int]) -> None:
        self._searching = False
        self._arranging = None
        if len(rows) == len(self._order):
            self.layoutAboutToBeChanged.emit()
            self._order = rows
            self.layoutChanged.emit()
        else:
            self.beginResetModel()
            self._order = rows
            self.endResetModel()
        if self._pending and self._sort is None:  # rows that arrived meanwhile
            self._unrevealed.extend(self._pending)
            self._pending = array("I")
        eager, self._place_all = self._place_all, False
        self._show_waiting(eager=eager)
