"""Free text of a statement — ids, descriptions, references — kept once: each piece's values
joined into one string, with the offset where each value starts (app.api.banking.columns)."""

from __future__ import annotations

import bisect
import sys
from array import array
from collections.abc import Iterator, Sequence
from itertools import accumulate, pairwise
from typing import Any

Prepared = tuple[str, "array[int]", frozenset[int]]  # a piece's text, offsets and None rows


class Unplain(Exception):
    """A value the column-by-column path does not take: the record model decides."""


class TextColumn:
    """Free text kept once: each piece's values joined into one string, with the offset where
    each value starts (and one past the last). None reads as an empty text; `value` tells it
    from one, by the rows of each piece that held None."""

    def __init__(self) -> None:
        self._texts: list[str] = []
        self._offsets: list[array[int]] = []
        self._nones: list[frozenset[int]] = []  # per piece, its rows (from 0) that held None
        self._firsts = array("q")  # the first row of each piece
        # each row's piece: looked up by row, where a bisect of the firsts cost a million
        # rows in the order of a sort (an export) seconds
        self._piece_of = array("H")
        self._rows = 0
        self.held = 0  # bytes of the texts and their offsets (a text of one emoji: 4 a letter)

    @staticmethod
    def prepare(values: Sequence[Any], *, nullable: bool) -> Prepared:
        nones: frozenset[int] = frozenset()
        try:
            text = "".join(values)
        except TypeError:  # not all strings: a None, where none may be, is read as ""
            if not nullable:
                raise Unplain from None
            nones = frozenset(at for at, value in enumerate(values) if value is None)
            values = ["" if value is None else value for value in values]
            try:
                text = "".join(values)
            except TypeError:
                raise Unplain from None
        # 4-byte offsets: half the memory, and made in half the time, of 8-byte ones
        typecode = "I" if len(text) < 1 << 32 else "q"
        return text, array(typecode, accumulate(map(len, values), initial=0)), nones

    def append(self, prepared: Prepared) -> None:
        text, offsets, nones = prepared
        piece = len(self._texts)
        if piece > 0xFFFF and self._piece_of.typecode == "H":
            self._piece_of = array("I", self._piece_of)
        self._firsts.append(self._rows)
        self._texts.append(text)
        self._offsets.append(offsets)
        self._nones.append(nones)
        self._piece_of += array(self._piece_of.typecode, [piece]) * (len(offsets) - 1)
        self._rows += len(offsets) - 1
        self.held += sys.getsizeof(text) + offsets.itemsize * len(offsets)

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
        offsets = self._offsets[piece]
        at = row - self._firsts[piece]
        return self._texts[piece][offsets[at] : offsets[at + 1]]

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
                end = min(high, self._firsts[piece + 1] if piece + 1 < len(self._firsts) else high)
                text, offsets = self._texts[piece], self._offsets[piece]
                cuts = offsets[low - first : end - first + 1]
                found += [text[start:stop] for start, stop in pairwise(cuts)]
                low = end
            return found
        piece_of, firsts, texts, all_offsets = (
            self._piece_of,
            self._firsts,
            self._texts,
            self._offsets,
        )
        for row in rows:  # in any order (a sorted table's)
            piece = piece_of[row]
            offsets = all_offsets[piece]
            at = row - firsts[piece]
            found.append(texts[piece][offsets[at] : offsets[at + 1]])
        return found

    def rows_containing(self, needle: str, low: int, high: int) -> Iterator[int]:
        """The rows in low..high-1 whose text contains the (lower-case, non-empty) needle."""
        first_piece = max(bisect.bisect_right(self._firsts, low) - 1, 0)
        for piece in range(first_piece, len(self._texts)):
            first = self._firsts[piece]
            if first >= high:
                return
            text, offsets = self._texts[piece], self._offsets[piece]
            lowered = text.lower()
            if len(lowered) != len(text):  # a letter whose lower case is longer: row by row
                for at in range(len(offsets) - 1):
                    row = first + at
                    if low <= row < high and needle in text[offsets[at] : offsets[at + 1]].lower():
                        yield row
                continue
            found = lowered.find(needle)
            while found >= 0:
                at = bisect.bisect_right(offsets, found) - 1
                end = offsets[at + 1]
                if found + len(needle) <= end:  # within one value, not across two
                    row = first + at
                    if row >= high:
                        break
                    if row >= low:
                        yield row
                    found = lowered.find(needle, end)
                else:
                    found = lowered.find(needle, found + 1)
