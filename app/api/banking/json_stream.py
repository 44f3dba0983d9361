"""A JSON array of objects cut into pieces of whole items while it arrives, for a statement of
a million records to be read as it comes. The array is cut where an object ends and a comma
follows; inside a string the same bytes can occur, and a piece cut there does not parse: only
then is it scanned exactly (strings skipped) to find the true end of its last item. Each byte
is looked at a bounded number of times, and no item may grow past ``record_bytes``, so a
hostile answer costs linear time and bounded memory."""

from __future__ import annotations

import re

WHITESPACE = b" \t\n\r"
_LOOK_BACK = 64  # bytes first searched before a comma for the "}" that ends an object
# a string (possibly cut off at the end), or a byte that opens, closes or separates items
# possessive: a long string is one step of the matcher, not a step (and stack entry) per byte
_TOKEN = re.compile(rb'"(?:[^"\\]++|\\.)*+(?:"|\Z)|[\[\]{},]', re.DOTALL)


class JsonStreamError(ValueError):
    """The stream is not a JSON array, it ended before the array did, or a record is too long."""


class ArrayEndUnclear(JsonStreamError):
    """The answer ends after a "]" that may end the array (then data follows it) or not (then
    the answer was cut off): the items before it tell (`StatementReader.ends_whole`)."""

    def __init__(self, items: bytes, after: bytes) -> None:
        super().__init__("the array ended early: the answer was cut off")
        self.items = items
        self.after = after


class JsonArraySplitter:
    """Cuts a JSON array of objects into pieces of items while it arrives (see the module).
    Each byte is looked at a bounded number of times however small the chunks come: the
    buffer grows in place and only bytes not yet scanned are searched for a cut."""

    def __init__(self, piece_size: int = 256 * 1024, record_bytes: int = 1024 * 1024) -> None:
        self.piece_size = piece_size
        self.record_bytes = record_bytes
        self._buffer = bytearray()
        self._opened = False
        self._cut = False  # a piece was cut off: an item must follow its comma
        self._scanned = 0  # the buffer before this was searched for cuts
        self._last = -1  # the last cut found so far: a comma after an object's "}"
        self._skipped = 0  # whitespace before the array

    def feed(self, chunk: bytes) -> list[bytes]:
        """Pieces completed by this chunk, each its items as a JSON array (the last comma left
        out)."""
        if self._opened and len(self._buffer) + len(chunk) >= self.piece_size:
            piece = self._cut_in(chunk)
            if piece is not None:
                return [piece]
        buffer = self._buffer
        buffer += chunk
        if not self._opened:
            start = len(buffer) - len(buffer.lstrip(WHITESPACE))
            if start == len(buffer):
                self._skipped += start
                if self._skipped > self.record_bytes:  # not read on until the time limit
                    raise JsonStreamError(
                        f"expected a JSON array, found {self._skipped:,} bytes of whitespace"
                    )
                buffer.clear()
                return []
            if buffer[start : start + 1] != b"[":
                found = bytes(buffer[start : start + 1])
                raise JsonStreamError(f"expected a JSON array, found {found!r}")
            del buffer[: start + 1]
            self._opened = True
        if len(buffer) < self.piece_size:
            return []
        self._scan()
        if self._last < 0:
            if len(buffer) > self.piece_size + self.record_bytes:
                raise JsonStreamError(f"no record ends within {self.record_bytes:,} bytes")
            return []
        cut = self._last
        with memoryview(buffer) as view:  # one copy, brackets and all: a slice would be two
            piece = b"".join((b"[", view[:cut], b"]"))
        del buffer[: cut + 1]
        self._scanned = max(self._scanned - cut - 1, 0)
        self._last = -1
        self._cut = True
        return [piece]

    def _cut_in(self, chunk: bytes) -> bytes | None:
        """The piece up to the chunk's last cut, with the buffer's bytes before it, copied once
        (added to the buffer first, the chunk's bytes were copied twice); the buffer then
        holds the rest of the chunk. The cut is found in the chunk alone, as `_scan` finds it:
        None (nothing done) when the chunk has none, or when one of its commas has only
        whitespace before it for as far as this looks, which `_scan` then tells."""
        end = len(chunk)
        while (comma := chunk.rfind(b",", 0, end)) >= 0:
            before = chunk[max(0, comma - _LOOK_BACK) : comma].rstrip(WHITESPACE)
            if not before:
                return None
            if before.endswith(b"}"):
                break
            end = comma
        else:
            return None
        with memoryview(chunk) as view:
            piece = b"".join((b"[", self._buffer, view[:comma], b"]"))
            self._buffer = bytearray(view[comma + 1 :])
        self._scanned = len(self._buffer)  # no cut after the last one
        self._last = -1
        self._cut = True
        return piece

    def _scan(self) -> None:
        """Search the bytes not yet scanned for cuts, from their end back: the first cut met
        is the last one, and normally it is found at once; bytes scanned are not scanned
        again."""
        buffer = self._buffer
        end = len(buffer)
        while (comma := buffer.rfind(b",", self._scanned, end)) >= 0:
            if _after_object(buffer, comma):
                self._last = comma
                break
            end = comma
        self._scanned = len(buffer)

    def finish(self) -> list[bytes]:
        """The last piece, as a JSON array as the others; raises when the array did not start
        or did not end."""
        if not self._opened:
            raise JsonStreamError("expected a JSON array, found nothing")
        rest = bytes(self._buffer).rstrip(WHITESPACE)
        if not rest.endswith(b"]"):
            end = rest.rfind(b"]")
            if end >= 0:  # the array's end, with something after it, or a "]" inside it
                raise ArrayEndUnclear(rest[:end], rest[end + 1 :])
            raise JsonStreamError("the array ended early: the answer was cut off")
        self._buffer.clear()
        if rest[:-1].strip(WHITESPACE):
            return [b"[" + rest]  # rest ends with the array's "]"
        if self._cut:
            raise JsonStreamError("a comma is not followed by an item")
        return []


def _after_object(buffer: bytearray, comma: int) -> bool:
    """Whether the last byte before the comma, whitespace aside, is a "}". The look-back
    doubles while it finds only whitespace: each comma is looked at once, so a long run of
    whitespace costs its length, never a refusal of a valid answer."""
    look = _LOOK_BACK
    while True:
        start = max(0, comma - look)
        before = buffer[start:comma].rstrip(WHITESPACE)
        if before or start == 0:
            return before.endswith(b"}")
        look *= 2


def join(first: bytes, second: bytes) -> bytes:
    """Two pieces as the bytes they were cut from (the cut is made at the comma itself)."""
    return b",".join((first, second))


def bracketed(items: bytes) -> bytes:
    """Items as the JSON array of them, copied once (chained + would copy them twice)."""
    return b"".join((b"[", items, b"]"))


def last_item_end(text: bytes) -> int:
    """The position of the last comma between two items of the array (strings skipped), or -1."""
    depth = 0
    last = -1
    for token in _TOKEN.finditer(text):
        byte = token.group()[:1]
        if byte in b"[{":
            depth += 1
        elif byte in b"]}":
            depth -= 1
        elif byte == b"," and depth == 0:
            last = token.start()
    return last
