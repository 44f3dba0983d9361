"""The network under the transport (app.api.http.network), against servers of the tests' own
on loopback: reading ahead and its bound, ends and breaks, timeouts, TLS."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
import struct
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import cast

import httpcore
import pytest

from app.api.errors import ApiConnectionError, ApiTimeoutError, ClosedByDesk
from app.api.http import AnswerStream, Bounds, Transport
from app.api.http.exchange import Exchange
from app.api.http.network import READ_AHEAD, AsyncioNetwork, AsyncioStream, drop
from app.api.http.policy import RetryPolicy
from tests.certificates import make_server_certificate
from tests.conftest import run

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
MiB = 1024 * 1024
SOCKET_READ = 256 * 1024  # asyncio's one read of a socket


@contextlib.asynccontextmanager
async def serving(handler: Handler, tls: ssl.SSLContext | None = None) -> AsyncIterator[int]:
    """A server on loopback, its port; at the end its connections are closed, their handlers
    stopped and awaited (asyncio 3.11's server leaves them open)."""
    handlers: set[asyncio.Task[None]] = set()
    writers: list[asyncio.StreamWriter] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writers.append(writer)
        task = asyncio.current_task()
        assert task is not None
        handlers.add(task)
        await handler(reader, writer)

    server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=tls)
    try:
        yield int(server.sockets[0].getsockname()[1])
    finally:
        server.close()
        for task in handlers:
            task.cancel()
        await asyncio.gather(*handlers, return_exceptions=True)
        for writer in writers:
            if tls is None:  # what a handler closed may have closed itself since
                drop(cast(asyncio.Transport, writer.transport))
            else:
                writer.transport.abort()
        await server.wait_closed()
        await asyncio.sleep(0)  # the transports' closing callbacks


@pytest.fixture
def tls(tmp_path: Path) -> tuple[Path, ssl.SSLContext]:
    """A CA's bundle, and a server's TLS context with a certificate it signed for localhost."""
    bundle, certificate, key = make_server_certificate(tmp_path)
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_tls.load_cert_chain(certificate, key)
    return bundle, server_tls


async def read_all(stream: httpcore.AsyncNetworkStream, most: int = SOCKET_READ) -> bytes:
    parts = []
    while part := await stream.read(most, timeout=10):
        assert len(part) <= most
        parts.append(part)
    return b"".join(parts)


def test_reads_take_what_came_in_order_then_the_end_reads_empty():
    data = bytes(range(256)) * (12 * 1024)  # 3 MiB

    async def send(_reader, writer):
        for at in range(0, len(data), 64 * 1024):
            writer.write(data[at : at + 64 * 1024])
            await writer.drain()
        writer.close()

    async def main():
        async with serving(send) as port:
            stream = await AsyncioNetwork().connect_tcp("127.0.0.1", port)
            assert await read_all(stream, 100_000) == data
            assert await stream.read(100_000) == b""
            await stream.aclose()

    run(main())


def test_reading_stops_while_the_read_ahead_is_full_and_starts_again_as_it_is_read():
    data = struct.pack(">I", 7) * (2 * MiB)  # 8 MiB, more than the read-ahead and the kernel's
    release = asyncio.Event()

    async def send(_reader, writer):
        writer.write(data)
        await writer.drain()
        await release.wait()
        writer.close()

    async def main():
        async with serving(send) as port:
            stream = await AsyncioNetwork().connect_tcp("127.0.0.1", port)
            assert isinstance(stream, AsyncioStream)
            transport, reception = stream._transport, stream._reception
            async with asyncio.timeout(30):
                while transport.is_reading():  # it stops once the read-ahead is full, and stays
                    await asyncio.sleep(0.01)
            assert READ_AHEAD <= reception.waiting_bytes < READ_AHEAD + SOCKET_READ
            release.set()
            assert await read_all(stream) == data  # reading went on for the rest
            await stream.aclose()

    run(main())


