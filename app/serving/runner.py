"""Running a server: in the foreground until interrupted, or on a thread and event loop of
its own (so a busy window never delays an answer). Every server is guarded (app.serving.guard)
and bounded in the requests it takes at once."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import threading
from collections.abc import Callable
from typing import Any

import uvicorn

from app.serving.guard import GuardedH11Protocol

log = logging.getLogger("partner_desk.serving")

# connections accepted in one turn of the loop, before the bound looks at any (asyncio
# accepts as many as the server's backlog setting; uvicorn's default is 2,048)
ACCEPT_BATCH = 128
OTHER_FILES = 64  # the process's own: the store, its logs, pipes, the loop's
MIN_CONNECTIONS = 16  # however few files may be opened: a client's pool needs several


def guarded_server(
    app: Any,
    *,
    head_seconds: float = GuardedH11Protocol.head_seconds,
    max_connections: int = GuardedH11Protocol.max_connections,
    stall_seconds: float = GuardedH11Protocol.stall_seconds,
    **config: Any,
) -> uvicorn.Server:
    """A uvicorn server of ``app`` whose connections are bounded as given, taking at most twice
    as many requests at once as connections; ``config`` is the rest of uvicorn's settings. The
    bound keeps within the files the process may open (`connection_bound`)."""
    max_connections = connection_bound(max_connections)
    protocol = type(
        "BoundedH11Protocol",
        (GuardedH11Protocol,),
        {
            "head_seconds": head_seconds,
            "max_connections": max_connections,
            "stall_seconds": stall_seconds,
        },
    )
    settings: dict[str, Any] = {
        "log_level": "warning",
        "access_log": False,
        "lifespan": "on",
        "backlog": ACCEPT_BATCH,
    }
    settings.update(config)
    return uvicorn.Server(
        uvicorn.Config(app, http=protocol, limit_concurrency=2 * max_connections, **settings)
    )


def connection_bound(wanted: int) -> int:
    """At most ``wanted`` connections, and few enough that those, two batches of connections
    accepted at once (before the bound has looked at them, and while the connections it
    closed are still open) and the process's other files stay within its limit of files: out
    of files, asyncio's accept logs a traceback per try, thousands a second, and every sender
    is refused."""
    try:
        import resource
    except ImportError:  # Windows: no such limit
        return wanted
    needed = wanted + 2 * ACCEPT_BATCH + OTHER_FILES
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return wanted
    if soft < needed and (hard == resource.RLIM_INFINITY or hard > soft):
        # a low soft limit (macOS gives 256) is raised as far as the hard one allows
        raised = needed if hard == resource.RLIM_INFINITY else min(hard, needed)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
    return max(MIN_CONNECTIONS, min(wanted, soft - 2 * ACCEPT_BATCH - OTHER_FILES))


async def serve(server: uvicorn.Server, sock: socket.socket, started: Callable[[], None]) -> None:
    """Serve on ``sock`` until the server exits; ``started`` once connections are accepted."""
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started and not task.done():  # uvicorn has no event for it
        await asyncio.sleep(0.01)
    if server.started:
        started()
    await task


def serve_forever(server: uvicorn.Server, sock: socket.socket, started: Callable[[], None]) -> None:
    """Serve in the foreground until interrupted."""
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(server, sock, started))


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
