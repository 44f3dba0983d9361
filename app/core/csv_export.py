"""CSV export with spreadsheet-formula injection neutralised."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

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