def test_a_read_that_waits_too_long_is_a_read_timeout():
    async def silent(reader, _writer):
        await reader.read()

    async def main():
        async with serving(silent) as port:
            stream = await AsyncioNetwork().connect_tcp("127.0.0.1", port)
            with pytest.raises(httpcore.ReadTimeout, match="nothing came for 0.05 s"):
                await stream.read(1024, timeout=0.05)
            await stream.aclose()

    run(main())


def timers_armed() -> list[float]:
    """When each timer the running loop arms from now on is due (a sleep's left out): the
    list grows as they are armed."""
    loop = asyncio.get_running_loop()
    armed: list[float] = []
    call_at = loop.call_at

    def counted(when, callback, *args, **kwargs):
        if callback.__qualname__ != "_set_result_unless_cancelled":  # not a sleep
            armed.append(when)
        return call_at(when, callback, *args, **kwargs)

    loop.call_at = counted  # type: ignore[method-assign]
    return armed


def answering() -> Handler:
    """A server that answers each digit asked with an "x", that many tenths of a second on."""

    async def answer(reader, writer):
        while asked := await reader.read(1):
            await asyncio.sleep(int(asked) / 10)
            writer.write(b"x")
            await writer.drain()

    return answer


def test_reads_that_wait_again_and_again_arm_one_timer_and_a_silence_still_times_out():
    async def main():
        async with serving(answering()) as port:
            stream = await AsyncioNetwork().connect_tcp("127.0.0.1", port)
            armed = timers_armed()
            for _ in range(50):  # asked first: each read waits for its answer
                await stream.write(b"0")
                assert await stream.read(1024, timeout=30) == b"x"
            assert len(armed) == 1  # a timer for every wait was 50 of them
            # a shorter wait is not left to the later timer: it times out in its own time
            with pytest.raises(httpcore.ReadTimeout, match="nothing came for 0.05 s"):
                await stream.read(1024, timeout=0.05)
            assert len(armed) == 2
            await stream.aclose()

    run(main())


def test_a_read_with_no_timeout_is_not_ended_by_the_timer_of_one_before():
    async def main():
        async with serving(answering()) as port:
            stream = await AsyncioNetwork().connect_tcp("127.0.0.1", port)
            await stream.write(b"0")
            assert await stream.read(1024, timeout=0.1) == b"x"  # its timer: 0.1 s on
            await stream.write(b"3")
            assert await stream.read(1024) == b"x"  # no timeout: waits past that timer
            await stream.write(b"3")
            assert await stream.read(1024, timeout=5) == b"x"  # a longer one: the same
            await stream.aclose()

    run(main())


def test_what_came_before_a_broken_connection_is_read_then_the_break():
    cut = asyncio.Event()

    async def send_then_reset(_reader, writer):
        writer.write(b"abc")
        await writer.drain()
        await cut.wait()
        sock = writer.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.transport.abort()  # a reset, not an end

    async def main():
        async with serving(send_then_reset) as port:
            stream = await AsyncioNetwork().connect_tcp("127.0.0.1", port)
            assert await stream.read(1024, timeout=10) == b"abc"
            cut.set()
            with pytest.raises(httpcore.ReadError) as raised:
                await stream.read(1024, timeout=10)
            assert isinstance(raised.value.__cause__, ConnectionResetError)
            with pytest.raises(httpcore.WriteError):
                await stream.write(b"more", timeout=10)
            await stream.aclose()

    run(main())


def test_an_idle_connection_the_server_ended_is_readable_so_not_used_again():
    ended = asyncio.Event()

    async def end(_reader, writer):
        await ended.wait()
        writer.close()
        await writer.wait_closed()

    async def main():
        async with serving(end) as port:
            stream = await AsyncioNetwork().connect_tcp("127.0.0.1", port)
            assert stream.get_extra_info("is_readable") is False
            assert stream.get_extra_info("server_addr") == ("127.0.0.1", port)
            ended.set()
            assert await stream.read(1024, timeout=10) == b""
            assert stream.get_extra_info("is_readable") is True
            await stream.aclose()

    run(main())


def test_a_refused_connection_is_a_connect_error_with_the_reason():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens there once it is closed

    async def main():
        with pytest.raises(httpcore.ConnectError) as raised:
            await AsyncioNetwork().connect_tcp("127.0.0.1", port, timeout=10)
        assert isinstance(raised.value.__cause__, ConnectionRefusedError)

    run(main())


