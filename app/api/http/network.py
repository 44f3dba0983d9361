"""The network under the transport: httpcore's connections on asyncio's own sockets, read ahead.

httpcore's default network (anyio) stops a socket's reading after every read and starts it
again before the next wait, with a cancel scope around each read. Under qasync each start makes
a Qt socket notifier and each stop destroys it: 1,100 of each for a million-row statement, and
a tenth of the window's load (README, "Statements"). Here a connection's socket is read ahead: a
read that finds bytes waiting takes them at once, without waiting or a timer, and the socket's
reading stops only while ``READ_AHEAD`` bytes wait unread (a server faster than the window
fills no more than that), to start again once half of them are read. A read that waits
gives the loop its turn (the window's, under qasync): bytes arrive only in a turn, so a reader
that never waits otherwise still gives one at least every ``READ_AHEAD`` and one socket read.
"""

from __future__ import annotations

import asyncio
import math
import select
import socket
import ssl
import sys
from collections import deque
from collections.abc import Iterable
from typing import Any, cast

import httpcore
import httpx

READ_AHEAD = 1024 * 1024  # bytes received and not yet read, at most (and one socket read more)
HAPPY_EYEBALLS_DELAY = 0.25  # seconds before the next address is tried alongside (as anyio)
HANDSHAKE_CUT = "the server closed the connection during the TLS handshake"
_TIMER_GRAIN = 0.001  # seconds: qasync's timers count whole milliseconds


