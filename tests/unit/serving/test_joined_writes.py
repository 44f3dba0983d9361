"""An answer's head and body leave in one send; nothing is held past the loop's next turn,
nor past the end of its answer, nor lost however the connection ends."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from app.serving.guard import JOIN_BYTES, JoinedWrites
from app.webhooks.receiver import BackgroundReceiver
from app.webhooks.store import SqliteStore
from tests.webhook_helpers import delivery, event_body


class Recorded(asyncio.Transport):
    """A transport that notes what is done to it."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[bytes] = []
        self.done: list[str] = []
        self.closing = False

    def write(self, data: Any) -> None:
        self.sent.append(bytes(data))

    def close(self) -> None:
        self.done.append("close")
        self.closing = True

    def abort(self) -> None:
        self.done.append("abort")
        self.closing = True

    def is_closing(self) -> bool:
        return self.closing


async def a_turn() -> None:
    await asyncio.sleep(0)


def test_a_head_and_its_body_written_in_one_turn_are_one_send():
    async def answer() -> tuple[list[bytes], list[bytes]]:
        real = Recorded()
        joined = JoinedWrites(real)
        joined.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n")
        joined.write(b"{}")
        joined.write(b"")  # the end of the message: nothing to send
        at_once = list(real.sent)
        await a_turn()
        return at_once, real.sent

    at_once, after = asyncio.run(answer())
    assert at_once == [b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}"]
    assert after == at_once  # nothing more came of the turn


def test_a_write_alone_leaves_at_the_next_turn_and_writes_keep_their_order():
    async def writes() -> tuple[list[bytes], list[bytes], list[bytes]]:
        real = Recorded()
        joined = JoinedWrites(real)
        joined.write(b"head")
        before = list(real.sent)
        await a_turn()
        alone = list(real.sent)
        joined.write(b"a")
        joined.write(b"b")
        joined.write(b"c")  # held again, after "ab" left
        joined.write(b"x" * JOIN_BYTES)  # large: what is held goes first, then it
        return before, alone, real.sent

    before, alone, after = asyncio.run(writes())
    assert before == [] and alone == [b"head"]
    assert after == [b"head", b"ab", b"c", b"x" * JOIN_BYTES]


def test_a_whole_answer_leaves_at_once_after_what_is_held():
    async def writes() -> tuple[list[bytes], list[bytes]]:
        real = Recorded()
        joined = JoinedWrites(real)
        joined.write(b"HTTP/1.1 100 Continue\r\n\r\n")  # held for the turn
        joined.write_whole(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}")
        at_once = list(real.sent)
        await a_turn()
        return at_once, real.sent

    at_once, after = asyncio.run(writes())
    assert at_once == [
        b"HTTP/1.1 100 Continue\r\n\r\n",
        b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}",
    ]
    assert after == at_once  # nothing waited for the turn


def test_a_close_or_an_abort_sends_what_is_held_first():
    """Written, it had been sent: an answer just given on a connection dropped to make room
    reached its client before, and must still."""

    async def ends() -> tuple[Recorded, Recorded]:
        closed, aborted = Recorded(), Recorded()
        for real in (closed, aborted):
            joined = JoinedWrites(real)
            joined.write(b"last words")
            if real is closed:
                joined.close()
            else:
                joined.abort()
        await a_turn()  # the turn's flush finds nothing more
        return closed, aborted

    closed, aborted = asyncio.run(ends())
    assert closed.sent == [b"last words"] and closed.done == ["close"]
    assert aborted.sent == [b"last words"] and aborted.done == ["abort"]


def test_an_empty_write_the_end_of_an_answer_sends_what_is_held_at_once():
    """An answer to HEAD is a head alone: it does not wait for the loop's next turn."""

    async def head_only() -> list[bytes]:
        real = Recorded()
        joined = JoinedWrites(real)
        joined.write(b"HTTP/1.1 200 OK\r\ncontent-length: 16\r\n\r\n")
        joined.write(b"")  # uvicorn's body of a HEAD answer, and its end
        return list(real.sent)

    assert asyncio.run(head_only()) == [b"HTTP/1.1 200 OK\r\ncontent-length: 16\r\n\r\n"]


def test_the_receivers_answer_leaves_in_one_send(tmp_path, monkeypatch):
    """Through the server as it runs: each of its connection's writes is recorded."""
    from asyncio import selector_events

    written: list[tuple[int, bytes]] = []  # by the local port (other servers may be running)
    real_write = selector_events._SelectorSocketTransport.write

    def recorded(self, data):
        written.append((self.get_extra_info("sockname")[1], bytes(data)))
        real_write(self, data)

    monkeypatch.setattr(selector_events._SelectorSocketTransport, "write", recorded)
    store = SqliteStore(tmp_path / "events.db")
    receiver = BackgroundReceiver(store)
    url = receiver.start()
    try:
        headers, raw = delivery(event_body())
        with httpx.Client() as client:
            answers = [client.post(url, content=raw, headers=headers) for _ in range(2)]
    finally:
        receiver.stop()
        store.close()
    assert [answer.json()["result"] for answer in answers] == ["stored", "duplicate"]
    port = httpx.URL(url).port
    sent = [data for local, data in written if local == port]
    assert len(sent) == 2  # one send an answer, head and body together
    for data, answer in zip(sent, answers, strict=True):
        assert data.startswith(b"HTTP/1.1 200 OK\r\n") and data.endswith(answer.content)


def test_the_clients_end_of_sending_sends_what_is_held_before_the_transport_closes():
    """asyncio closes a connection's transport itself when the client half-closes (the
    protocol keeps it no longer): what the connection holds leaves first."""
    import uvicorn
    from uvicorn.server import ServerState

    from app.serving.guard import GuardedH11Protocol

    async def half_closed() -> Recorded:
        config = uvicorn.Config(app=lambda *_args: None, http=GuardedH11Protocol)
        config.load()
        protocol = GuardedH11Protocol(
            config=config,
            server_state=ServerState(),
            app_state={},
            _loop=asyncio.get_running_loop(),
        )
        real = Recorded()
        protocol.connection_made(real)
        protocol.transport.write(b"a streamed answer's last piece")
        protocol.eof_received()  # then asyncio closes the transport: nothing more can leave
        real.closing = True
        await a_turn()
        protocol.connection_lost(None)
        return real

    real = asyncio.run(half_closed())
    assert real.sent == [b"a streamed answer's last piece"]
