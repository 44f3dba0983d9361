"""A server's connections within the files its process may open, and accept failures said
in a line now and then, not a traceback each."""

import asyncio
import contextlib
import logging
import resource
import selectors
import socket
import threading
import time

import pytest

from app.serving import runner
from app.serving.sockets import bind


@pytest.mark.parametrize(
    ("soft", "kept", "batch"),
    [(100_000, 512, 64), (1024, 512, 64), (832, 512, 64), (512, 224, 56), (256, 96, 24)],
)
def test_connections_and_accept_batches_stay_within_the_open_file_limit(
    monkeypatch, soft, kept, batch
):
    monkeypatch.setattr(resource, "getrlimit", lambda _which: (soft, soft))
    assert runner.connection_bound(512) == (kept, batch)
    in_flight = runner.BATCHES_IN_FLIGHT * batch
    assert kept + in_flight + runner.OTHER_FILES <= soft


def test_a_low_soft_limit_is_raised_as_far_as_the_hard_one_allows(monkeypatch):
    limits = {"soft": 256, "hard": 4096}
    monkeypatch.setattr(resource, "getrlimit", lambda _which: (limits["soft"], limits["hard"]))

    def setrlimit(_which, values):
        limits["soft"], limits["hard"] = values

    monkeypatch.setattr(resource, "setrlimit", setrlimit)
    assert runner.connection_bound(512) == (512, 64)
    assert limits == {"soft": 512 + 4 * 64 + 64, "hard": 4096}


def test_a_small_bound_asked_for_is_kept(monkeypatch):
    monkeypatch.setattr(resource, "getrlimit", lambda _which: (64, 64))
    assert runner.connection_bound(4) == (4, 4)  # below the floor of 16: as asked
    assert runner.connection_bound(512)[0] == 16  # the floor, however few files


@pytest.mark.allow_warning_logs
def test_accepts_failing_are_said_once_in_a_while_with_their_count(caplog):
    loop = asyncio.new_event_loop()
    try:
        runner._accept_failures_said_briefly(loop)
        failure = {
            "message": "socket.accept() out of system resource",
            "exception": OSError(24, "Too many open files"),
        }
        for _ in range(300):
            loop.call_exception_handler(failure)
        said = [r.getMessage() for r in caplog.records if r.name == "partner_desk.serving"]
        assert said == [
            "Connections cannot be accepted for a moment: [Errno 24] Too many open files "
            "(1 times since last said)"
        ]
        loop.call_exception_handler({"message": "something else"})
        assert any(
            r.name == "asyncio" and r.getMessage() == "something else" for r in caplog.records
        )
    finally:
        loop.close()


def test_a_line_a_client_can_cause_per_request_is_said_once_in_a_while_with_a_count(monkeypatch):
    clock = {"now": 1000.0}
    monkeypatch.setattr(runner.time, "monotonic", lambda: clock["now"])
    said_briefly = runner.SaidBriefly(("Invalid HTTP request received.",))

    def passes(message: str) -> str | None:
        record = logging.LogRecord("uvicorn.error", logging.WARNING, "", 0, message, None, None)
        return record.getMessage() if said_briefly.filter(record) else None

    assert passes("Invalid HTTP request received.") == "Invalid HTTP request received."
    assert [passes("Invalid HTTP request received.") for _ in range(299)] == [None] * 299
    assert passes("Started server process") == "Started server process"  # others: each said
    clock["now"] += runner.SAID_BRIEFLY_SECONDS
    assert passes("Invalid HTTP request received.") == (
        "Invalid HTTP request received. (and 299 more like it since last said)"
    )
    assert passes("Invalid HTTP request received.") is None


def test_a_stop_that_comes_while_the_server_starts_ends_it_without_an_error():
    """A stop while uvicorn starts: it shuts down, closing the socket, as soon as it has
    started, before `serve` saw it start; `serve` listened again on the closed socket, and
    the receiver's stop ended in "cannot listen: Bad file descriptor", status 1."""
    server: list[object] = []

    async def app(scope, receive, send):
        assert scope["type"] == "lifespan"
        await receive()
        server[0].should_exit = True  # a stop, as a signal sets it, while it starts
        await send({"type": "lifespan.startup.complete"})
        await receive()
        await send({"type": "lifespan.shutdown.complete"})

    server.append(runner.guarded_server(app))
    sock = bind("127.0.0.1", 0)
    said: list[str] = []
    asyncio.run(runner.serve(server[0], sock, lambda: said.append("started")))
    assert sock.fileno() == -1  # closed by the server's shutdown, and nothing raised
    assert said == ["started"]


def test_a_burst_of_connections_waits_in_the_backlog_while_the_server_is_busy():
    """The connections a server has not accepted yet wait in the kernel's backlog: a burst
    of 200 while its loop is busy all connect (asyncio listened with its accept batch of 64,
    and the rest were dropped, connecting a second or two later)."""
    inside, gate = threading.Event(), threading.Event()

    async def app(scope, receive, send):
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        inside.set()
        gate.wait(30)  # the server's loop is busy: nothing is accepted meanwhile
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    background = runner.BackgroundServer(
        "busy server", bind("127.0.0.1", 0), lambda: runner.guarded_server(app)
    )
    background.start(timeout=30)
    assert background.server is not None
    port = background.server.servers[0].sockets[0].getsockname()[1]
    burst: list[socket.socket] = []
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=30) as first:
            first.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            assert inside.wait(30)
            connecting = selectors.DefaultSelector()
            for _ in range(200):
                sock = socket.socket()
                burst.append(sock)
                sock.setblocking(False)
                with contextlib.suppress(BlockingIOError):
                    sock.connect(("127.0.0.1", port))
                connecting.register(sock, selectors.EVENT_WRITE)
            connected = 0
            deadline = time.monotonic() + 30  # reached only when some wait for a retry
            while connected < len(burst) and time.monotonic() < deadline:
                for key, _events in connecting.select(deadline - time.monotonic()):
                    connecting.unregister(key.fileobj)
                    connected += 1
            connecting.close()
            gate.set()
            assert connected == len(burst)
            assert first.recv(64).startswith(b"HTTP/1.1 204")
    finally:
        gate.set()
        for sock in burst:
            sock.close()
        background.stop()
