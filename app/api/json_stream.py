"""Splitting a JSON array into its items while it arrives, so a big answer is parsed in
small steps between which the GUI keeps running."""

from __future__ import annotations

import codecs
import json
from typing import Any

_WHITESPACE = " \t\n\r"


class JsonStreamError(ValueError):
    """The stream is not a JSON array, or it ended before the array did."""


class JsonArrayStream:
    def __init__(self) -> None:
        self._decode = codecs.getincrementaldecoder("utf-8")()
        self._decoder = json.JSONDecoder()
        self._buffer = ""
        self._state = "start"  # start, first, item, after, end
        self.count = 0

    def feed(self, chunk: bytes) -> list[Any]:
        """The items completed by this chunk, in order."""
        try:
            self._buffer += self._decode.decode(chunk)
        except UnicodeDecodeError as exc:
            raise JsonStreamError(f"not UTF-8: {exc}") from None
        return self._drain(final=False)

    def finish(self) -> list[Any]:
        """The last items; raises when the array is incomplete or followed by more."""
        try:
            self._buffer += self._decode.decode(b"", final=True)
        except UnicodeDecodeError as exc:
            raise JsonStreamError(f"not UTF-8: {exc}") from None
        items = self._drain(final=True)
        if self._state != "end":
            raise JsonStreamError(f"the array ended early, after {self.count} items")
        return items

    def _drain(self, *, final: bool) -> list[Any]:
        buffer = self._buffer
        size = len(buffer)
        position = 0
        items: list[Any] = []
        while True:
            while position < size and buffer[position] in _WHITESPACE:
                position += 1
            if position >= size:
                break
            char = buffer[position]
            if self._state == "start":
                if char != "[":
                    raise JsonStreamError(f"expected a JSON array, found {char!r}")
                self._state = "first"
                position += 1
            elif self._state in ("first", "after") and char == "]":
                self._state = "end"
                position += 1
            elif self._state == "after":
                if char != ",":
                    raise JsonStreamError(f"expected ',' or ']' after item {self.count}")
                self._state = "item"
                position += 1
            elif self._state == "end":
                raise JsonStreamError("more data after the end of the array")
            else:
                try:
                    item, end = self._decoder.raw_decode(buffer, position)
                except json.JSONDecodeError as exc:
                    if final:
                        raise JsonStreamError(f"item {self.count + 1}: {exc}") from None
                    break  # most likely cut by the chunk boundary: wait for more
                if end >= size and not final:
                    break  # a number may go on in the next chunk
                items.append(item)
                self.count += 1
                self._state = "after"
                position = end
        self._buffer = buffer[position:]
        return items
