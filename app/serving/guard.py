"""The bounded HTTP/1.1 connection both of the project's servers use: a request head within
so many seconds, so many connections, a reader that stalls is dropped (their listening
socket, without Nagle's delay: app.serving.sockets)."""

from __future__ import annotations

import array
import asyncio
import json
import uuid
from collections import deque
from collections.abc import Callable
from typing import Any, ClassVar

try:  # how many bytes a socket holds unread (Linux, macOS)
    import fcntl
    import termios

    _FIONREAD: int | None = termios.FIONREAD
except ImportError:  # Windows: every connection's bytes are taken as read
    _FIONREAD = None

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

# a client's states in which the server waits for it: no whole head yet, or not all the body
_WAITING_FOR_CLIENT = (h11.IDLE, h11.SEND_BODY)
# a connection sends its request within this of connecting (or of its last answer), or it may
# be closed to make room past the limit: a burst's were closed before their requests came
IDLE_GRACE_SECONDS = 0.25


class _StrictConnection(h11.Connection):
    """h11's server side, refusing a request that gives both Content-Length and
    Transfer-Encoding: h11 reads its body by the latter and keeps the connection, where RFC
    9112 (6.3) has it closed after the answer — a proxy in front may have framed the body by
    the other, and the rest would be read as a request of its own (request smuggling)."""

    unreadable_because = ""  # what was wrong with the request refused, said in its answer
    method = b""  # the request's under way: an answer to a HEAD carries no body

    def start_next_cycle(self) -> None:
        super().start_next_cycle()
        self.method = b""

    def next_event(self) -> Any:
        event = super().next_event()
        if type(event) is h11.Request:
            self.method = event.method
            # raw items: a list; the headers themselves are read an item a Python call
            names = {name.lower() for name, _value in event.headers.raw_items()}
            if b"content-length" in names and b"transfer-encoding" in names:
                self.unreadable_because = (
                    "Content-Length and Transfer-Encoding are both given; give one"
                )
                raise h11.RemoteProtocolError(self.unreadable_because)
        return event


JOIN_BYTES = 16 * 1024  # a write smaller than this (an answer's head) waits for what follows


class JoinedWrites(asyncio.Transport):
    """A connection's transport that sends an answer's head and body together: uvicorn writes
    them apart, each write a send of its own, and each send costs both ends a system call
    and a wake-up (a webhook's answer: about 25 µs of the receiver's system time). A small
    write is held until the next write, which joins it, or until the loop's next turn; a
    larger one is sent at once, after what is held; an empty one (uvicorn's end of an
    answer, the body of an answer to HEAD) sends what is held at once. Nothing is held
    longer than a turn, nor more than one small write's worth, and whatever ends the
    connection sends what is held first, as it had been sent when written."""

    def __init__(self, transport: asyncio.Transport) -> None:
        super().__init__()
        self.transport = transport
        self._held = b""
        self._flushing = False  # a flush is asked for, at the loop's next turn

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not data:  # nothing follows in this answer: what is held waits for nothing
            self.flush()
            return
        held = self._held
        if held and len(held) + len(data) <= JOIN_BYTES:
            self._held = b""
            self.transport.write(held + bytes(data))
        elif len(data) < JOIN_BYTES:
            self.flush()
            self._held = bytes(data)
            if not self._flushing:
                self._flushing = True
                asyncio.get_running_loop().call_soon(self._flush_later)
        else:
            self.flush()
            self.transport.write(data)

    def flush(self) -> None:
        held, self._held = self._held, b""
        if held and not self.transport.is_closing():
            self.transport.write(held)

    def write_whole(self, data: bytes) -> None:
        """A whole answer, sent at once (after what is held): nothing is to join it."""
        self.flush()
        self.transport.write(data)

    def _flush_later(self) -> None:
        self._flushing = False
        self.flush()

    def close(self) -> None:
        self.flush()  # what was written goes before the end
        self.transport.close()

    def abort(self) -> None:
        # what is held goes to the transport first: written, it had been sent (an answer just
        # given, on a connection dropped to make room); what the transport could not send yet
        # it drops, as before
        self.flush()
        self.transport.abort()

    def is_closing(self) -> bool:
        return self.transport.is_closing()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self.transport.get_extra_info(name, default)

    def pause_reading(self) -> None:
        self.transport.pause_reading()

    def resume_reading(self) -> None:
        self.transport.resume_reading()

    def is_reading(self) -> bool:
        return self.transport.is_reading()

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self.transport.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self.transport.get_protocol()

    def get_write_buffer_size(self) -> int:
        return self.transport.get_write_buffer_size() + len(self._held)

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self.transport.set_write_buffer_limits(high, low)

    def can_write_eof(self) -> bool:
        return self.transport.can_write_eof()

    def write_eof(self) -> None:
        self.flush()
        self.transport.write_eof()


