"""Free text of a statement — ids, descriptions, references — kept once: each piece's values
joined into one string by a separator (app.api.banking.columns), where each value starts found
only when a row of the piece is first read by itself."""

from __future__ import annotations

import bisect
import sys
from array import array
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate, repeat
from operator import add
from typing import Any

# between a piece's values: NUL, which a text hardly ever holds (a piece with one in a value
# has its starts found at once, from the values themselves)
SEPARATOR = "\0"
_STARTS_BYTES = 4  # a row's start, once found


class Prepared:
    """A piece's values as the column keeps them."""

    __slots__ = ("nones", "rows", "starts", "text")

    def __init__(
        self, text: str, rows: int, starts: array[int] | None, nones: frozenset[int]
    ) -> None:
        self.text = text
        self.rows = rows
        self.starts = starts  # None: not found yet (no value holds the separator)
        self.nones = nones  # its rows (from 0) that held None


class Unplain(Exception):
    """A value the column-by-column path does not take: the record model decides."""


def _starts(lengths: Iterable[int], typecode: str) -> array[int]:
    """Where each value starts in the joined text, and where one more would (its length + 1)."""
    return array(typecode, accumulate(map(add, lengths, repeat(1)), initial=0))


class TextColumn:
    """Free text kept once: each piece's values joined into one string, a separator between
    them. Joining and checking that no value holds the separator are two passes in C; where
    each value starts is found (`_starts_of`) only when a row of the piece is first read by
    itself, mostly never for a long statement's pieces: a run of rows is the piece's text
    split, and a search counts the separators before what it finds. None reads as an empty
    text; `value` tells it from one, by the rows of each piece that held None."""

    def __init__(self) -> None:
        self._texts: list[str] = []
        self._starts: list[array[int] | None] = []
        self._nones: list[frozenset[int]] = []
        self._firsts = array("q")  # the first row of each piece
        # each row's piece: looked up by row, where a bisect of the firsts cost a million
        # rows in the order of a sort (an export) seconds
        self._piece_of = array("H")
        self._rows = 0
        # bytes of the texts and their starts, found or not (a text of one emoji: 4 a letter)
        self.held = 0

    @staticmethod
    def prepare(values: Sequence[Any], *, nullable: bool) -> Prepared:
        nones: frozenset[int] = frozenset()
        try:
            text = SEPARATOR.join(values)
        except TypeError:  # not all strings: a None, where none may be, is read as ""
            if not nullable:
                raise Unplain from None
            nones = frozenset(at for at, value in enumerate(values) if value is None)
            values = ["" if value is None else value for value in values]
            try:
                text = SEPARATOR.join(values)
            except TypeError:
                raise Unplain from None
        rows = len(values)
        if rows and text.count(SEPARATOR) == rows - 1:
            return Prepared(text, rows, None, nones)
        return Prepared(text, rows, _starts(map(len, values), _typecode(text)), nones)

    def append(self, prepared: Prepared) -> None:
        piece = len(self._texts)
        if piece > 0xFFFF and self._piece_of.typecode == "H":
            self._piece_of = array("I", self._piece_of)
        self._firsts.append(self._rows)
        self._texts.append(prepared.text)
        self._starts.append(prepared.starts)
        self._nones.append(prepared.nones)
        self._piece_of += array(self._piece_of.typecode, [piece]) * prepared.rows
        self._rows += prepared.rows
        self.held += sys.getsizeof(prepared.text) + _STARTS_BYTES * (prepared.rows + 1)

    def _starts_of(self, piece: int) -> array[int]:
        starts = self._starts[piece]
        if starts is None:  # no value holds the separator: the text split is the values
            text = self._texts[piece]
            starts = self._starts[piece] = _starts(map(len, text.split(SEPARATOR)), _typecode(text))
        return starts

    def find_starts(self) -> Iterator[None]:
        """Find where each value of every piece starts, yielding after each piece it found
        them for: before many rows are read one by one elsewhere (a sorted table's export,
        by forked copies, which would each find them again)."""
        for piece, starts in enumerate(self._starts):
            if starts is None:
                self._starts_of(piece)
                yield

    def value(self, row: int) -> str | None:
        """The row's text, or None where None was stored."""
        piece = self._piece_of[row]
        if row - self._firsts[piece] in self._nones[piece]:
            return None
        return self[row]

    def __getitem__(self, row: int) -> str:
        if not 0 <= row < self._rows:
            raise IndexError(row)
        piece = self._piece_of[row]
        starts = self._starts_of(piece)
        at = row - self._firsts[piece]
        return self._texts[piece][starts[at] : starts[at + 1] - 1]

    def texts_of(self, rows: array[int]) -> list[str]:
        """The texts of many rows (None as an empty text): a run of consecutive rows is cut
        from its piece's string without looking the piece up for each row."""
        found: list[str] = []
        if not rows:
            return found
        low, high = rows[0], rows[-1] + 1
        if high - low == len(rows) and rows == array(rows.typecode, range(low, high)):
            while low < high:  # piece by piece
                piece = bisect.bisect_right(self._firsts, low) - 1
                first = self._firsts[piece]
                end = min(high, first + self._piece_rows(piece))
                text, starts = self._texts[piece], self._starts[piece]
                if starts is None:
                    found += text.split(SEPARATOR)[low - first : end - first]
                else:
                    found += [
                        text[starts[at] : starts[at + 1] - 1]
                        for at in range(low - first, end - first)
                    ]
                low = end
            return found
        piece_of, firsts, texts, all_starts, starts_of = (
            self._piece_of,
            self._firsts,
            self._texts,
            self._starts,
            self._starts_of,
        )
        for row in rows:  # in any order (a sorted table's)
            piece = piece_of[row]
            starts = all_starts[piece] or starts_of(piece)  # found ones are never empty
            at = row - firsts[piece]
            found.append(texts[piece][starts[at] : starts[at + 1] - 1])
        return found

    def rows_containing(self, needle: str, low: int, high: int) -> Iterator[int]:
        """The rows in low..high-1 whose text contains the (lower-case, non-empty) needle."""
        first_piece = max(bisect.bisect_right(self._firsts, low) - 1, 0)
        for piece in range(first_piece, len(self._texts)):
            first = self._firsts[piece]
            if first >= high:
                return
            text = self._texts[piece]
            lowered = text.lower()
            if len(lowered) != len(text) or SEPARATOR in needle:
                # a letter whose lower case is longer, or a needle that could run across two
                # values: row by row
                rows = range(max(low, first), min(high, first + self._piece_rows(piece)))
                texts = self.texts_of(array("q", rows))
                yield from (
                    row for row, value in zip(rows, texts, strict=True) if needle in value.lower()
                )
                continue
            yield from self._found_in(piece, lowered, needle, low, high)

    def _piece_rows(self, piece: int) -> int:
        following = self._firsts[piece + 1] if piece + 1 < len(self._firsts) else self._rows
        return following - self._firsts[piece]

    def _found_in(
        self, piece: int, lowered: str, needle: str, low: int, high: int
    ) -> Iterator[int]:
        """The rows of the piece holding the needle (which holds no separator), its text
        lowered letter for letter."""
        first, starts = self._firsts[piece], self._starts[piece]
        found = lowered.find(needle)
        counted, at = 0, 0  # the separators before ``counted``: the row at it
        while found >= 0:
            if starts is None:  # no value holds a separator: they mark where each ends
                at += lowered.count(SEPARATOR, counted, found)
                counted = found
                end = lowered.find(SEPARATOR, found + len(needle))
            else:
                at = bisect.bisect_right(starts, found) - 1
                end = starts[at + 1] - 1
                if found + len(needle) > end:  # across two values (a separator in one)
                    found = lowered.find(needle, found + 1)
                    continue
            row = first + at
            if row >= high:
                return
            if row >= low:
                yield row
            if end < 0:
                return
            found = lowered.find(needle, end)


def _typecode(text: str) -> str:
    # 4-byte starts: half the memory, and made in half the time, of 8-byte ones
    return "I" if len(text) < (1 << 32) - 1 else "q"
