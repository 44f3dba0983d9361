"""Running the sandbox: in the foreground (``partner-desk sandbox``, also how the window's child
process runs: app.serving.child) or on a background thread (tests, benchmarks, selftest)."""

from __future__ import annotations

import asyncio
import socket
import sys
import threading

import uvicorn
from starlette.applications import Starlette

from app.sandbox.app import SandboxSettings, create_app
from app.sandbox.banking.state import Bank
from app.sandbox.http import SandboxState
from app.serving.runner import BackgroundServer, guarded_server, serve_unless_stopped
from app.serving.sockets import bind
from app.serving.stopping import StopRequest


def _server(settings: SandboxSettings) -> uvicorn.Server:
    return guarded_server(
        create_app(settings),
        head_seconds=settings.head_seconds,
        max_connections=settings.max_connections,
        stall_seconds=settings.stall_seconds,
        date_header=False,  # the sandbox writes Date from its own clock (app.sandbox.http)
    )


def serve_forever(
    sock: socket.socket,
    *,
    settle_seconds: float = 2.0,
    with_parent: bool = False,
    stop: StopRequest,
) -> None:
    """Serve on this listening socket until SIGTERM or Ctrl-C (or, ``with_parent``, until
    stdin closes), then end gracefully (status 0); ``stop``: the request the caller takes
    those signals with (`app.serving.stopping.stop_signals_taken`; not served at all when
    it was asked for already)."""
    server = _server(SandboxSettings(settle_seconds=settle_seconds))

    def started() -> None:
        if not with_parent:
            return
        loop = asyncio.get_running_loop()

        def watch_stdin() -> None:
            # only the parent holds our stdin: its end, however the parent ended, is ours
            while sys.stdin.buffer.read(4096):
                pass
            loop.call_soon_threadsafe(setattr, server, "should_exit", True)

        threading.Thread(target=watch_stdin, name="parent-watch", daemon=True).start()

    serve_unless_stopped(stop, server, sock, started)


class BackgroundSandbox:
    """The sandbox on its own thread and event loop, so the GUI never delays it."""

    def __init__(
        self, settings: SandboxSettings | None = None, *, port: int = 0, host: str = "127.0.0.1"
    ) -> None:
        sock = bind(host, port)
        self.url = f"http://{host}:{sock.getsockname()[1]}"
        settings = settings or SandboxSettings()
        # the demo data is built on the sandbox's thread, never on the caller's
        self._runner = BackgroundServer("sandbox", sock, lambda: _server(settings))

    @property
    def state(self) -> SandboxState:
        """The live state, for tests and benchmarks (touch it only while requests are idle)."""
        server = self._runner.server
        assert server is not None, "start() the sandbox first"
        app = server.config.app
        assert isinstance(app, Starlette)
        state: SandboxState = app.state.sandbox
        return state

    @property
    def bank(self) -> Bank:
        return self.state.service(Bank)

    def start(self, timeout: float = 30.0) -> str:
        self._runner.start(timeout)
        return self.url

    def stop(self, timeout: float = 5.0) -> None:
        self._runner.stop(timeout)
