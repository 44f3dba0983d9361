"""An answer's head and body leave in one send; nothing is held past the loop's next turn,
nor lost at a close, nor sent after an abort."""

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


def test_a_close_sends_what_is_held_first_and_an_abort_drops_it():
    async def ends() -> tuple[Recorded, Recorded]:
        closed, aborted = Recorded(), Recorded()
        for real in (closed, aborted):
            joined = JoinedWrites(real)
            joined.write(b"last words")
            if real is closed:
                joined.close()
            else:
                joined.abort()
        await a_turn()  # the turn's flush finds nothing, or a closed transport
        return closed, aborted

    closed, aborted = asyncio.run(ends())
    assert closed.sent == [b"last words"] and closed.done == ["close"]
    assert aborted.sent == [] and aborted.done == ["abort"]


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
