"""h11's receive buffer as the transport installs it (app.api.http.h11_buffer): the same
answers as h11's own for any bytes and any asks, what it holds handed over when all is
taken, and h11 left as it is when its buffer is not the one this was written for."""

from __future__ import annotations

import h11
import pytest
from h11 import _connection as h11_connection
from h11._receivebuffer import ReceiveBuffer
from hypothesis import given
from hypothesis import strategies as st

import app.api.http.transport  # noqa: F401 - installs the buffer, as the app's transport does
from app.api.http import h11_buffer
from app.api.http.h11_buffer import WholeReceiveBuffer

# what h11's readers do with a buffer: bytes arrive, then a line, the head's lines, or up to
# a count (a body's part, or the CRLF after a chunk) are taken, or it is looked at
steps = st.one_of(
    st.tuples(
        st.just("add"),
        st.lists(st.sampled_from([b"a", b"0", b":", b"\r", b"\n", b"\r\n"]), max_size=12).map(
            b"".join
        ),
    ),
    st.tuples(st.just("at_most"), st.integers(min_value=-3, max_value=60)),
    st.tuples(st.just("line"), st.none()),
    st.tuples(st.just("lines"), st.none()),
    st.tuples(st.just("look"), st.none()),
)


def step(buffer: ReceiveBuffer, name: str, argument: object) -> object:
    if name == "add":
        assert isinstance(argument, bytes)
        buffer += argument
        return None
    if name == "at_most":
        assert isinstance(argument, int)
        return buffer.maybe_extract_at_most(argument)
    if name == "line":
        return buffer.maybe_extract_next_line()
    if name == "lines":
        return buffer.maybe_extract_lines()
    return (len(buffer), bytes(buffer), bool(buffer))


@given(st.lists(steps, max_size=40))
def test_it_answers_as_h11s_own_buffer(asks: list[tuple[str, object]]) -> None:
    theirs, ours = ReceiveBuffer(), WholeReceiveBuffer()
    for name, argument in asks:
        assert step(ours, name, argument) == step(theirs, name, argument)
        assert bytes(ours) == bytes(theirs)


def test_what_it_holds_is_handed_over_when_all_is_taken() -> None:
    buffer = WholeReceiveBuffer()
    buffer += b"a body's part"
    held = buffer._data
    assert buffer.maybe_extract_at_most(1 << 20) is held
    assert bytes(buffer) == b"" and buffer.maybe_extract_at_most(10) is None
    buffer += b"more than asked"
    part = buffer.maybe_extract_at_most(4)
    assert part == b"more" and bytes(buffer) == b" than asked"
    buffer += b"\r\n"  # a line after a part was taken is found from its start
    assert buffer.maybe_extract_next_line() == b" than asked\r\n"
    buffer += b"no line yet"
    assert buffer.maybe_extract_next_line() is None
    assert buffer.maybe_extract_at_most(100) == b"no line yet"
    buffer += b"\r\n"  # and after all was taken
    assert buffer.maybe_extract_next_line() == b"\r\n"
    buffer += b"no: head yet"
    assert buffer.maybe_extract_lines() is None
    assert buffer.maybe_extract_at_most(100) == b"no: head yet"
    buffer += b"a: 1\r\n\r\n"  # a head's end is found from its start too
    assert buffer.maybe_extract_lines() == [b"a: 1"]


def test_h11s_connections_use_it_once_the_transport_is_imported() -> None:
    assert h11_buffer.install()
    connection = h11.Connection(h11.CLIENT)
    assert type(connection._receive_buffer) is WholeReceiveBuffer
    connection.send(h11.Request(method="GET", target="/", headers=[("Host", "x")]))
    connection.send(h11.EndOfMessage())
    connection.receive_data(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
    connection.receive_data(b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
    events = []
    while (event := connection.next_event()) is not h11.NEED_DATA:
        events.append(event)
        if type(event) is h11.EndOfMessage:
            break
    assert b"".join(e.data for e in events if type(e) is h11.Data) == b"hello world"


@pytest.mark.parametrize("changed", ["another class", "another place for the bytes"])
def test_an_h11_that_changed_its_buffer_is_left_as_it_is(
    changed: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if changed == "another class":

        class Other(ReceiveBuffer):
            pass

        monkeypatch.setattr(h11_connection, "ReceiveBuffer", Other)
    else:
        monkeypatch.setattr(h11_connection, "ReceiveBuffer", ReceiveBuffer)
        monkeypatch.delattr(ReceiveBuffer, "__init__")  # object's: no _data
    made_by = h11_connection.ReceiveBuffer
    assert not h11_buffer.install()
    assert h11_connection.ReceiveBuffer is made_by
