"""h11's receive buffer, handing over what it holds whole instead of copying it.

An answer's body bytes pass through h11's buffer: each read is appended to it, and h11's reader
then extracts the body's bytes — by copying them once to see whether there are any, and again
to return them, before deleting them from the buffer; httpcore then copies them into bytes.
For a million-record statement (280 MB) that was four copies. Here a read that finds the
buffer empty is held as it came, and when all the buffer holds is asked for (a streamed
answer's reads mostly are: a read is smaller than a chunk of the body) it is handed over as
it is, and httpcore's copy into bytes copies nothing: a read within a chunk of the body is
not copied at all (5.6% of the load's instructions). Otherwise the buffer does as
h11's does, and what it answers is h11's answer to the same asks
(tests/unit/api/test_h11_buffer.py).

The buffer is h11's own class, subclassed (h11 keeps it in a private module), for every h11
connection of the process once installed (the webhook receiver's too): installed only when
h11's connection makes its buffer from that class and the buffer keeps its bytes where this
expects them, so a later h11 that changed either is used as it is.
"""

from __future__ import annotations

from h11 import _connection as h11_connection
from h11._receivebuffer import ReceiveBuffer


class WholeReceiveBuffer(ReceiveBuffer):
    """h11's ReceiveBuffer; what it holds is handed over, not copied, when all is taken. A read
    that comes to it empty is held as the bytes it came as (not copied into a bytearray), and
    handed on so (httpcore's `bytes()` of it then copies nothing either); it becomes a
    bytearray only once cut or added to."""

    def __iadd__(self, byteslike: bytes | bytearray) -> WholeReceiveBuffer:
        if not self._data and type(byteslike) is bytes:
            self._data = byteslike  # type: ignore[assignment] # a bytearray once edited
        else:
            self._editable().extend(byteslike)
        return self

    def _editable(self) -> bytearray:
        data = self._data
        if type(data) is not bytearray:
            data = self._data = bytearray(data)
        return data

    def _extract(self, count: int) -> bytearray:
        data = self._editable()  # a head's lines are edited in place by h11
        if count < len(data):
            return super()._extract(count)
        self._hand_over()
        return data

    def maybe_extract_at_most(self, count: int) -> bytes | bytearray | None:  # type: ignore[override] # h11's Data holds bytes
        if count <= 0:  # never asked by h11's readers: as h11 answers it
            return super().maybe_extract_at_most(count)
        if not self._data:
            return None
        if count < len(self._data):
            return self._extract(count)
        return self._hand_over()

    def _hand_over(self) -> bytes | bytearray:
        """All it holds, as it holds it; a new buffer begins."""
        data, self._data = self._data, bytearray()
        self._next_line_search = 0
        self._multiple_lines_search = 0
        return data


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