def test_a_connection_not_made_in_time_is_a_connect_timeout():
    async def main():
        async with serving(lambda _r, w: asyncio.sleep(0)) as port:
            with pytest.raises(httpcore.ConnectTimeout, match="not connected in 0 s"):
                await AsyncioNetwork().connect_tcp("127.0.0.1", port, timeout=0)

    run(main())


def test_tls_to_a_server_whose_ca_is_trusted_carries_the_bytes(tls):
    bundle, server_tls = tls

    async def echo(reader, writer):
        writer.write((await reader.readexactly(4)).upper())
        await writer.drain()
        writer.close()

    async def main():
        async with serving(echo, server_tls) as port:
            plain = await AsyncioNetwork().connect_tcp("127.0.0.1", port)
            client_tls = ssl.create_default_context(cafile=str(bundle))
            stream = await plain.start_tls(client_tls, "localhost", timeout=10)
            assert stream.get_extra_info("ssl_object").version().startswith("TLS")
            await stream.write(b"ping", timeout=10)
            assert await read_all(stream) == b"PING"
            await stream.aclose()

    run(main())


def test_tls_to_a_server_whose_ca_is_not_trusted_is_refused_and_told_why(tls):
    server_tls = tls[1]

    async def answer(reader, writer):
        with contextlib.suppress(ssl.SSLError, ConnectionError):  # the client gave up
            await reader.read()
        writer.close()

    async def main():
        async with serving(answer, server_tls) as port:
            plain = await AsyncioNetwork().connect_tcp("127.0.0.1", port)
            with pytest.raises(httpcore.ConnectError) as raised:
                await plain.start_tls(ssl.create_default_context(), "localhost", timeout=10)
            assert isinstance(raised.value.__cause__, ssl.SSLCertVerificationError)

    run(main())


def test_the_transport_calls_a_tls_server_through_it_and_words_an_untrusted_one(tls):
    bundle, server_tls = tls

    async def http(reader, writer):
        try:
            await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ssl.SSLError, ConnectionError):
            writer.close()  # a client that did not trust the server
            return
        body = b'{"ok": true}'
        head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}"
        writer.write(head.encode() + b"\r\n\r\n" + body)
        await writer.drain()
        writer.close()

    async def main():
        async with serving(http, server_tls) as port:
            url = f"https://localhost:{port}"
            trusting = Transport(url, verify=str(bundle))
            try:
                answer = await trusting.request("GET", "/ping", secured=False)
                assert answer.content == b'{"ok": true}'
            finally:
                await trusting.aclose()
            distrusting = Transport(url)
            try:
                with pytest.raises(ApiConnectionError, match="certificate is not trusted"):
                    await distrusting.request("GET", "/ping", secured=False)
            finally:
                await distrusting.aclose()

    run(main())


