"""The statement table model: a million rows, held as columns, stay smooth.

The records live in `StatementColumns`; a row's cells are formatted when the view asks for
them (only the rows on screen). The rows shown are an array of row numbers: searching and
sorting compute a new one in slices (`SlicedWork`) between which the window keeps painting,
and no proxy model is involved. Rows that arrive while a sort or search is being worked out,
or into a sorted table, wait in ``_pending`` and are placed when the work is done.
"""

from __future__ import annotations

import bisect
import datetime as dt
from array import array
from collections.abc import Callable, Generator, Iterator
from functools import partial
from itertools import chain, pairwise
from typing import TYPE_CHECKING, Any, NamedTuple

from PySide6.QtCore import QModelIndex, Qt, Signal

from app.api.banking.columns import StatementColumns, TextColumn
from app.ui.common import forked
from app.ui.common.formatting import money_text
from app.ui.common.sliced import WAITING, SlicedWork
from app.ui.common.table_model import Index, ReadOnlyTableModel
from app.ui.statements.export import export_chunks
from app.ui.statements.search import Search

if TYPE_CHECKING:
    from app.api.banking import StatementRecord

COLUMNS = (
    "Date",
    "Type",
    "Amount",
    "Currency",
    "Description",
    "Counterparty",
    "Counterparty account",
    "Reference",
    "Balance after",
)
DATE, TYPE, AMOUNT, CURRENCY, DESCRIPTION, COUNTERPARTY, ACCOUNT, REFERENCE, BALANCE = range(
    len(COLUMNS)
)
RecordRole = Qt.ItemDataRole.UserRole + 1
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
_STEP = 8192  # rows between two looks at the clock
_RUN = 16384  # rows sorted in one go (about 12 ms); the runs are then merged a step at a time
_BOUNDS_STEP = 131072  # values whose least and greatest are found in one go
_FORK_AT = 100_000  # rows from which a forked copy sorts (app.ui.common.forked), where it can
_CUTS = 16  # keys sampled from each sorted run to cut the merge into parts
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
        self._place_all = False  # every waiting row is to be placed once the work is done
        self._formatted: dict[int, tuple[str, ...]] = {}  # the rows lately shown
        self._work = SlicedWork(self)
        self._work.started.connect(self.working)
        self._work.finished.connect(self.settled)

    # -- loading

    def clear(self) -> None:
        self._work.stop()
        self._searching = self._place_all = False
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

    def export_parts(self, count: int) -> list[Callable[[], Iterator[tuple[str, ...]]]]:
        """`export_rows` cut into ``count`` parts that follow each other, each made when
        called (in a forked copy: app.ui.common.csv_file.write_csv_in_copies)."""
        data, order = self._data, array("I", self._order)
        cuts = [len(order) * part // count for part in range(count + 1)]
        return [partial(_exported_rows, data, order[low:high]) for low, high in pairwise(cuts)]

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
        self._sort = None if column < 0 else (column, order)
        self._arrange(search_again=False)

    # -- search

    def set_search(self, text: str) -> None:
        self._search = Search(self._data, text)
        self._arrange(search_again=True)

    # -- the work

    def _arrange(self, *, search_again: bool) -> None:
        """Work out the rows shown (searched again, or the rows shown and waiting) in the
        order asked for; rows arriving meanwhile wait."""
        waiting, self._unrevealed = self._unrevealed, array("I")
        self._pending = waiting + self._pending  # in the work, never told to the view
        # a search still being worked out is worked out again, with the new order
        search_again = search_again or self._searching
        self._searching = search_again
        loaded = len(self._data)
        rows = None if search_again else self._order + self._pending
        self._pending = array("I")
        what = "Searching…" if search_again else "Sorting…"
        self._work.start(what, self._rows_in_order(rows, loaded), self._show)

    def _rows_in_order(self, rows: array[int] | None, loaded: int) -> Generator[Any, None, Any]:
        if rows is None:
            rows = array("I")
            search = self._search
            for low in range(0, loaded, _STEP):
                rows.extend(search.rows(low, min(low + _STEP, loaded)))
                yield
            if self._sort is None:
                return rows  # the search keeps booking order
        column, order = self._sort or (-1, Qt.SortOrder.AscendingOrder)
        descending = order == Qt.SortOrder.DescendingOrder
        if forked.AVAILABLE and len(rows) >= _FORK_AT:
            in_copy = yield from _sorted_in_copy(self._data, rows, column, descending)
            if in_copy is not None:
                return in_copy
        bounds = yield from _bounds(self._data, column)
        sort_keys = _sort_keys(self._data, column, descending, bounds)
        return (yield from _sorted(rows, sort_keys, descending))

    def _show(self, rows: array[int]) -> None:
        self._searching = False
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


class SortKeys(NamedTuple):
    keys_of: Callable[[array[int]], list[Any]]  # each row's key, the row within it
    rows_of: Callable[[list[Any]], list[int]]  # the rows back from their keys
    every_value: Callable[[], list[Any]]  # every row's value alone, in row order


def _sorted_in_copy(
    data: StatementColumns, rows: array[int], column: int, descending: bool
) -> Generator[object, None, array[int] | None]:
    """The rows in order, sorted in one call by a forked copy of the process (app.ui.common.forked)
    while the window waits and paints: twice as fast as the slices and their merge, and no
    stall. None when the copy failed: the rows are then sorted here."""

    def work(_say: Callable[[bytes], None]) -> bytes:
        bounds = _to_the_end(_bounds(data, column))  # no window to keep painting here
        values = _sort_keys(data, column, descending, bounds).every_value()
        # a stable sort of the rows in booking order: equal values keep it, either way
        ordered = sorted(sorted(rows), key=values.__getitem__, reverse=descending)
        return array("I", ordered).tobytes()

    try:
        copy = forked.Forked(work)
    except OSError:  # no process or pipe to be had (a limit reached): sorted here
        return None
    try:
        while not copy.poll():
            yield WAITING
    finally:
        copy.cancel()  # stopped (a new sort, a new load): the copy is ended, not waited for
    written = copy.result()
    result = array("I")
    if written is None or len(written) != result.itemsize * len(rows):
        return None
    result.frombytes(written)
    return result


def _to_the_end(work: Generator[Any, None, Any]) -> Any:
    """What sliced work returns, run to its end at once."""
    while True:
        try:
            next(work)
        except StopIteration as stop:
            return stop.value


def _bounds(data: StatementColumns, column: int) -> Generator[None, None, tuple[int, int]]:
    """The least and the greatest of the amount or balance column sorted by, and 0 (both 0
    for another column), a part a step: min() and max() over a million values at once held
    the window some 30 ms."""
    low = high = 0
    if column not in (AMOUNT, BALANCE):
        return low, high
    values = data.amounts if column == AMOUNT else data.balances
    for start in range(0, len(values), _BOUNDS_STEP):
        part = values[start : start + _BOUNDS_STEP]
        low, high = min(low, min(part)), max(high, max(part))
        yield
    return low, high


def _sort_keys(
    data: StatementColumns, column: int, descending: bool, bounds: tuple[int, int]
) -> SortKeys:
    """How to make the sort keys of some rows, and how to read the rows back from keys. A
    key ends with the row (from the end when descending, as the result is then reversed), so
    equal values keep their booking order either way. Integer keys are kept as small as the
    column's values allow: small integers compare fastest. ``bounds``: the least and the
    greatest of the amount or balance column sorted by (`_bounds`)."""
    bits = max(len(data), 1).bit_length()
    last = (1 << bits) - 1
    flip = last if descending else 0

    def ints(
        primaries: Callable[[array[int]], list[int]], every: Callable[[], list[int]]
    ) -> SortKeys:
        def keys(rows: array[int]) -> list[Any]:
            return [
                (primary << bits) | (row ^ flip)
                for primary, row in zip(primaries(rows), rows, strict=True)
            ]

        def rows_of(keys: list[int]) -> list[int]:
            if not flip:
                return [key & last for key in keys]
            return [(key & last) ^ flip for key in keys]

        return SortKeys(keys, rows_of, every)

    def texts(texts: TextColumn) -> SortKeys:
        text = texts.__getitem__

        # one string a row, the text then the row: a million strings give the collector
        # nothing to walk, where a million tuples would (NUL sorts before any letter, so a
        # text sorts before the longer texts it begins)
        def keys(rows: array[int]) -> list[Any]:
            return [f"{text(row).casefold()}\0{row ^ flip:08x}" for row in rows]

        def rows_of(keys: list[str]) -> list[int]:
            return [int(key[-8:], 16) ^ flip for key in keys]

        def every() -> list[Any]:
            return [value.casefold() for value in texts.texts_of(array("I", range(len(data))))]

        return SortKeys(keys, rows_of, every)

    def column_of(values: Any) -> Callable[[array[int]], list[int]]:
        return lambda rows: [values[row] for row in rows]

    if column < 0:
        return ints(lambda rows: [0] * len(rows), lambda: [0] * len(data))
    if column == DATE:
        return ints(column_of(data.days), data.days.tolist)
    if column in (AMOUNT, BALANCE):
        # amounts of different currencies are not comparable: by currency, then amount
        codes = data.currencies.codes
        rank = _ranks(data.currencies.values, casefold=False)
        if column == AMOUNT:  # the amounts are unsigned: credits above, debits below
            top = bounds[1]
            low, span = -top, 2 * top + 1
        else:
            low, span = bounds[0], bounds[1] - bounds[0] + 1
        place = [code_rank * span - low for code_rank in rank]  # a currency's first key

        def amounts(rows: array[int]) -> list[int]:
            amounts, credits = data.amounts, data.credits
            return [
                place[codes[row]] + (amounts[row] if credits[row] else -amounts[row])
                for row in rows
            ]

        def balances(rows: array[int]) -> list[int]:
            return [place[codes[row]] + data.balances[row] for row in rows]

        # every row's, the columns zipped: a third of the time of a look-up by row
        def every_amount() -> list[int]:
            return [
                place[code] + (amount if credit else -amount)
                for amount, credit, code in zip(data.amounts, data.credits, codes, strict=True)
            ]

        def every_balance() -> list[int]:
            return [
                place[code] + balance for balance, code in zip(data.balances, codes, strict=True)
            ]

        if column == AMOUNT:
            return ints(amounts, every_amount)
        return ints(balances, every_balance)
    dictionaries = {
        TYPE: data.types,
        CURRENCY: data.currencies,
        COUNTERPARTY: data.counterparty_names,
        ACCOUNT: data.counterparty_accounts,
    }
    if column in dictionaries:
        dictionary = dictionaries[column]
        rank = _ranks(dictionary.values, casefold=True)
        codes = dictionary.codes
        return ints(
            lambda rows: [rank[codes[row]] for row in rows],
            lambda: list(map(rank.__getitem__, codes)),
        )
    return texts({DESCRIPTION: data.descriptions, REFERENCE: data.references}[column])


def _ranks(values: list[str | None], *, casefold: bool) -> list[int]:
    """Each dictionary code's place among the values in text order."""
    ordered = sorted(
        range(len(values)),
        key=lambda code: (values[code] or "").casefold() if casefold else values[code] or "",
    )
    rank = [0] * len(values)
    for place, code in enumerate(ordered):
        rank[code] = place
    return rank


def _sorted(
    rows: array[int], sort_keys: SortKeys, descending: bool
) -> Generator[None, None, array[int]]:
    """The rows in key order: runs sorted one at a time, then merged a part at a time. The
    parts are cut at keys sampled from the runs, so that each part is the keys between two
    cuts from every run, which one sort (merging sorted runs is what it does fastest) puts
    in order; the parts follow each other. A merge a key at a time took three times longer."""
    keys_of, rows_of = sort_keys.keys_of, sort_keys.rows_of
    runs = []
    for low in range(0, len(rows), _RUN):
        run: list[Any] = []
        for start in range(low, min(low + _RUN, len(rows)), _STEP):
            run += keys_of(rows[start : min(start + _STEP, low + _RUN)])
            yield
        run.sort()
        runs.append(run)
        yield
    sample = sorted(run[len(run) * i // _CUTS] for run in runs for i in range(1, _CUTS))
    # parts of about a quarter of a run: a part's sort and its rows read back are a step each, so
    # no step of the merge takes much longer than a run's own sort
    parts = max(4 * len(runs), 1)
    cuts = [sample[len(sample) * i // parts] for i in range(1, parts)] if sample else []
    bounds = [[0, *(bisect.bisect_left(run, cut) for cut in cuts), len(run)] for run in runs]
    result = array("I")
    for part in range(parts):
        keys: list[Any] = []
        for run, edges in zip(runs, bounds, strict=True):
            keys += run[edges[part] : edges[part + 1]]
        keys.sort()
        yield
        result.extend(rows_of(keys))
        yield
    while runs:  # a run at a time: a million keys freed at once would stall the window
        runs.pop()
        yield
    if descending:
        result.reverse()
    return result
