"""Running the sandbox: in the foreground (``partner-desk sandbox``) or on a background thread."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import threading
from collections.abc import Callable

import h11
import uvicorn
from starlette.applications import Starlette
from uvicorn.protocols.http.h11_impl import H11Protocol

from app.sandbox.app import SandboxSettings, create_app
from app.sandbox.banking.state import Bank
from app.sandbox.http import SandboxState

log = logging.getLogger("partner_desk.sandbox")


def _bind(host: str, port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # no Nagle delay: an answer written in pieces would wait for the client's delayed ACK,
    # about 40 ms a request (accepted sockets inherit the option on Linux)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.setblocking(False)
    return sock


class GuardedH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 connection, bounded: one that sends no whole request head in
    ``head_seconds`` is closed (uvicorn times out only the idle time after an answer), and
    past ``max_connections`` the oldest connection waiting for a head makes room, so idle or
    half-open connections cannot use up the sandbox's files and keep others out."""

    head_seconds = 10.0  # a connection sends a whole request head in this time, or is closed
    max_connections = 256  # past this, the longest-idle connection without a request goes
    _head_timer: asyncio.TimerHandle | None = None
    _armed_at = 0.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()
        if len(self.connections) > self.max_connections:
            waiting = [
                other
                for other in self.connections
                if isinstance(other, GuardedH11Protocol)
                and other is not self
                and other.conn.their_state == h11.IDLE
                and not other.transport.is_closing()  # not one already on its way out
            ]
            if waiting:
                min(waiting, key=lambda other: other._armed_at)._close()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
        super().connection_lost(exc)

    def _arm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
        self._armed_at = self.loop.time()
        self._head_timer = self.loop.call_later(self.head_seconds, self._head_expired)

    def _head_expired(self) -> None:
        if self.conn.their_state == h11.IDLE:  # still no whole request head
            self._close()

    def _close(self) -> None:
        if not self.transport.is_closing():
            self.transport.close()


def _server(settings: SandboxSettings) -> uvicorn.Server:
    protocol = type(
        "SandboxH11Protocol",
        (GuardedH11Protocol,),
        {"head_seconds": settings.head_seconds, "max_connections": settings.max_connections},
    )
    config = uvicorn.Config(
        create_app(settings),
        log_level="warning",
        access_log=False,
        date_header=False,  # the sandbox writes Date from its own clock (app.sandbox.http)
        lifespan="on",
        http=protocol,
        # requests at once; the connections themselves are bounded by the protocol above
        limit_concurrency=2 * settings.max_connections,
    )
    return uvicorn.Server(config)


def serve_forever(
    port: int,
    *,
    host: str = "127.0.0.1",
    settle_seconds: float = 2.0,
    announce: Callable[[str], None] = print,
) -> None:
    """Serve until interrupted; announce the URL once connections are accepted."""
    sock = _bind(host, port)
    url = f"http://{host}:{sock.getsockname()[1]}"
    server = _server(SandboxSettings(settle_seconds=settle_seconds))

    async def run() -> None:
        task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started and not task.done():
            await asyncio.sleep(0.01)
        if server.started:
            announce(f"Sandbox listening on {url}")
        await task

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run())


class BackgroundSandbox:
    """The sandbox on its own thread and event loop, so the GUI never delays it."""

    def __init__(
        self, settings: SandboxSettings | None = None, *, port: int = 0, host: str = "127.0.0.1"
    ) -> None:
        self._sock = _bind(host, port)
        self.url = f"http://{host}:{self._sock.getsockname()[1]}"
        self._settings = settings or SandboxSettings()
        self._server: uvicorn.Server | None = None
        self._thread = threading.Thread(target=self._run, name="sandbox", daemon=True)
        self._ready = threading.Event()
        self._failure: BaseException | None = None

    @property
    def state(self) -> SandboxState:
        """The live state, for tests and benchmarks (touch it only while requests are idle)."""
        assert self._server is not None, "start() the sandbox first"
        app = self._server.config.app
        assert isinstance(app, Starlette)
        state: SandboxState = app.state.sandbox
        return state

    @property
    def bank(self) -> Bank:
        return self.state.service(Bank)

    def _run(self) -> None:
        async def run() -> None:
            # the demo data is built here, on the sandbox thread, never on the caller's
            server = self._server = _server(self._settings)
            task = asyncio.create_task(server.serve(sockets=[self._sock]))
            while not server.started and not task.done():
                await asyncio.sleep(0.01)
            self._ready.set()
            await task

        try:
            asyncio.run(run())
        except BaseException as exc:  # reported to the starter, never lost
            self._failure = exc
            log.exception("sandbox stopped")
        finally:
            self._ready.set()

    def start(self, timeout: float = 30.0) -> str:
        self._thread.start()
        if not self._ready.wait(timeout) or self._server is None or not self._server.started:
            raise RuntimeError(f"the sandbox did not start: {self._failure!r}")
        return self.url

    def stop(self, timeout: float = 5.0) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout)
        self._sock.close()