def test_a_server_refused_for_what_its_tls_is_is_tried_once_a_dropped_connection_again(tls):
    """An untrusted certificate, or no TLS at the https:// address, would be met again by a
    retry: the person is told at once. A connection dropped before the handshake may not be:
    it is tried again, as before."""
    _bundle, server_tls = tls
    connections = {"untrusted": 0, "plain": 0, "dropped": 0}

    def counted(name: str, answer: Handler) -> Handler:
        async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            connections[name] += 1
            await answer(reader, writer)

        return handler

    async def untrusted(_reader, writer):  # TLS over the counted connection
        with contextlib.suppress(ssl.SSLError, ConnectionError):
            await writer.start_tls(server_tls)
        writer.close()

    async def plain(reader, writer):  # an HTTP server at an https:// address
        with contextlib.suppress(ConnectionError):
            await reader.read(1)
            writer.write(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
            await writer.drain()
        writer.close()

    async def dropped(_reader, writer):
        writer.transport.abort()

    async def attempts(name: str, answer: Handler) -> tuple[str, list[int]]:
        async with serving(counted(name, answer)) as port:
            transport = Transport(f"https://localhost:{port}", retry=RetryPolicy(backoff=0.01))
            seen: list[Exchange] = []
            transport.add_listener(seen.append)
            try:
                with pytest.raises(ApiConnectionError) as raised:
                    await transport.request("GET", "/ping", secured=False)
            finally:
                await transport.aclose()
        return str(raised.value), [exchange.attempt for exchange in seen]

    async def main():
        message, tried = await attempts("untrusted", untrusted)
        assert "the server's certificate is not trusted" in message
        assert tried == [1]
        message, tried = await attempts("plain", plain)
        assert "the server does not answer in TLS there: is its address http://?" in message
        assert tried == [1]
        _message, tried = await attempts("dropped", dropped)
        assert tried == [1, 2, 3]

    run(main())
    assert connections == {"untrusted": 1, "plain": 1, "dropped": 3}


def test_closing_the_transport_stops_the_calls_on_their_way_as_the_desks_doing():
    """Calls still on their way when the desk closes a transport (a sign-in anew) are the
    desk's to stop, never the server's failure: a read ends cancelled; a call that may have
    changed something fails saying its outcome is not known (its form offers to send it
    again, with its key); a call made after the close is cancelled."""
    started = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n[1"

    async def answer(reader, writer):
        request = await reader.readuntil(b"\r\n\r\n")
        if request.startswith(b"GET /started"):
            writer.write(started)  # the answer begun, the rest never sent
        with contextlib.suppress(ConnectionError):
            await reader.read()  # until the client closes
        writer.close()

    async def main():
        async with serving(answer) as port:
            transport = Transport(f"http://127.0.0.1:{port}")
            unanswered = asyncio.create_task(transport.request("GET", "/never", secured=False))
            posted = asyncio.create_task(
                transport.request("POST", "/never", json_body={"id": "T1"}, secured=False)
            )
            stream = await transport.stream("GET", "/started")
            chunks = stream.chunks()
            assert await anext(chunks) == b"[1"
            half_read = asyncio.create_task(anext(chunks))
            await asyncio.sleep(0)  # both wait for the server now
            assert not unanswered.done() and not half_read.done() and not posted.done()
            await transport.aclose()
            for task in (unanswered, half_read):
                with pytest.raises(asyncio.CancelledError):
                    await task
            with pytest.raises(ClosedByDesk) as raised:
                await posted
            assert str(raised.value).startswith(
                f"The desk closed its connection to http://127.0.0.1:{port} (signed in anew) "
                "before the answer came: whether it was carried out is not known"
            )
            with pytest.raises(asyncio.CancelledError):
                await transport.request("GET", "/after", secured=False)

    run(main())


def test_a_reader_that_never_waits_otherwise_gives_the_loop_a_turn_every_read_ahead():
    data = b"y" * (16 * MiB)  # from a server faster than its reader: the read-ahead stays full

    async def send(_reader, writer):
        writer.write(data)
        await writer.drain()
        writer.close()

    async def main():
        turns = 0

        async def count_turns() -> None:
            nonlocal turns
            while True:
                await asyncio.sleep(0)
                turns += 1

        async with serving(send) as port:
            stream = await AsyncioNetwork().connect_tcp("127.0.0.1", port)
            counter = asyncio.create_task(count_turns())
            received = 0
            while part := await stream.read(SOCKET_READ, timeout=10):
                received += len(part)  # and nothing else awaited between reads
            counter.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await counter
            await stream.aclose()
        assert received == len(data)
        assert turns >= len(data) // (READ_AHEAD + SOCKET_READ) - 1

    run(main())


def test_an_answer_that_always_has_more_waiting_ends_at_its_total_time():
    # each read finds bytes waiting, so no read ever waits: the stream's total time is still
    # kept, although the consumer waits only between reads (a window busy elsewhere)
    async def endless(reader, writer):
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1000000000000\r\n\r\n")
        block = b"z" * (256 * 1024)
        while not writer.is_closing():
            writer.write(block)
            await writer.drain()

    async def read_slowly(transport: Transport) -> None:
        stream = await transport.stream("GET", "/endless")
        async for _chunk in stream.chunks():
            await asyncio.sleep(0.02)

    async def main():
        async with serving(endless) as port:
            transport = Transport(f"http://127.0.0.1:{port}", bounds=Bounds(stream_total=0.5))
            try:
                async with asyncio.timeout(30):  # a failure, not a hang, when it is not kept
                    with pytest.raises(ApiTimeoutError, match="did not end within 0.5 s"):
                        await read_slowly(transport)
            finally:
                await transport.aclose()

    run(main())


def chunked_then(pause: asyncio.Event, parts: int) -> Handler:
    """A server answering with ``parts`` chunks, then nothing until ``pause`` is set."""

    async def answer(reader, writer):
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        for _ in range(parts):
            writer.write(b"3\r\nabc\r\n")
            await writer.drain()
            await asyncio.sleep(0.001)
        await pause.wait()
        writer.write(b"0\r\n\r\n")
        await writer.drain()

    return answer


@contextlib.asynccontextmanager
async def answer_from(handler: Handler, bounds: Bounds) -> AsyncIterator[AnswerStream]:
    """The answer of a server of the tests' own to a GET through a transport; both closed
    at the end."""
    async with serving(handler) as port:
        transport = Transport(f"http://127.0.0.1:{port}", bounds=bounds)
        try:
            yield await transport.stream("GET", "/answer")
        finally:
            await transport.aclose()


def test_an_answer_that_stops_coming_ends_at_its_total_time_in_the_read_that_waits():
    # nothing comes for far longer than the total time, but less than a read may wait
    async def main():
        bounds = Bounds(stream_total=0.3, step_timeout=30)
        async with answer_from(chunked_then(asyncio.Event(), 1), bounds) as stream:
            async with asyncio.timeout(20):  # a failure, not a hang, when it is not kept
                with pytest.raises(ApiTimeoutError, match="did not end within 0.3 s"):
                    async for _chunk in stream.chunks():
                        pass

    run(main())


def test_an_answer_read_in_many_parts_arms_one_timer_for_its_total_time():
    async def main():
        done = asyncio.Event()
        async with answer_from(chunked_then(done, 40), Bounds(stream_total=60)) as stream:
            armed = timers_armed()
            received = b""
            async for chunk in stream.chunks():
                received += chunk
                if len(received) == 120:
                    done.set()
            assert received == b"abc" * 40
            # the answer's deadline, and the reads' one timer: not one for every read
            assert len(armed) <= 2

    run(main())


def test_a_read_cancelled_from_outside_is_cancelled_not_a_timeout():
    async def main():
        bounds = Bounds(stream_total=0.2)
        async with answer_from(chunked_then(asyncio.Event(), 1), bounds) as stream:

            async def read_all():
                async for _chunk in stream.chunks():
                    pass

            reading = asyncio.ensure_future(read_all())
            await asyncio.sleep(0.05)  # waiting for what does not come
            reading.cancel()
            with pytest.raises(asyncio.CancelledError):
                await reading
            await asyncio.sleep(0.3)  # past the deadline: its timer was cancelled with it

    run(main())


def test_a_request_that_cannot_leave_in_time_is_a_write_timeout_and_closing_drops_it():
    # a server that reads no more would keep the socket, and the body, as long as it liked
    async def not_reading(_reader, _writer):
        await asyncio.sleep(30)

    async def main():
        async with serving(not_reading) as port:
            stream = await AsyncioNetwork().connect_tcp("127.0.0.1", port)
            assert isinstance(stream, AsyncioStream)
            with pytest.raises(httpcore.WriteTimeout, match="did not leave in 0.1 s"):
                await stream.write(b"x" * (64 * MiB), timeout=0.1)  # past every buffer
            await stream.aclose()
            async with asyncio.timeout(10):
                await stream._reception.arrival()  # the connection is lost: it has ended
            assert stream.get_extra_info("socket").fileno() == -1

    run(main())


@contextlib.contextmanager
def holding_tls_server(server_tls: ssl.SSLContext) -> Iterator[int]:
    """A TLS server that completes a handshake, then reads nothing and answers no close; its
    port. A blocking one, in a thread: asyncio's would answer a close_notify by itself."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(20)  # the thread ends even when no client came
    done = threading.Event()

    def hold() -> None:
        accepted, _ = listener.accept()
        with server_tls.wrap_socket(accepted, server_side=True):
            done.wait(30)

    server = threading.Thread(target=hold)
    server.start()
    try:
        yield listener.getsockname()[1]
    finally:
        done.set()
        server.join()
        listener.close()


async def tls_stream(port: int, bundle: Path) -> AsyncioStream:
    plain = await AsyncioNetwork().connect_tcp("127.0.0.1", port)
    client_tls = ssl.create_default_context(cafile=str(bundle))
    stream = await plain.start_tls(client_tls, "localhost", timeout=10)
    assert isinstance(stream, AsyncioStream)
    return stream


def test_a_connection_that_closed_itself_after_sending_its_upload_closes_quietly():
    # the server's end came while the upload waited in the transport, which then closed
    # itself once it had sent the rest (asyncio's way): closing the stream after that raised
    # AttributeError from asyncio, as an unexplained failure of the request
    upload = b"u" * (16 * MiB)  # more than loopback's buffers: most of it waits to be sent
    taken = 0
    all_taken = asyncio.Event()

    async def end_then_take(reader, writer):
        nonlocal taken
        taken = len(await reader.readexactly(1))
        writer.write_eof()
        while part := await reader.read(SOCKET_READ):
            taken += len(part)
        all_taken.set()

    async def main():
        async with serving(end_then_take) as port:
            stream = await AsyncioNetwork().connect_tcp("127.0.0.1", port)
            await stream.write(upload, timeout=10)
            async with asyncio.timeout(10):
                await all_taken.wait()  # the upload was sent whole, then the connection closed
            await stream.aclose()
            assert await stream.read(1024, timeout=10) == b""
        assert taken == len(upload)

    run(main())


def test_a_tls_connection_closed_does_not_wait_for_the_servers_close(tls):
    bundle, server_tls = tls

    async def main(port: int) -> None:
        stream = await tls_stream(port, bundle)
        await stream.aclose()
        async with asyncio.timeout(10):  # asyncio would wait 30 s for the server's close
            await stream._reception.arrival()

    with holding_tls_server(server_tls) as port:
        run(main(port))


def test_a_tls_connection_the_server_ended_is_closed_with_its_upload_unsent(tls):
    bundle, server_tls = tls

    async def main(port: int) -> None:
        stream = await tls_stream(port, bundle)
        await stream.write(b"x" * (16 * MiB), timeout=10)  # TLS queues it all at once
        stream._transport.close()  # as asyncio does on the server's close_notify
        await stream.aclose()
        async with asyncio.timeout(10):  # else held until the server reads the upload
            await stream._reception.arrival()

    with holding_tls_server(server_tls) as port:
        run(main(port))


def test_a_server_that_hangs_up_during_the_tls_handshake_is_a_connect_error_saying_so():
    async def hang_up(_reader, writer):
        writer.transport.abort()

    async def main():
        async with serving(hang_up) as port:
            plain = await AsyncioNetwork().connect_tcp("127.0.0.1", port)
            with pytest.raises(httpcore.ConnectError) as raised:
                await plain.start_tls(ssl.create_default_context(), "localhost", timeout=10)
        assert str(raised.value)  # asyncio's own reason can be empty: never this one

    run(main())


def test_an_answer_that_breaks_off_says_so_not_that_the_server_cannot_be_reached():
    async def cut_short(reader, writer):
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n[{},")
        await writer.drain()
        writer.close()

    async def read_all(transport: Transport) -> None:
        stream = await transport.stream("GET", "/short")
        async for _chunk in stream.chunks():
            pass

    async def main():
        async with serving(cut_short) as port:
            transport = Transport(f"http://127.0.0.1:{port}")
            try:
                with pytest.raises(ApiConnectionError) as raised:
                    await read_all(transport)
            finally:
                await transport.aclose()
        assert str(raised.value).startswith(
            f"The answer from http://127.0.0.1:{port} broke off: the server closed the "
            "connection or broke the HTTP protocol (peer closed connection without sending "
            "complete message body"
        )

    run(main())
