"""The statement table model: 100,000 rows stay smooth.

A row is formatted once, the first time it is needed (shown, searched or exported), and kept;
data() then only looks strings up. Sorting and searching reorder a list of row numbers, never
the records, and no proxy model is involved.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, Qt

from app.core.money import plain_decimal
from app.ui.common.formatting import money_text
from app.ui.common.table_model import Index, ReadOnlyTableModel

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


def signed_amount(record: StatementRecord) -> int:
    return record["amount"] if record["direction"] == "credit" else -record["amount"]


def export_cells(record: StatementRecord) -> tuple[str, ...]:
    """A row as a spreadsheet reads it: numbers as plain decimals, text as it is."""
    currency = record["currency"]
    return (
        record["booking_date"].isoformat(),
        record["type"],
        plain_decimal(signed_amount(record), currency),
        currency,
        record["description"],
        record.get("counterparty_name") or "",
        record.get("counterparty_account") or "",
        record.get("reference") or "",
        plain_decimal(record["balance_after"], currency),
    )


def format_cells(record: StatementRecord) -> tuple[str, ...]:
    currency = record["currency"]
    return (
        record["booking_date"].isoformat(),
        record["type"],
        money_text(signed_amount(record), currency),
        currency,
        record["description"],
        record.get("counterparty_name") or "",
        record.get("counterparty_account") or "",
        record.get("reference") or "",
        money_text(record["balance_after"], currency),
    )


class StatementModel(ReadOnlyTableModel):
    columns = COLUMNS

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._records: list[StatementRecord] = []
        self._cells: list[tuple[str, ...] | None] = []  # formatted on first need
        self._order: list[int] = []  # the rows shown, as positions in _records
        self._haystack: list[str] | None = None  # lower-cased row text, built on first search
        self._search = ""
        self._sort: tuple[int, Qt.SortOrder] | None = None

    # -- loading

    def clear(self) -> None:
        self.beginResetModel()
        self._records, self._cells, self._order = [], [], []
        # an active search keeps filtering the rows of the next load
        self._haystack = [] if self._search else None
        self._sort = None
        self.endResetModel()

    def append_batch(self, records: list[StatementRecord]) -> None:
        start = len(self._records)
        self._records.extend(records)
        self._cells.extend([None] * len(records))
        if self._haystack is not None:
            self._haystack.extend(
                "\t".join(self._row(i)).lower() for i in range(start, len(self._records))
            )
        shown = [i for i in range(start, len(self._records)) if self._matches(i)]
        if not shown:
            return
        if self._sort is not None:
            # rows arriving into a sorted table: reorder once, as a layout change
            self.layoutAboutToBeChanged.emit()
            self._order.extend(shown)
            self._apply_sort()
            self.layoutChanged.emit()
            return
        first = len(self._order)
        self.beginInsertRows(QModelIndex(), first, first + len(shown) - 1)
        self._order.extend(shown)
        self.endInsertRows()

    @property
    def loaded(self) -> int:
        return len(self._records)

    def records(self) -> list[StatementRecord]:
        return self._records

    def visible_rows(self) -> Iterator[tuple[str, ...]]:
        """The rows as shown: searched and sorted."""
        return (self._row(i) for i in self._order)

    def export_rows(self) -> Iterator[tuple[str, ...]]:
        """The rows shown, in their order, as a spreadsheet reads them."""
        records = self._records
        return (export_cells(records[i]) for i in list(self._order))

    def _row(self, position: int) -> tuple[str, ...]:
        cells = self._cells[position]
        if cells is None:
            cells = self._cells[position] = format_cells(self._records[position])
        return cells

    # -- Qt

    def row_count(self) -> int:
        return len(self._order)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self._order[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._row(row)[index.column()]
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() in (AMOUNT, BALANCE):
            return _RIGHT
        if role == RecordRole:
            return self._records[row]
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort by a column; column -1 (no sort indicator) is the booking order again."""
        self.layoutAboutToBeChanged.emit()
        if column < 0:
            self._sort = None
            self._order.sort()
        else:
            self._sort = (column, order)
            self._apply_sort()
        self.layoutChanged.emit()

    def _apply_sort(self) -> None:
        assert self._sort is not None
        column, order = self._sort
        key = self._sort_key(column)
        # list.sort is stable: equal keys keep their booking order
        self._order.sort(key=key, reverse=order == Qt.SortOrder.DescendingOrder)

    def _sort_key(self, column: int) -> Any:
        records = self._records
        # amounts of different currencies are not comparable: by currency, then amount
        if column == AMOUNT:
            return lambda i: (records[i]["currency"], signed_amount(records[i]))
        if column == BALANCE:
            return lambda i: (records[i]["currency"], records[i]["balance_after"])
        if column == DATE:
            return lambda i: (records[i]["booking_date"], i)
        row = self._row
        return lambda i: row(i)[column].casefold()

    # -- search

    def set_search(self, text: str) -> None:
        self.beginResetModel()
        self._search = text.strip().lower()
        if self._search and self._haystack is None:
            self._haystack = ["\t".join(self._row(i)).lower() for i in range(len(self._records))]
        self._order = [i for i in range(len(self._records)) if self._matches(i)]
        if self._sort is not None:
            self._apply_sort()
        self.endResetModel()

    def _matches(self, row: int) -> bool:
        if not self._search:
            return True
        assert self._haystack is not None
        return self._search in self._haystack[row]


def daily_balances(records: Iterable[StatementRecord], currency: str) -> list[tuple[dt.date, int]]:
    """The balance at the end of each day with a movement, for the chart."""
    by_day: dict[dt.date, int] = {}
    for record in records:
        if record["currency"] == currency:
            by_day[record["booking_date"]] = record["balance_after"]
    return sorted(by_day.items())
