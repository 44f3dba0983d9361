"""Cutting a JSON array of objects into pieces while it arrives, so a big answer is validated
in small steps (between which the GUI keeps running) by pydantic's own JSON parser.

A piece ends where an object ends and a comma follows. Inside a string the same bytes can
occur; such a piece does not parse, and the caller joins it to the next one (``join``), which
gives back the original bytes exactly because the cut is made at the comma itself.
"""

from __future__ import annotations

_WHITESPACE = b" \t\n\r"
_LOOK_BACK = 64  # bytes searched before a comma for the "}" that ends an object


class JsonStreamError(ValueError):
    """The stream is not a JSON array, or it ended before the array did."""


class JsonArraySplitter:
    def __init__(self, piece_size: int = 128 * 1024) -> None:
        self.piece_size = piece_size
        self._buffer = b""
        self._opened = False

    def feed(self, chunk: bytes) -> list[bytes]:
        """Pieces completed by this chunk: the items' bytes without brackets or the last comma."""
        self._buffer += chunk
        if not self._opened:
            stripped = self._buffer.lstrip(_WHITESPACE)
            if not stripped:
                return []
            if not stripped.startswith(b"["):
                raise JsonStreamError(f"expected a JSON array, found {stripped[:1]!r}")
            self._buffer = stripped[1:]
            self._opened = True
        if len(self._buffer) < self.piece_size:
            return []
        cut = self._last_cut()
        if cut < 0:
            return []
        piece, self._buffer = self._buffer[:cut], self._buffer[cut + 1 :]
        return [piece]

    def finish(self) -> list[bytes]:
        """The last piece; raises when the array did not start or did not end."""
        if not self._opened:
            raise JsonStreamError("expected a JSON array, found nothing")
        rest = self._buffer.rstrip(_WHITESPACE)
        if not rest.endswith(b"]"):
            raise JsonStreamError("the array ended early: the answer was cut off")
        self._buffer = b""
        piece = rest[:-1]
        return [piece] if piece.strip(_WHITESPACE) else []

    def _last_cut(self) -> int:
        """The position of the last comma that follows an object's closing brace, or -1."""
        buffer = self._buffer
        end = len(buffer)
        while True:
            comma = buffer.rfind(b",", 0, end)
            if comma < 0:
                return -1
            before = buffer[max(0, comma - _LOOK_BACK) : comma].rstrip(_WHITESPACE)
            if before.endswith(b"}"):
                return comma
            end = comma


def join(first: bytes, second: bytes) -> bytes:
    """Two pieces as the bytes they were cut from."""
    return first + b"," + second
