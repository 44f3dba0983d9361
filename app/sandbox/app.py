"""The sandbox's HTTP application: banking v1 under /v1, v2 under /v2, the card gateway
under /gateway, controls under /_sandbox, and the scheduler that moves its time-driven state."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from urllib.parse import unquote_to_bytes

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.core import redaction
from app.core.text import printable
from app.sandbox import banking, control, gateway, webhooks
from app.sandbox.clock import Clock, Scheduler, utc_now
from app.sandbox.errors import error_body
from app.sandbox.http import SandboxState, json_response


@dataclass(frozen=True)
class SandboxSettings:
    settle_seconds: float = 2.0  # a SEPA or world transfer stays inprogress this long
    review_seconds: float = 5.0  # a new client's registration stays inprogress this long
    demo_statement_records: int = 100_000
    # the demo person's second account: generated while sent, so it costs nothing until read
    demo_busy_statement_records: int = 1_000_000
    frozen_clock: bool = False  # time moves only by POST /_sandbox/clock (tests)
    head_seconds: float = 10.0  # a connection sends a whole request head in this time
    max_connections: int = 256  # open connections; the longest idle one makes room
    stall_seconds: float = 30.0  # a reader taking nothing of an answer this long is dropped


def new_state(settings: SandboxSettings) -> SandboxState:
    clock = Clock(frozen_at=utc_now() if settings.frozen_clock else None)
    state = SandboxState(clock, Scheduler(clock))
    banking.install(
        state,
        settle_seconds=settings.settle_seconds,
        review_seconds=settings.review_seconds,
        demo_statement_records=settings.demo_statement_records,
        demo_busy_statement_records=settings.demo_busy_statement_records,
    )
    gateway.install(state)
    webhooks.install(state)
    return state


class SandboxHost:
    """Holds the current state and runs its scheduler on the sandbox's loop."""

    def __init__(self, application: Starlette, settings: SandboxSettings) -> None:
        self._application = application
        self.settings = settings
        self._runner: asyncio.Task[None] | None = None
        self.state = new_state(settings)
        application.state.sandbox = self.state

    def start(self) -> None:
        self._runner = asyncio.get_running_loop().create_task(self.state.scheduler.run())

    async def stop(self) -> None:
        if self._runner is not None:
            self._runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._runner
            self._runner = None

    def reset(self) -> None:
        """Reseed: a new state (and clock) replaces the old one whole — but for what is
        held of bodies still arriving, which a reset does not free: a fresh budget each
        reset let held uploads past it (12 resets held 764 MB); and so for the streamed
        answers' turns, which the answers under way still take."""
        state = new_state(self.settings)
        state.arriving, state.making = self.state.arriving, self.state.making
        if self._runner is not None:
            self._runner.cancel()
        self.state = self._application.state.sandbox = state
        self.start()


async def _not_found(request: Request, exc: Exception) -> Response:
    body = error_body(f"No operation at {request.method} {_shown_path(request)}", "Not found")
    return json_response(body, 404)


async def _method_not_allowed(request: Request, exc: Exception) -> Response:
    body = error_body(
        f"{request.method} is not allowed on {_shown_path(request)}", "Method not allowed"
    )
    return json_response(body, 405)


def _shown_path(request: Request) -> str:
    """The path asked for, as a message may quote it: a control character in it (a NUL, a
    terminal's escape, a line break) shown as "?", and a long one cut. The path as sent:
    the request's URL has dropped its line breaks and tabs, and quoted /v1/health%0Acheck
    as a path that exists."""
    return printable(request.scope["path"])


@contextlib.asynccontextmanager
async def _lifespan(application: Starlette) -> AsyncIterator[None]:
    host: SandboxHost = application.state.host
    host.start()
    try:
        yield
    finally:
        await host.stop()


class _Outermost:
    """What every request meets first. A path whose %XX are not UTF-8 is refused before any
    route sees it: uvicorn decodes it with U+FFFD for each bad byte, and "Client \ufffd\ufffd
    not found" would answer an ID that was never sent. A request (or the lifespan) cut by a
    forced stop (a second Ctrl-C) ends quietly: uvicorn logged a traceback for each."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            try:
                unquote_to_bytes(scope.get("raw_path") or b"").decode("utf-8")
            except UnicodeDecodeError:
                body = error_body("The path is not valid UTF-8", "Invalid request")
                await json_response(body, 400)(scope, receive, send)
                return
        if scope["type"] == "lifespan":
            await self.app(scope, _shutdown_when_cut(receive), send)
            return
        started = False

        async def noting(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, noting)
        except asyncio.CancelledError:
            if not started:  # answered: never acknowledged, its sender sends it again
                body = error_body("The sandbox is stopping; send it again later", "Unavailable")
                await json_response(body, 503, {"Retry-After": "5"})(scope, receive, send)


def _shutdown_when_cut(receive: Receive) -> Receive:
    """The lifespan's messages, a wait cut by the stop read as the shutdown it is."""

    async def received() -> Message:
        try:
            return await receive()
        except asyncio.CancelledError:
            return {"type": "lifespan.shutdown"}

    return received


def create_app(settings: SandboxSettings | None = None) -> Starlette:
    redaction.install()  # no card number or security code in any log record of the process
    # the multipart parser logs each malformed body it meets, then raises: the sender is told
    # why (400), and a line per hostile request would flood the log
    logging.getLogger("python_multipart").setLevel(logging.ERROR)
    application = Starlette(
        routes=[*banking.mounts(), *gateway.mounts(), *control.routes()],
        exception_handlers={404: _not_found, 405: _method_not_allowed},
        middleware=[Middleware(_Outermost)],
        lifespan=_lifespan,
    )
    application.state.host = SandboxHost(application, settings or SandboxSettings())
    return application
