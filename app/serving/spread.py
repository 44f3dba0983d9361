"""Connections spread evenly over a server's processes (Linux): the first process accepts
every connection on the port and hands each, over a Unix socket pair, to the process with the
fewest open connections, itself included. The kernel's own way, a port shared with
SO_REUSEPORT, spreads connections by a hash of their addresses: 32 keep-alive senders were
split 21/11 as often as 16/16, and the process with 21 set the pace of all of them (4,750
deliveries a second against 5,440 at 16/16). Shared that way, the port could also be joined
by any other program of the same user; handed over, it is held by the first process alone.

Each process counts the connections it closes in memory shared by all of them (written by
that process only); the first process counts those it hands out, so a connection on its way
to a copy is already counted as that copy's."""

from __future__ import annotations

import array
import asyncio
import mmap
import socket
from collections.abc import Callable
from typing import Any

HANDED_PER_TURN = 64  # connections handed over in one accept, before the loop turns again
# connections handed to a copy and not yet taken by it, past which it is handed no more: a
# copy stopped (SIGSTOP, a debugger) or stuck holds at most these unanswered, not half of all
IN_FLIGHT_MOST = 64
_WORD = 8  # a count, as a signed 64-bit integer
_DESCRIPTOR_SIZE = array.array("i").itemsize  # a file descriptor, as the kernel passes it


class Tally:
    """The open connections of each process, 0 being the first: handed to it less closed by
    it. Made before the copies are forked, so that all of them share its memory."""

    def __init__(self, processes: int) -> None:
        # anonymous and shared across a fork: each process's closed, then taken, connections
        self._memory = mmap.mmap(-1, 2 * _WORD * processes)
        counts = memoryview(self._memory).cast("q")
        self._closed, self._taken = counts[:processes], counts[processes:]
        self.handed = [0] * processes  # the first process's own reckoning

    def closed_one(self, number: int) -> None:
        """Process ``number`` closed a connection (called in that process only)."""
        self._closed[number] += 1

    def taken_one(self, number: int) -> None:
        """Copy ``number`` took a connection handed to it (called in that copy only)."""
        self._taken[number] += 1

    def in_flight(self, number: int) -> int:
        """Connections handed to copy ``number`` that it has not taken yet."""
        return self.handed[number] - self._taken[number]

    def open_in(self, number: int) -> int:
        return self.handed[number] - self._closed[number]

    def least_busy(self, numbers: list[int], after: int) -> int:
        """Of ``numbers``, the process with the fewest open connections; a tie goes to the
        first one past ``after``, so that idle processes take turns."""
        ordered = sorted(numbers, key=lambda number: (number <= after, number))
        return min(ordered, key=self.open_in)


class SpreadingSocket(socket.socket):
    """The port's listening socket in the first process, as asyncio accepts on it: each
    connection goes to the least busy process, and asyncio is given those that stay here.
    ``channels``: each copy's end of its socket pair, by number, while the copy is there (a
    stop closes them, so that the copies end: `app.webhooks.workers`)."""

    def __init__(
        self, listening: socket.socket, tally: Tally, channels: dict[int, socket.socket]
    ) -> None:
        super().__init__(listening.family, listening.type, listening.proto, listening.detach())
        self.setblocking(False)  # as asyncio serves it (a socket made from a descriptor blocks)
        self.tally = tally
        self.channels = channels
        self._last = 0

    def accept(self) -> tuple[socket.socket, Any]:
        for _ in range(HANDED_PER_TURN):
            connection, address = super().accept()  # BlockingIOError: none waits
            ready = [n for n in self.channels if self.tally.in_flight(n) < IN_FLIGHT_MOST]
            number = self.tally.least_busy([0, *ready], self._last)
            self._last = number
            if number != 0 and self._hand(number, connection):
                continue
            self.tally.handed[0] += 1
            return connection, address
        raise BlockingIOError  # the rest on the loop's next turn, after the answers waiting

    def _hand(self, number: int, connection: socket.socket) -> bool:
        """Whether the connection went to copy ``number``; if not (the copy gone, or its
        pair full), it is served here."""
        channel = self.channels.get(number)
        if channel is None:
            return False
        descriptor = array.array("i", [connection.fileno()])
        try:
            # not socket.send_fds, which drops the flags (Python 3.11): this must not wait
            channel.sendmsg(
                [b"c"],
                [(socket.SOL_SOCKET, socket.SCM_RIGHTS, descriptor)],
                socket.MSG_DONTWAIT | socket.MSG_NOSIGNAL,
            )
        except BlockingIOError:
            return False
        except OSError:  # the copy ended: none is handed to it again
            ended = self.channels.pop(number, None)
            if ended is not None:
                ended.close()
            return False
        self.tally.handed[number] += 1
        connection.close()  # the copy holds it now
        return True


class HandedSocket(socket.socket):
    """A copy's end of its socket pair, as asyncio accepts on it: each accept takes a
    connection the first process handed over (and tells ``taken``). The pair's end (the
    first process ended, however it ended, or was asked to stop) calls ``ended``."""

    def __init__(
        self,
        channel: socket.socket,
        *,
        taken: Callable[[], None],
        closed: Callable[[], None],
        ended: Callable[[], None],
    ) -> None:
        super().__init__(channel.family, channel.type, channel.proto, channel.detach())
        self.setblocking(False)
        self._taken = taken
        self._closed = closed
        self._ended = ended

    def listen(self, _backlog: int = 0) -> None:
        """asyncio listens on every socket it serves; a pair's end is already connected."""

    def accept(self) -> tuple[socket.socket, Any]:
        # not socket.recv_fds, which drops the flags (Python 3.11): the descriptor is not
        # to be inherited by a program this process starts
        message, ancillary, _flags, _address = self.recvmsg(
            1, socket.CMSG_SPACE(_DESCRIPTOR_SIZE), socket.MSG_CMSG_CLOEXEC
        )  # BlockingIOError: none waits
        descriptors = array.array("i")
        for level, kind, data in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                descriptors.frombytes(data[: len(data) - len(data) % descriptors.itemsize])
        if not message:
            asyncio.get_running_loop().remove_reader(self.fileno())  # readable for ever now
            self._ended()
            raise ConnectionAbortedError("the first process ended")
        self._taken()
        if not descriptors:  # out of files here: the kernel closed it; it counts as closed
            self._closed()
            raise ConnectionAbortedError("a connection handed over was lost")
        connection = socket.socket(fileno=descriptors[0])
        try:
            address = connection.getpeername()
        except OSError:  # its client has gone already
            connection.close()
            self._closed()
            raise ConnectionAbortedError("a connection handed over had ended") from None
        return connection, address
