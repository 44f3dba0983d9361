"""Running the sandbox: in the foreground (``partner-desk sandbox``), in a child process of
the window, or on a background thread (tests, benchmarks, selftest)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence

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
        {
            "head_seconds": settings.head_seconds,
            "max_connections": settings.max_connections,
            "stall_seconds": settings.stall_seconds,
        },
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
    with_parent: bool = False,
) -> None:
    """Serve until interrupted (or, ``with_parent``, until stdin closes); announce the URL
    once connections are accepted."""
    sock = _bind(host, port)
    url = f"http://{host}:{sock.getsockname()[1]}"
    server = _server(SandboxSettings(settle_seconds=settle_seconds))

    async def run() -> None:
        task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started and not task.done():
            await asyncio.sleep(0.01)
        if server.started:
            announce(f"Sandbox listening on {url}")
        if with_parent:
            loop = asyncio.get_running_loop()

            def watch_stdin() -> None:
                # only the parent holds our stdin: its end, however the parent ended, is ours
                while sys.stdin.buffer.read(4096):
                    pass
                loop.call_soon_threadsafe(setattr, server, "should_exit", True)

            threading.Thread(target=watch_stdin, name="parent-watch", daemon=True).start()
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


class SandboxProcess:
    """The sandbox in a process of its own, as the window runs it: a long statement built
    there never makes the window wait for the interpreter, and the window's process does
    not import the sandbox at all. The child ends when its stdin closes, which happens when
    this parent stops it or ends in any way."""

    def __init__(self, command: Sequence[str]) -> None:
        """``command`` runs partner-desk: the frozen program, or Python with ``-m app.cli``."""
        self._command = [*command, "sandbox", "--port", "0", "--with-parent"]
        self._process: subprocess.Popen[str] | None = None

    def start(self, timeout: float = 60.0) -> str:
        process = self._process = subprocess.Popen(  # noqa: S603 - our own program
            self._command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert process.stdout is not None
        announced: list[str] = []
        reader = threading.Thread(
            target=lambda: announced.append(process.stdout.readline() if process.stdout else ""),
            daemon=True,
        )
        reader.start()
        reader.join(timeout)
        line = announced[0].strip() if announced else ""
        if not line.startswith("Sandbox listening on http://"):
            self.stop()
            raise RuntimeError(f"the sandbox did not start: {line or 'no answer'}")
        return line.rsplit(" ", 1)[-1]

    def stop(self, timeout: float = 5.0) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        with contextlib.suppress(OSError):
            if process.stdin is not None:
                process.stdin.close()  # the child's cue to end
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout)
        if process.stdout is not None:
            process.stdout.close()
