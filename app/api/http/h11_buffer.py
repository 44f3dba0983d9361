"""h11's receive buffer, handing over what it holds whole instead of copying it twice.

An answer's body bytes pass through h11's buffer: each read is appended to it, and h11's reader
then extracts the body's bytes — by copying them once to see whether there are any, and again
to return them, before deleting them from the buffer. For a million-record statement (280
MB) that was 560 MB copied in vain, 3% of the load's instructions. Here, when all it holds is
asked for (a streamed answer's reads mostly are: a read is smaller than a chunk of the body),
the buffer hands over its bytes and starts a new one; otherwise it does as h11 does, and
what it answers is h11's answer to the same asks (tests/unit/api/test_h11_buffer.py).

The buffer is h11's own class, subclassed (h11 keeps it in a private module), for every h11
connection of the process once installed (the webhook receiver's too): installed only when
h11's connection makes its buffer from that class and the buffer keeps its bytes where this
expects them, so a later h11 that changed either is used as it is.
"""

from __future__ import annotations

from h11 import _connection as h11_connection
from h11._receivebuffer import ReceiveBuffer


class WholeReceiveBuffer(ReceiveBuffer):
    """h11's ReceiveBuffer; what it holds is handed over, not copied, when all is taken."""

    def _extract(self, count: int) -> bytearray:
        if count < len(self._data):
            return super()._extract(count)
        out, self._data = self._data, bytearray()
        self._next_line_search = 0
        self._multiple_lines_search = 0
        return out

    def maybe_extract_at_most(self, count: int) -> bytearray | None:
        if count <= 0:  # never asked by h11's readers: as h11 answers it
            return super().maybe_extract_at_most(count)
        if not self._data:
            return None
        return self._extract(count)


def install() -> bool:
    """Make h11's connections use `WholeReceiveBuffer`; whether they do."""
    made_by = getattr(h11_connection, "ReceiveBuffer", None)
    if made_by is WholeReceiveBuffer:
        return True
    expected = ("_data", "_next_line_search", "_multiple_lines_search")
    if made_by is not ReceiveBuffer or not all(hasattr(ReceiveBuffer(), n) for n in expected):
        return False
    h11_connection.ReceiveBuffer = WholeReceiveBuffer  # type: ignore[attr-defined]
    return True
