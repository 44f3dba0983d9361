"""The order of a statement's rows by a column: worked out by forked copies of the process
(app.ui.common.forked) while the window paints, or here in slices between its paints.

From `FORK_AT` rows, where forking is possible, the copies sort: for a `packable` column
(app.ui.statements.packed_keys) two copies each make the keys of half the rows into memory
they share, then each sorts a range of the keys, side by side; any other column is sorted by
one copy in one call. Below that, or when no copy can be had, the
rows are sorted here: runs sorted one at a time, then merged a part at a time.
"""

from __future__ import annotations

import bisect
import mmap
import os
from array import array
from collections.abc import Callable, Generator
from functools import partial
from typing import Any, NamedTuple

from app.api.banking.columns import StatementColumns
from app.api.banking.text_column import TextColumn
from app.ui.common import forked
from app.ui.common.sliced import WAITING
from app.ui.statements.packed_keys import (
    dictionary_of,
    ordered_part,
    packable,
    packed_key_bytes,
    text_ranks,
)
from app.ui.statements.table_columns import (
    AMOUNT,
    BALANCE,
    DATE,
    DESCRIPTION,
    REFERENCE,
)

STEP = 8192  # rows between two looks at the clock
RUN = 16384  # rows sorted in one go (about 12 ms); the runs are then merged a step at a time
FORK_AT = 100_000  # rows from which forked copies sort, where they can
# copies sorting a packable column side by side: two where there are two cores to run on
PARTS = 2 if forked.AVAILABLE and len(os.sched_getaffinity(0)) > 1 else 1
_CUTS = 16  # keys sampled from each sorted run to cut the merge into parts
_NUL = "\0"
_NUL_IN_TEXT = "\0\U0010ffff"


def rows_in_order(
    data: StatementColumns, rows: array[int], column: int, descending: bool
) -> Generator[object, None, array[int]]:
    """The rows sorted by the column (-1: booking order), a step at a time: stable, so
    equal values keep their booking order either way."""
    if forked.AVAILABLE and len(rows) >= FORK_AT:
        in_copies = yield from _sorted_in_copies(data, rows, column, descending)
        if in_copies is not None:
            return in_copies
    return (yield from _sorted(rows, sort_keys(data, column, descending), descending))


def _sorted_in_copies(
    data: StatementColumns, rows: array[int], column: int, descending: bool
) -> Generator[object, None, array[int] | None]:
    """The rows in order, worked out by forked copies while the window waits and paints:
    no stall, and a packable column in less time than Python's sort takes over the column's
    values alone. None when a copy failed: the rows are then sorted here.

    The copies write the rows in order into memory shared with the window, each part at its
    place, and the window takes them at once when the copies are done: through a pipe, the
    window read a megabyte between two of its paints, and the copies waited on it."""
    if not rows:
        return array("I")
    try:
        shared = mmap.mmap(-1, 4 * len(rows))  # anonymous and shared: forked copies write it
    except OSError:  # no memory to map: sorted here
        return None
    try:
        return (yield from _sorted_into(shared, data, rows, column, descending))
    finally:
        shared.close()


def _sorted_into(
    shared: mmap.mmap, data: StatementColumns, rows: array[int], column: int, descending: bool
) -> Generator[object, None, array[int] | None]:
    work: Callable[[Callable[[bytes], None]], bytes]
    if packable(data, column):
        parts = PARTS
        chosen = None if len(rows) == len(data) else rows  # None: all the rows, in some order

        def by_keys(_say: Callable[[bytes], None]) -> bytes:
            # the other parts by copies of this copy (the window forks once, for a shorter
            # pause), each making the keys of its run of rows into memory they all share, and
            # sorting its range of them once all are made
            keys = _SharedKeys(len(data), parts)
            others = [
                forked.Forked(partial(_part, shared, keys, data, column, descending, chosen, part))
                for part in range(1, parts)
            ]
            _part(shared, keys, data, column, descending, chosen, 0, None)
            if any(other.wait() is None for other in others):
                raise RuntimeError("a part of the sort failed")  # the window sorts
            return b""

        work = by_keys
    else:

        def one_call(_say: Callable[[bytes], None]) -> bytes:
            values = sort_keys(data, column, descending).every_value()
            # a stable sort of the rows in booking order: equal values keep it, either way
            ordered = sorted(sorted(rows), key=values.__getitem__, reverse=descending)
            shared[:] = array("I", ordered).tobytes()
            return b""

        work = one_call
    try:
        copy = forked.Forked(work)
    except OSError:  # no process or pipe to be had (a limit reached): sorted here
        return None
    try:
        while not copy.poll():
            yield WAITING
    finally:
        copy.cancel()  # stopped (a new sort, a new load): the copy is ended, not waited for
    if copy.result() is None:
        return None
    result = array("I")
    result.frombytes(shared)
    return result


