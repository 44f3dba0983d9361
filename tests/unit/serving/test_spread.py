"""Connections handed between a server's processes (`app.serving.spread`), here within one
process: the first's listening socket, a copy's end of its pair, and loopback clients."""

from __future__ import annotations

import asyncio
import socket
import struct
import sys
from collections.abc import Iterator
from functools import partial

import pytest

from app.serving.sockets import bind
from app.serving.spread import IN_FLIGHT_MOST, HandedSocket, SpreadingSocket, Tally

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux flags")


@pytest.fixture
def clients() -> Iterator[list[socket.socket]]:
    made: list[socket.socket] = []
    yield made
    for sock in made:
        sock.close()


@pytest.fixture
def spread() -> Iterator[tuple[SpreadingSocket, HandedSocket, list[int]]]:
    """The first process's socket with one copy, the copy's end, and the copy's closes."""
    pair = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    tally = Tally(2)
    closed: list[int] = []
    spreading = SpreadingSocket(bind("127.0.0.1", 0), tally, {1: pair[0]})
    handed = HandedSocket(
        pair[1],
        taken=partial(tally.taken_one, 1),
        closed=lambda: closed.append(1),
        ended=lambda: None,
    )
    yield spreading, handed, closed
    spreading.close()
    handed.close()
    pair[0].close()


def _connect(spreading: socket.socket, clients: list[socket.socket], count: int) -> None:
    for _ in range(count):
        clients.append(socket.create_connection(spreading.getsockname(), timeout=10))


def _drained(listening: socket.socket) -> list[socket.socket]:
    """Every connection an accept gives until none waits: those the first process keeps (the
    others handed), or those a copy takes."""
    accepted = []
    while True:
        try:
            accepted.append(listening.accept()[0])
        except BlockingIOError:
            return accepted


def _ends(socks: list[socket.socket]) -> set[object]:
    return {sock.getpeername() for sock in socks}


def test_connections_go_in_turn_to_the_process_with_the_fewest_open(spread, clients):
    spreading, handed, _closed = spread
    _connect(spreading, clients, 6)
    kept, taken = _drained(spreading), _drained(handed)
    try:
        assert len(kept) == len(taken) == 3
        # every client is served, once, by one process or the other
        assert _ends(kept) | _ends(taken) == {client.getsockname() for client in clients}
        taken[0].sendall(b"from the copy")
        (client,) = [c for c in clients if c.getsockname() == taken[0].getpeername()]
        assert client.recv(100) == b"from the copy"
        # two closed in the copy: the next two connections both go there
        for sock in taken[:2]:
            spreading.tally.closed_one(1)
            sock.close()
        _connect(spreading, clients, 2)
        assert _drained(spreading) == []
        more = _drained(handed)
        assert len(more) == 2
    finally:
        for sock in [*kept, *taken, *more]:
            sock.close()


def test_a_copy_that_ended_is_handed_nothing_and_nothing_is_lost(spread, clients):
    spreading, handed, _closed = spread
    handed.close()
    _connect(spreading, clients, 3)
    kept = _drained(spreading)
    try:
        assert _ends(kept) == {client.getsockname() for client in clients}
        assert spreading.channels == {}
    finally:
        for sock in kept:
            sock.close()


def test_a_copy_too_far_behind_leaves_connections_here_and_none_is_lost(spread, clients):
    """The copy's loop takes nothing (stuck): once its pair is full, the first process
    serves the connections itself."""
    spreading, handed, _closed = spread
    spreading.channels[1].setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1)  # the least
    _connect(spreading, clients, 40)
    kept = _drained(spreading)
    taken = _drained(handed)
    try:
        assert len(kept) > len(taken) > 0
        assert _ends(kept) | _ends(taken) == {client.getsockname() for client in clients}
        assert len(kept) + len(taken) == 40
    finally:
        for sock in [*kept, *taken]:
            sock.close()


def test_a_connection_reset_on_its_way_counts_as_closed_in_the_copy(spread, clients):
    spreading, handed, closed = spread
    _connect(spreading, clients, 2)
    kept = _drained(spreading)  # one here, one on its way to the copy
    (on_its_way,) = [c for c in clients if c.getsockname() not in _ends(kept)]
    on_its_way.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    try:
        for client in clients:  # a reset (no linger): the connection ends before it is taken
            client.close()
        with pytest.raises(ConnectionAbortedError, match="had ended"):
            handed.accept()
        assert closed == [1]
    finally:
        for sock in kept:
            sock.close()


def test_the_first_process_ending_tells_the_copy_once_and_stops_its_reading():
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    ended: list[int] = []
    handed = HandedSocket(
        theirs, taken=lambda: None, closed=lambda: None, ended=lambda: ended.append(1)
    )

    async def serve_until_ended() -> None:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(asyncio.Protocol, sock=handed)
        ours.close()  # the first process ends
        while not ended:
            await asyncio.sleep(0)
        assert not loop.remove_reader(handed.fileno())  # no longer read: no spin on the end
        server.close()
        await server.wait_closed()

    asyncio.run(serve_until_ended())
    assert ended == [1]


def test_a_copy_that_takes_nothing_is_handed_no_more_than_a_bound(spread, clients):
    """A copy stopped (SIGSTOP) or stuck, its pair far from full: once IN_FLIGHT_MOST wait
    for it, the first process serves every connection that follows; once it takes them,
    it is handed its share again."""
    spreading, handed, _closed = spread
    _connect(spreading, clients, 2 * IN_FLIGHT_MOST + 20)
    kept = _drained(spreading)
    taken: list[socket.socket] = []
    try:
        assert len(kept) == IN_FLIGHT_MOST + 20
        taken += _drained(handed)
        assert len(taken) == IN_FLIGHT_MOST
        _connect(spreading, clients, 2)  # the copy has fewer open: both go there
        assert _drained(spreading) == []
        taken += _drained(handed)
        assert len(taken) == IN_FLIGHT_MOST + 2
    finally:
        for sock in [*kept, *taken]:
            sock.close()
