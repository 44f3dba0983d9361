"""Running a server: in the foreground until interrupted, or on a thread and event loop of
its own (so a busy window never delays an answer). Every server is guarded (app.serving.guard)
and bounded in the requests it takes at once."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import uvicorn

from app.serving.guard import GuardedH11Protocol
from app.serving.sockets import LISTEN_BACKLOG
from app.serving.stopping import StopRequest

log = logging.getLogger("partner_desk.serving")

# connections accepted in one turn of the loop, before the bound looks at any (asyncio
# accepts as many as the server's backlog setting; uvicorn's default is 2,048): at most this,
# fewer where few files may be opened
ACCEPT_BATCH = 64
BATCHES_IN_FLIGHT = 4  # accepted, or closed by the bound, and not yet let go (seen: three)
OTHER_FILES = 64  # the process's own: the store, its logs, pipes, the loop's
ACCEPT_FAILURE_SECONDS = 10.0  # accepts failing (out of files) are said at most this often
SAID_BRIEFLY_SECONDS = 10.0  # and so is each of uvicorn's lines a client's request can cause
_SAID_PER_REQUEST = (
    "Invalid HTTP request received.",
    "Unsupported upgrade request.",
    "No supported WebSocket library detected.",
    "Exceeded concurrency limit.",
)
_ACCEPT_FAILED = "socket.accept() out of system resource"  # asyncio's words
MIN_CONNECTIONS = 16  # however few files may be opened: a client's pool needs several


def guarded_server(
    app: Any,
    *,
    protocol: type[GuardedH11Protocol] = GuardedH11Protocol,
    head_seconds: float = GuardedH11Protocol.head_seconds,
    max_connections: int = GuardedH11Protocol.max_connections,
    stall_seconds: float = GuardedH11Protocol.stall_seconds,
    malformed_title: str = GuardedH11Protocol.malformed_title,
    on_closed: Callable[[], None] | None = None,
    **config: Any,
) -> uvicorn.Server:
    """A uvicorn server of ``app`` whose connections are bounded as given, taking at most twice
    as many requests at once as connections; ``config`` is the rest of uvicorn's settings. The
    bound keeps within the files the process may open (`connection_bound`). ``on_closed`` is
    told of each connection that ends; ``protocol``: the connection's class, the guard's own
    or one made from it."""
    max_connections, batch = connection_bound(max_connections)
    # the files kept for batches in flight held the connections a burst brought past the
    # limit, closed at once; parked, they hold them a little longer, but for one batch, kept
    # for those accepted and not yet looked at
    max_parked = (BATCHES_IN_FLIGHT - 1) * batch
    bounded = type(
        "BoundedH11Protocol",
        (protocol,),
        {
            "head_seconds": head_seconds,
            "max_connections": max_connections,
            "max_parked": max_parked,
            "parked": deque(),
            "stall_seconds": stall_seconds,
            "malformed_title": malformed_title,
            "on_closed": None if on_closed is None else staticmethod(on_closed),
        },
    )
    settings: dict[str, Any] = {
        "log_level": "warning",
        "access_log": False,
        "lifespan": "on",
        "backlog": batch,
    }
    settings.update(config)
    grace = settings.get("timeout_graceful_shutdown")
    if grace is not None:
        # asyncio's wait_for(0) times out even with nothing to wait for, and uvicorn then
        # logs an error for every stop: a grace of 0 waits a millisecond
        settings["timeout_graceful_shutdown"] = max(grace, 0.001)
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            http=bounded,
            # uvicorn counts the parked among the connections (`GuardedH11Protocol`)
            limit_concurrency=2 * max_connections + max_parked,
            **settings,
        )
    )
    # after uvicorn's Config, which configures its loggers
    uvicorn_log = logging.getLogger("uvicorn.error")
    if not any(isinstance(each, SaidBriefly) for each in uvicorn_log.filters):
        uvicorn_log.addFilter(SaidBriefly(_SAID_PER_REQUEST))
    return server


class SaidBriefly(logging.Filter):
    """Messages a client can have logged once per request it sends (garbage, an upgrade
    asked for) are said the first time, then at most once every ``SAID_BRIEFLY_SECONDS``
    with how many there were: thousands of requests would flood the log, a line each."""

    def __init__(self, messages: tuple[str, ...]) -> None:
        super().__init__()
        self._messages = messages
        self._last_said: dict[str, float] = {}
        self._unsaid: dict[str, int] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.msg
        if not isinstance(message, str) or not message.startswith(self._messages):
            return True
        now = time.monotonic()
        last = self._last_said.get(message)
        if last is not None and now - last < SAID_BRIEFLY_SECONDS:
            self._unsaid[message] = self._unsaid.get(message, 0) + 1
            return False
        unsaid = self._unsaid.pop(message, 0)
        self._last_said[message] = now
        if unsaid:
            record.msg = f"{message} (and {unsaid} more like it since last said)"
        return True


def connection_bound(wanted: int) -> tuple[int, int]:
    """The connections to keep at most (``wanted``, or fewer) and the connections to accept
    in one turn, so that those, the batches in flight (accepted before the bound has looked
    at them, or closed by it and not yet let go) and the process's other files stay within
    its limit of open files: out of files, asyncio's accept logs a traceback per try and the
    server stops accepting for a second. A low soft limit (macOS gives 256) is first raised
    as far as the hard one allows."""
    try:
        import resource
    except ImportError:  # Windows: no such limit
        return wanted, ACCEPT_BATCH
    needed = wanted + BATCHES_IN_FLIGHT * ACCEPT_BATCH + OTHER_FILES
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return wanted, ACCEPT_BATCH
    if soft < needed and (hard == resource.RLIM_INFINITY or hard > soft):
        raised = needed if hard == resource.RLIM_INFINITY else min(hard, needed)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
    # what the files allow, shared between the connections kept and the batches in flight
    room = max(soft - OTHER_FILES, 2 * MIN_CONNECTIONS)
    batch = max(1, min(ACCEPT_BATCH, room // (2 * BATCHES_IN_FLIGHT)))
    kept = max(min(wanted, MIN_CONNECTIONS), min(wanted, room - BATCHES_IN_FLIGHT * batch))
    return kept, batch


async def serve(server: uvicorn.Server, sock: socket.socket, started: Callable[[], None]) -> None:
    """Serve on ``sock`` until the server exits; ``started`` once connections are accepted."""
    _accept_failures_said_briefly(asyncio.get_running_loop())
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started and not task.done():  # uvicorn has no event for it
        await asyncio.sleep(0.01)
    if server.started:
        # asyncio listened again with uvicorn's backlog, which is also how many it accepts in
        # one turn (`ACCEPT_BATCH`): 64 connections waited at most, and a burst's others were
        # dropped and connected a second or two later. Not if a stop that came while it
        # started has closed the socket already (that raised EBADF, and the stop ended in
        # "cannot listen", status 1)
        if sock.fileno() != -1:
            sock.listen(LISTEN_BACKLOG)
        started()
    await task


def _accept_failures_said_briefly(loop: asyncio.AbstractEventLoop) -> None:
    """Out of files (the bound keeps a server within them, but the process may hold others),
    asyncio logs a traceback for every accept that fails, up to a batch's worth a time: said
    here in one line every ``ACCEPT_FAILURE_SECONDS``, with how many there were."""
    last_said = -ACCEPT_FAILURE_SECONDS
    unsaid = 0

    def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        nonlocal last_said, unsaid
        if context.get("message") != _ACCEPT_FAILED:
            loop.default_exception_handler(context)
            return
        unsaid += 1
        if loop.time() - last_said >= ACCEPT_FAILURE_SECONDS:
            log.warning(
                "Connections cannot be accepted for a moment: %s (%d times since last said)",
                context.get("exception"),
                unsaid,
            )
            last_said, unsaid = loop.time(), 0

    loop.set_exception_handler(handle)


def serve_forever(server: uvicorn.Server, sock: socket.socket, started: Callable[[], None]) -> None:
    """Serve in the foreground until interrupted."""
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(server, sock, started))


def serve_unless_stopped(
    stop: StopRequest, server: uvicorn.Server, sock: socket.socket, started: Callable[[], None]
) -> None:
    """Serve in the foreground until ``stop`` is asked for, unless it was asked for already."""
    stop.watch(server)
    if not stop.asked:
        serve_forever(server, sock, started)


class BackgroundServer:
    """A server on its own thread and event loop. ``make`` builds it on that thread, so what
    the server builds first (the sandbox's demo data) is never built on the caller's."""

    def __init__(self, name: str, sock: socket.socket, make: Callable[[], uvicorn.Server]):
        self.name = name
        self._sock = sock
        self._make = make
        self.server: uvicorn.Server | None = None
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._ready = threading.Event()
        self._failure: BaseException | None = None

    def _run(self) -> None:
        async def run() -> None:
            self.server = self._make()
            await serve(self.server, self._sock, self._ready.set)

        try:
            asyncio.run(run())
        except BaseException as exc:  # reported to the starter, never lost
            self._failure = exc
            log.exception("the %s stopped", self.name)
        finally:
            self._ready.set()

    def start(self, timeout: float) -> None:
        self._thread.start()
        if not self._ready.wait(timeout) or self.server is None or not self.server.started:
            raise RuntimeError(f"the {self.name} did not start: {self._failure!r}")

    def stop(self, timeout: float = 5.0) -> None:
        if self.server is not None:
            self.server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout)
        self._sock.close()