class _SharedKeys:
    """Every row's packed key, made a run of rows by each part of a sort (copies forked after
    this is made): half the time with two copies of what one took for all the rows."""

    def __init__(self, count: int, parts: int) -> None:
        self.count, self.parts = count, parts
        self.area = mmap.mmap(-1, max(8 * count, 1))  # anonymous and shared, as each part's
        self.made = mmap.mmap(-1, parts)  # a part's flag, set once its run is in ``area``
        # never written to: read until every part has closed its end, done or ended
        self._waiting, self._writing = os.pipe()

    def run_of(self, part: int) -> range:
        return range(self.count * part // self.parts, self.count * (part + 1) // self.parts)

    def put(self, part: int, raw: bytes | bytearray) -> None:
        run = self.run_of(part)
        self.area[8 * run.start : 8 * run.stop] = raw
        self.made[part] = 1

    def every(self) -> array[float]:
        """Every row's key, once every part has made its run (this part's made already)."""
        os.close(self._writing)
        while os.read(self._waiting, 1):  # nothing comes but the end
            pass
        os.close(self._waiting)
        if self.made[:] != b"\x01" * self.parts:  # a part ended without making its run
            raise RuntimeError("a part of the sort ended before its keys were made")
        keys = array("d")
        with memoryview(self.area) as view:  # released before the area can be closed
            keys.frombytes(view[: 8 * self.count])
        return keys


def _part(
    shared: mmap.mmap,
    keys: _SharedKeys,
    data: StatementColumns,
    column: int,
    descending: bool,
    rows: array[int] | None,
    part: int,
    _say: object,
) -> bytes:
    """One part of a sort by packed keys, as a copy's work: the keys of its run of rows made,
    then its range of keys sorted, its rows written at their place."""
    keys.put(part, packed_key_bytes(data, column, descending, keys.run_of(part)))
    start, found = ordered_part(keys.every(), rows, part, keys.parts)
    shared[4 * start : 4 * start + len(found)] = found
    return b""


class SortKeys(NamedTuple):
    keys_of: Callable[[array[int]], list[Any]]  # each row's key, the row within it
    rows_of: Callable[[list[Any]], list[int]]  # the rows back from their keys
    every_value: Callable[[], list[Any]]  # every row's value alone, in row order


def sort_keys(data: StatementColumns, column: int, descending: bool) -> SortKeys:
    """How to make the sort keys of some rows, and how to read the rows back from keys. A
    key ends with the row (from the end when descending, as the result is then reversed), so
    equal values keep their booking order either way. Integer keys are kept as small as the
    column's values allow: small integers compare fastest."""
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
        # text sorts before the longer texts it begins; a NUL of the text itself is followed
        # by the greatest character, so that it sorts after the row's digits)
        def keys(rows: array[int]) -> list[Any]:
            return [
                f"{text(row).casefold().replace(_NUL, _NUL_IN_TEXT)}\0{row ^ flip:08x}"
                for row in rows
            ]

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
        rank = text_ranks(data.currencies.values, casefold=False)
        if column == AMOUNT:  # the amounts are unsigned: credits above, debits below
            top = data.amounts_high
            low, span = -top, 2 * top + 1
        else:
            low, span = data.balances_low, data.balances_high - data.balances_low + 1
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
    dictionary = dictionary_of(data, column)
    if dictionary is not None:
        rank = text_ranks(dictionary.values, casefold=True)
        codes = dictionary.codes
        return ints(
            lambda rows: [rank[codes[row]] for row in rows],
            lambda: list(map(rank.__getitem__, codes)),
        )
    return texts({DESCRIPTION: data.descriptions, REFERENCE: data.references}[column])


def _sorted(
    rows: array[int], sort_keys: SortKeys, descending: bool
) -> Generator[None, None, array[int]]:
    """The rows in key order: runs sorted one at a time, then merged a part at a time. The
    parts are cut at keys sampled from the runs, so that each part is the keys between two
    cuts from every run, which one sort (merging sorted runs is what it does fastest) puts
    in order; the parts follow each other. A merge a key at a time took three times longer."""
    keys_of, rows_of = sort_keys.keys_of, sort_keys.rows_of
    runs = []
    for low in range(0, len(rows), RUN):
        run: list[Any] = []
        for start in range(low, min(low + RUN, len(rows)), STEP):
            run += keys_of(rows[start : min(start + STEP, low + RUN)])
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