class GuardedH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 connection, bounded: one that sends no whole request head in
    ``head_seconds`` is closed (uvicorn times out only the idle time after an answer), one
    whose reader takes nothing of an answer for ``stall_seconds`` is closed, and past
    ``max_connections`` the oldest connection still waiting on its client (for a head, for
    the rest of a body, or to take an answer) makes room, or, when every one is being
    answered, the new one is closed: idle, stalled, half-open, slowly sending or not reading
    connections cannot use up the server's memory and files and keep others out."""

    malformed_title = "Invalid request"  # the error body's title for what is not HTTP/1.1
    head_seconds = 10.0  # a connection sends a whole request head in this time, or is closed
    max_connections = 256  # past this, the longest-idle connection without a request goes
    # past it, when none is idle, new connections wait unread (at most this many; then the
    # next is closed), each taking the place of the next connection to end
    max_parked = 192
    parked: ClassVar[deque[GuardedH11Protocol]] = deque()  # a server's own (`guarded_server`)
    _parked = False
    _room_timer: asyncio.TimerHandle | None = None  # parked: when one may have waited enough
    # when it ends, no place comes free: it made room for a new connection, which took its
    # place, or it was a new one that found no room
    _frees_no_place = False
    stall_seconds = 30.0  # a reader that takes nothing of an answer for this long is dropped
    # told of each connection that ends (a server of several processes counts them)
    on_closed: Callable[[], None] | None = None
    _head_timer: asyncio.TimerHandle | None = None
    _stall_timer: asyncio.TimerHandle | None = None
    _armed_at = 0.0
    _dropped = False
    _client_finished = False  # the client half-closed: the connection ends after its answers
    conn: _StrictConnection  # made in __init__
    joined: JoinedWrites  # the connection's transport, as uvicorn's code uses it

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        size = self.config.h11_max_incomplete_event_size
        self.conn = _StrictConnection(h11.SERVER, *(() if size is None else (size,)))

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self.joined = JoinedWrites(transport)
        super().connection_made(self.joined)
        self._arm()
        if len(self.connections) - len(self.parked) > self.max_connections:
            self._make_room(new=True)

    def _make_room(self, *, new: bool = False) -> None:
        """Past the limit, for this connection (``new``, or parked): the one waiting longest
        on its client goes, once it has waited ``IDLE_GRACE_SECONDS`` with nothing sent
        unread. Else this one waits unread (parked: at most ``max_parked``; the next is
        closed), until a connection ends or one has waited that long. A burst's connections,
        accepted before their requests came or were read, were closed to make room for each
        other: more than the limit at once, and the requests past it were reset unanswered."""
        self._room_timer = None
        if self._dropped or (not new and not self._parked):
            return
        waiting = sorted(
            (
                other
                for other in self.connections
                if isinstance(other, GuardedH11Protocol)
                and other is not self
                and not other._dropped  # not one already on its way out
                and not other._parked
                and other.waits_on_client()
            ),
            key=lambda other: other._armed_at,
        )
        # the longest waiting that has waited enough with nothing sent unread (asked of each
        # in turn, a system call each: never of all of them at every turn)
        now = self.loop.time()
        due = now + IDLE_GRACE_SECONDS  # when to look again, if this one must wait
        for other in waiting:
            if now - other._armed_at < IDLE_GRACE_SECONDS:
                due = other._armed_at + IDLE_GRACE_SECONDS  # the rest waited less
                break
            if not other._sent_unread():  # else its request is read at the loop's next turn
                other._frees_no_place = new  # a new one takes its place; else one parked
                other._close()
                if new:
                    return
                break  # the place went to one parked (maybe this one): it waits on
        if new:
            if len(self.parked) >= self.max_parked and not self._room_among_parked(waiting):
                self._frees_no_place = True
                self._close()
                return
            self._parked = True
            self.parked.append(self)
            self.transport.pause_reading()
        self._room_timer = self.loop.call_at(due, self._make_room)

    def _room_among_parked(self, waiting: list[GuardedH11Protocol]) -> bool:
        """The parked are as many as may be: one of them that has sent nothing for the grace
        (idle, as nothing of it is read) goes, or else the one served waiting longest on
        its client with nothing sent unread, however briefly; whether one went."""
        now = self.loop.time()
        idle = next(
            (
                other
                for other in self.parked
                if not other._dropped
                and now - other._armed_at >= IDLE_GRACE_SECONDS
                and not other._sent_unread()
            ),
            None,
        )
        if idle is not None:
            idle._close()  # its place among the parked is this one's
            return True
        served = next((other for other in waiting if not other._sent_unread()), None)
        if served is not None:
            served._frees_no_place = True
            served._close()  # its place among those served goes to one parked
            self._unpark_next()
            return True
        return False

    def _unpark_next(self) -> None:
        """A place came free: it goes to the parked connection that sent something first
        (a request waiting, where one that sent nothing may be idle), else the one parked
        longest."""
        parked = self.parked
        waiting = [
            other for other in parked if not other._dropped and not other.transport.is_closing()
        ]
        if not waiting:
            return
        chosen = next((other for other in waiting if other._sent_unread()), waiting[0])
        parked.remove(chosen)
        chosen._unpark()

    def _sent_unread(self) -> bool:
        """Bytes the client sent wait unread (a request of a burst, accepted before any was
        read): it is not waited on, though nothing of it was read yet."""
        sock = self.transport.get_extra_info("socket")
        if sock is None or _FIONREAD is None:
            return False
        waiting = array.array("i", [0])
        try:
            fcntl.ioctl(sock.fileno(), _FIONREAD, waiting)
        except OSError:
            return False
        return waiting[0] > 0

    def _unpark(self) -> None:
        """A place came free for this parked one (taken off the parked already): it is read
        from now on, its head given its time."""
        self._parked = False
        if self._room_timer is not None:
            self._room_timer.cancel()
            self._room_timer = None
        self.transport.resume_reading()
        self._arm()

    def waits_on_client(self) -> bool:
        """The server waits on the client: for a whole head, for the rest of a body, or for
        it to take an answer it has stopped reading."""
        return self.conn.their_state in _WAITING_FOR_CLIENT or self._stall_timer is not None

    def eof_received(self) -> bool:  # type: ignore[override]
        """The client sent all it will send (a half close: `nc -N`, a client's shutdown).
        When its request came whole and its answer is still being made (a statement, a
        delivery being stored), the connection stays open for the answer and closes after
        it: closed now (uvicorn's way), the answer was dropped, though the request was
        carried out. Otherwise it closes now, with what the transport holds sent first."""
        self.joined.flush()
        if self.answering() and self.conn.their_state == h11.DONE:
            self._client_finished = True
            return True
        return False

    def answering(self) -> bool:
        """An answer is being made to the request under way."""
        cycle = self.cycle
        return cycle is not None and not cycle.response_complete

    def abandon_answer(self) -> bool:
        """The request under way is ended as if its client had gone: its answer, when it
        comes, is dropped. Whether part of that answer was written already."""
        cycle = self.cycle
        cycle.disconnected = True
        cycle.message_event.set()
        return cycle.response_started

    def close_after_answer(self) -> None:
        """The connection ends once the answer under way is written."""
        self.cycle.keep_alive = False

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self._client_finished and not self.answering():  # no request follows
            self.transport.close()
            return
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        for timer in (self._head_timer, self._stall_timer, self._room_timer):
            if timer is not None:
                timer.cancel()
        super().connection_lost(exc)
        parked = self.parked
        if self._parked:
            self._parked = False
            parked.remove(self)
        elif parked and not self._frees_no_place:  # its place goes to one parked
            self._unpark_next()
        if self.on_closed is not None:
            self.on_closed()

    # the answer's writes wait while the reader's window is full: a reader who stopped
    # taking it would hold the answer (a statement's piece, several MB) for ever
    def pause_writing(self) -> None:
        super().pause_writing()
        if self._stall_timer is None:
            self._stall_timer = self.loop.call_later(self.stall_seconds, self._close)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self._stall_timer is not None:
            self._stall_timer.cancel()
            self._stall_timer = None

    def _arm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
        self._armed_at = self.loop.time()
        self._head_timer = self.loop.call_later(self.head_seconds, self._head_expired)

    def _head_expired(self) -> None:
        their_state = self.conn.their_state
        # still no whole request head; or still sending the body of a request answered
        # before it ended (refused): the rest is read and dropped, as uvicorn does, so that
        # a client sending it at once reads the answer and keeps the connection, but a
        # byte now and then kept the connection for ever (any byte puts uvicorn's idle
        # timer off, and no head is awaited during a body)
        if their_state == h11.IDLE or (
            their_state == h11.SEND_BODY and self.conn.our_state == h11.DONE
        ):
            self._close()

    def send_400_response(self, msg: str) -> None:
        """What cannot be read as HTTP/1.1 is answered in the contract's error shape, as
        every other refusal (uvicorn answers it in plain text), and the connection closed.
        A request under way on it (its head was read, then its body was garbled) is ended
        as if the client had gone: its app's answer, when it comes, is dropped — written
        after this one, it raised in h11 and was logged with a traceback each time."""
        if self.answering():
            if self.abandon_answer():  # an answer half written: nothing can follow it
                self._close()
                return
        elif self.conn.our_state not in (h11.IDLE, h11.SEND_RESPONSE):
            # answered already, before the rest of its body came, garbled: the answer stands
            # and the connection ends after it (a second answer raised in h11, logged with a
            # traceback each time)
            self.transport.close()
            return
        because = self.conn.unreadable_because
        body = json.dumps(
            {
                "failure_message": "The request could not be read as HTTP/1.1"
                + (f": {because}" if because else ""),
                "detail": {"error_id": str(uuid.uuid4()), "title": self.malformed_title},
            }
        ).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        head_only = self.conn.method == b"HEAD"  # a body raised in h11
        for event in (
            h11.Response(status_code=400, headers=headers, reason=b"Bad Request"),
            *(() if head_only else (h11.Data(data=body),)),
            h11.EndOfMessage(),
        ):
            self.transport.write(self.conn.send(event) or b"")
        self.transport.close()

    def shutdown(self) -> None:
        """A stop's grace is not waited out for a reader who stopped taking its answer."""
        if self._stall_timer is not None:
            self._close()
        elif self.answering():
            self.close_after_answer()
        else:
            self.conn.send(h11.ConnectionClosed())
            self.transport.close()

    def _close(self) -> None:
        """Dropped at once, with what was still to be written to it: a graceful close waits
        for that to be taken, and a reader who stopped taking it would keep the connection,
        and its place, for ever."""
        self._dropped = True
        self.transport.abort()
