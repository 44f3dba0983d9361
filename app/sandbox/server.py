"""Running the sandbox: in the foreground (``partner-desk sandbox``) or on a background thread."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable

import uvicorn
from starlette.applications import Starlette

from app.core.serving import GuardedH11Protocol
from app.core.serving import bind as _bind
from app.sandbox.app import SandboxSettings, create_app
from app.sandbox.banking.state import Bank
from app.sandbox.http import SandboxState

log = logging.getLogger("partner_desk.sandbox")


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