class _Reception(asyncio.Protocol):
    """What a connection received and was not yet read, whether it ended, and whether it
    can take more to send."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.waiting: deque[bytes] = deque()
        self.waiting_bytes = 0
        self.ended = False  # the peer ended its data, or the connection was lost
        self.failure: Exception | None = None  # why the connection was lost, if it broke
        self._reading_paused = False
        self._sending_paused = False
        self._arrival = _Wakeup()  # bytes arrived, the connection ended, or the wait timed out
        self._sendable = _Wakeup()  # what was written has left, or the connection ended
        self._deadline = math.inf  # when the wait for bytes times out (the loop's time)
        # the timer that looks at it, and its time (qasync's handles do not tell it)
        self._watchdog: asyncio.Handle | None = None
        self._watchdog_at = math.inf

    # -- asyncio's side

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        self.waiting.append(data)
        self.waiting_bytes += len(data)
        if self.waiting_bytes >= READ_AHEAD and not self._reading_paused:
            assert self.transport is not None
            self._reading_paused = True
            self.transport.pause_reading()
        self._arrival.wake()

    def eof_received(self) -> bool:
        self.ended = True
        self._arrival.wake()
        return False  # the transport closes: an answer never follows its server's end

    def connection_lost(self, exc: Exception | None) -> None:
        self.ended = True
        self.failure = exc
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        self._arrival.wake()
        self._sendable.wake()

    def pause_writing(self) -> None:
        self._sending_paused = True

    def resume_writing(self) -> None:
        self._sending_paused = False
        self._sendable.wake()

    # -- the stream's side

    async def arrival(self, timeout: float | None = None) -> bool:  # noqa: ASYNC109 - one timer for many waits
        """Until bytes arrive or the connection ends (True), or ``timeout`` seconds pass with
        neither (False). One timer serves many waits, looking again when its time comes: a
        read of an answer that comes as fast as it is read waits for its next bytes a
        thousand times a second, and a timer armed and cancelled for each wait was, under
        qasync, a Qt timer left registered until its time came (2,600 for a million-row
        statement, a twentieth of the window's thread)."""
        if self.waiting or self.ended:
            return True
        if timeout is None:
            self._deadline = math.inf
        else:
            loop = asyncio.get_running_loop()
            self._deadline = loop.time() + timeout
            if self._watchdog is None or self._watchdog_at > self._deadline:
                if self._watchdog is not None:
                    self._watchdog.cancel()
                self._arm(loop)
        await self._arrival.wait()
        return bool(self.waiting or self.ended)

    def _watch(self) -> None:
        """The timer's time came: the wait it was armed for has ended, or one goes on (that
        started later, or not yet due: a Qt timer may come a little early)."""
        self._watchdog = None
        if not self._arrival.waited or self._deadline == math.inf:
            return
        loop = asyncio.get_running_loop()
        if loop.time() + _TIMER_GRAIN >= self._deadline:
            self._arrival.wake()
        else:
            self._arm(loop)

    def _arm(self, loop: asyncio.AbstractEventLoop) -> None:
        self._watchdog_at = self._deadline
        self._watchdog = loop.call_at(self._deadline, self._watch)

    async def sendable(self) -> None:
        """Until what was written has left, but for what the transport holds below its mark."""
        if self._sending_paused and self.failure is None and not self.ended:
            await self._sendable.wait()

    def take(self, most: int) -> bytes:
        """Up to ``most`` of the bytes waiting, in the order they came (some must be waiting)."""
        waiting = self.waiting
        first = waiting.popleft()
        if len(first) >= most:
            if len(first) > most:
                waiting.appendleft(first[most:])
                first = first[:most]
            taken = first
        else:
            parts, size = [first], len(first)
            while waiting and size + len(waiting[0]) <= most:
                part = waiting.popleft()
                parts.append(part)
                size += len(part)
            taken = first if len(parts) == 1 else b"".join(parts)
        self.waiting_bytes -= len(taken)
        if self._reading_paused and self.waiting_bytes < READ_AHEAD // 2:
            assert self.transport is not None
            self._reading_paused = False
            self.transport.resume_reading()
        return taken


class _Wakeup:
    """One task waiting, until the protocol wakes it."""

    def __init__(self) -> None:
        self._future: asyncio.Future[None] | None = None

    async def wait(self) -> None:
        self._future = asyncio.get_running_loop().create_future()
        try:
            await self._future
        finally:
            self._future = None

    @property
    def waited(self) -> bool:
        """A task waits."""
        return self._future is not None and not self._future.done()

    def wake(self) -> None:
        if self._future is not None and not self._future.done():
            self._future.set_result(None)


class AsyncioStream(httpcore.AsyncNetworkStream):
    """One connection, as httpcore reads and writes it; failures as httpcore's errors."""

    def __init__(
        self,
        transport: asyncio.Transport,
        reception: _Reception,
        under: asyncio.Transport | None = None,
    ) -> None:
        self._transport = transport
        self._reception = reception
        self._under = under  # under TLS: the plain connection it runs on

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:  # noqa: ASYNC109
        reception = self._reception
        if not await reception.arrival(timeout):
            raise httpcore.ReadTimeout(f"nothing came for {timeout:g} s")
        if reception.waiting:  # what came before the connection ended is read first
            return reception.take(max_bytes)
        if reception.failure is not None:
            raise httpcore.ReadError(str(reception.failure)) from reception.failure
        return b""

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:  # noqa: ASYNC109
        if not buffer:
            return
        reception = self._reception
        if self._transport.is_closing() or reception.failure is not None:
            raise httpcore.WriteError("the connection is closed") from reception.failure
        self._transport.write(buffer)
        try:
            async with asyncio.timeout(timeout):
                await reception.sendable()
        except TimeoutError:
            raise httpcore.WriteTimeout(f"the request did not leave in {timeout:g} s") from None
        if reception.failure is not None:
            raise httpcore.WriteError(str(reception.failure)) from reception.failure

    async def aclose(self) -> None:
        # closed at once: a plain close waits until every byte written has left (a server
        # that reads no more keeps the socket, and the request's body, as long as it likes),
        # and a TLS one for the server's own close (up to 30 s); what is unsent is not wanted
        if self._under is None:
            drop(self._transport)
            return
        self._transport.close()  # its close_notify is written first
        self._transport.abort()
        # a TLS connection the server ended (close_notify) is closed already, and its abort
        # no longer reaches the connection under it, which held a 16 MiB upload unsent for
        # as long as the server kept it
        drop(self._under)

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - httpcore's interface, as the others
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                secured = await loop.start_tls(
                    self._transport, self._reception, ssl_context, server_hostname=server_hostname
                )
        except TimeoutError:
            drop(self._transport)
            raise httpcore.ConnectTimeout(f"no TLS handshake in {timeout:g} s") from None
        except OSError as exc:  # ssl.SSLError and a connection reset among them
            drop(self._transport)
            raise httpcore.ConnectError(str(exc) or HANDSHAKE_CUT) from exc
        if secured is None:  # asyncio's word for the same, without an error
            raise httpcore.ConnectError(HANDSHAKE_CUT)
        self._reception.transport = secured
        return AsyncioStream(secured, self._reception, under=self._transport)

    def get_extra_info(self, info: str) -> Any:
        transport = self._transport
        if info == "ssl_object":
            return transport.get_extra_info("ssl_object")
        if info == "client_addr":
            return transport.get_extra_info("sockname")
        if info == "server_addr":
            return transport.get_extra_info("peername")
        if info == "socket":
            return transport.get_extra_info("socket")
        if info == "is_readable":  # an idle connection that is readable is not used again
            reception = self._reception
            return bool(reception.waiting) or reception.ended or _readable(transport)
        return None


def drop(transport: asyncio.Transport) -> None:
    """A plain connection closed at once, with what it still held unsent. One closing with
    nothing left to send has closed, or closes in this turn of the loop: asyncio cannot abort
    one that closed itself after sending what it held (its close was not counted and its loop
    is gone: AttributeError; anyio #1250), as it does once its server ends while an upload
    waits in it. (A TLS connection's abort reaches this one only while it is open.)"""
    if transport.is_closing() and not transport.get_write_buffer_size():
        return
    transport.abort()


def _readable(transport: asyncio.Transport) -> bool:
    """Whether the connection's socket holds bytes not yet received (or is gone)."""
    sock = transport.get_extra_info("socket")
    descriptor = -1 if sock is None else sock.fileno()
    if descriptor < 0:
        return True
    if sys.platform == "win32" or not hasattr(select, "poll"):
        return bool(select.select([descriptor], [], [], 0)[0])
    poller = select.poll()
    poller.register(descriptor, select.POLLIN)
    return bool(poller.poll(0))


class AsyncioNetwork(httpcore.AsyncNetworkBackend):
    """Connections over TCP, on the running asyncio loop (qasync's in the window)."""

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                transport, reception = await loop.create_connection(
                    _Reception,
                    host,
                    port,
                    local_addr=None if local_address is None else (local_address, 0),
                    happy_eyeballs_delay=HAPPY_EYEBALLS_DELAY,
                )
        except TimeoutError:  # asyncio's, or the system's (ETIMEDOUT)
            raise httpcore.ConnectTimeout(f"not connected in {timeout:g} s") from None
        except OSError as exc:  # refused, unreachable, a name not found
            raise httpcore.ConnectError(str(exc)) from exc
        try:
            sock = transport.get_extra_info("socket")
            for option in socket_options or ():
                sock.setsockopt(*option)
        except OSError as exc:
            drop(transport)
            raise httpcore.ConnectError(str(exc)) from exc
        return AsyncioStream(transport, reception)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


def http_transport(tls: ssl.SSLContext) -> httpx.AsyncHTTPTransport:
    """httpx's transport with its defaults, its connections on `AsyncioNetwork`; a request's
    head and body leave together, not one delayed ACK (~40 ms) apart (TCP_NODELAY)."""
    options = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
    transport = httpx.AsyncHTTPTransport(verify=tls, socket_options=options)
    limits = httpx.Limits(max_connections=100, max_keepalive_connections=20)  # httpx's own
    # httpx takes no network of its own choosing: its pool is made again, the same but for it
    transport._pool = httpcore.AsyncConnectionPool(
        ssl_context=tls,
        max_connections=limits.max_connections,
        max_keepalive_connections=limits.max_keepalive_connections,
        keepalive_expiry=limits.keepalive_expiry,
        socket_options=options,
        network_backend=AsyncioNetwork(),
    )
    return transport
