"""The receiver's HTTP app and its runners. A delivery is checked (signature on the raw bytes
first), then committed to the store, and only then acknowledged with 2xx; events arriving at
once are committed together (one transaction, one sync to disk, every sender answered after
it), so many senders cost few syncs. A refused delivery stores nothing.

While the store is unavailable (its server away, a table locked past the store's bounds),
deliveries are answered 503 with Retry-After, so that their senders send them again; the log
says once that the store went away and once that it is back, with the number refused."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import logging
import queue
import socket
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import uvicorn
from cryptography.hazmat.primitives.asymmetric import rsa
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from app.core import webhooks as wh
from app.serving.body import BodyRefused, read_capped
from app.serving.runner import BackgroundServer, guarded_server
from app.serving.runner import serve_forever as serve_in_foreground
from app.serving.sockets import bind
from app.webhooks.delivery import Event, Rejected, check
from app.webhooks.store import EventStore, StoreUnavailable

log = logging.getLogger("partner_desk.webhooks")

PATH = "/webhooks"
HEAD_SECONDS = 10.0  # a request head arrives within this, or the connection is closed
BODY_SECONDS = 10.0  # and its body within this, or it is refused
MAX_CONNECTIONS = 512  # past this, the longest-waiting connection without a request goes
BATCH = 256  # events committed in one transaction at most
RETRY_AFTER_SECONDS = 5  # told to senders while the store is unavailable
STORE_RETRY_SECONDS = 1.0  # while it is, the store is asked again at most this often


class Writer:
    """One thread writes to the store; each waiting delivery learns its event's outcome once
    the transaction holding it is committed."""

    def __init__(self, store: EventStore, health: StoreHealth | None = None) -> None:
        self.store = store
        self._health = health or StoreHealth()
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="webhook-store", daemon=True)
        self._thread.start()

    async def add(self, event: Event) -> bool:
        loop = asyncio.get_running_loop()
        outcome: asyncio.Future[bool] = loop.create_future()
        self._queue.put((event, outcome, loop))
        return await outcome

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join(10)

    def _run(self) -> None:
        while True:
            first = self._queue.get()
            if first is None:
                return
            batch = [first]
            with contextlib.suppress(queue.Empty):
                while len(batch) < BATCH:
                    item = self._queue.get_nowait()
                    if item is None:
                        self._queue.put(None)
                        break
                    batch.append(item)
            results = self._commit([event for event, _, _ in batch])
            for (_event, outcome, loop), result in zip(batch, results, strict=True):
                loop.call_soon_threadsafe(_settle, outcome, result)

    def _commit(self, events: list[Event]) -> list[Any]:
        """Each event's outcome: stored (True), a duplicate (False), or the exception that
        kept it from being committed (its sender is not told it was stored)."""
        health = self._health
        if health.resting():  # away a moment ago: answered at once, not after the store's wait
            health.refused += len(events)
            return [health.last_error] * len(events)
        health.asking()
        try:
            results: list[Any] = list(self.store.add(events))
        except StoreUnavailable as exc:
            health.failed(exc, len(events))
            return [exc] * len(events)
        except Exception:
            # each event alone, so one that cannot be stored does not take the others with it
            results = []
            for event in events:
                try:
                    results.append(self.store.add([event])[0])
                except Exception as exc:
                    self._health.failed(exc, 1)
                    results.append(exc)
        if any(not isinstance(result, BaseException) for result in results):
            self._health.stored()
        return results


class StoreHealth:
    """The log of the store's availability, as an operator reads it: a line when it goes
    away (with the reason; a traceback only for a failure nobody expects), a line when it is
    back with how many deliveries were refused meanwhile — never a line per delivery."""

    def __init__(
        self,
        retry_seconds: float = STORE_RETRY_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.retry_seconds = retry_seconds
        self.clock = clock
        self.away_since: float | None = None
        self.refused = 0
        self.tried = 0.0  # when the store was last asked
        self.last_error: Exception = StoreUnavailable("the event store is unavailable")

    def resting(self) -> bool:
        """The store was away when last asked, less than ``retry_seconds`` ago."""
        return (
            self.away_since is not None
            and isinstance(self.last_error, StoreUnavailable)
            and self.clock() - self.tried < self.retry_seconds
        )

    def asking(self) -> None:
        self.tried = self.clock()

    def failed(self, error: Exception, deliveries: int) -> None:
        self.last_error = error
        if self.away_since is None:
            self.away_since = self.clock()
            if isinstance(error, StoreUnavailable):
                log.warning("%s: deliveries are answered 503 until it is back", error)
            else:
                log.error("the event store failed", exc_info=error)
        self.refused += deliveries

    def stored(self) -> None:
        if self.away_since is None:
            return
        away = self.clock() - self.away_since
        log.info(
            "the event store is back after %.1f s; %d deliveries were refused meanwhile",
            away,
            self.refused,
        )
        self.away_since, self.refused = None, 0


def _settle(outcome: asyncio.Future[bool], result: Any) -> None:
    if outcome.done():
        return
    if isinstance(result, BaseException):
        outcome.set_exception(result)
    else:
        outcome.set_result(bool(result))


def _answer(status: int, body: dict[str, Any]) -> Response:
    return Response(json.dumps(body), status_code=status, media_type="application/json")


def _refusal(status: int, message: str) -> Response:
    titles = {400: "Invalid delivery", 401: "Unauthorized", 503: "Store unavailable"}
    title = titles.get(status, "Error")
    body = {"failure_message": message, "detail": {"error_id": str(uuid.uuid4()), "title": title}}
    return _answer(status, body)


async def _read(request: Request) -> bytes:
    try:
        return await read_capped(request, wh.BODY_MAX, BODY_SECONDS)
    except BodyRefused as refused:
        raise Rejected(400, str(refused)) from None


def create_app(store: EventStore, key: rsa.RSAPublicKey | None) -> Starlette:
    writer: Writer | None = None

    async def receive(request: Request) -> Response:
        assert writer is not None
        try:
            raw = await _read(request)
            headers = {name.lower(): value for name, value in request.headers.items()}
            event = check(headers, raw, key, dt.datetime.now(dt.UTC))
        except Rejected as refused:
            return _refusal(refused.status, refused.reason)
        try:
            stored = await writer.add(event)
        except StoreUnavailable:
            refusal = _refusal(503, "The event store is unavailable; send the event again later")
            refusal.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
            return refusal
        except Exception:
            return _refusal(500, "The event could not be stored; send it again")
        if not event.known_type:
            log.info("Stored an event of a type not in the catalogue: %s", event.event_type)
        result = "stored" if stored else "duplicate"
        return _answer(200, {"result": result, "event_id": event.event_id})

    async def health(request: Request) -> Response:
        return _answer(200, {"result": "ok"})

    async def not_found(request: Request, exc: Exception) -> Response:
        return _refusal(404, f"Deliveries are POSTed to {PATH}")

    async def not_allowed(request: Request, exc: Exception) -> Response:
        return _refusal(405, f"{request.method} is not allowed on {request.url.path}")

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        nonlocal writer
        writer = Writer(store)
        try:
            yield
        finally:
            await asyncio.to_thread(writer.close)

    return Starlette(
        routes=[Route(PATH, receive, methods=["POST"]), Route("/health", health)],
        exception_handlers={404: not_found, 405: not_allowed},
        lifespan=lifespan,
    )


def _url(host: str, sock: socket.socket) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{sock.getsockname()[1]}{PATH}"


def _server(
    store: EventStore, key: rsa.RSAPublicKey | None, head_seconds: float = HEAD_SECONDS
) -> uvicorn.Server:
    return guarded_server(
        create_app(store, key),
        head_seconds=head_seconds,
        max_connections=MAX_CONNECTIONS,
        timeout_keep_alive=30,
    )


def serve_forever(
    store: EventStore,
    key: rsa.RSAPublicKey | None,
    *,
    host: str,
    port: int,
    announce: Callable[[str], None],
) -> None:
    """Serve until interrupted; announce the address once connections are accepted."""
    sock = bind(host, port)
    url = _url(host, sock)
    serve_in_foreground(
        _server(store, key), sock, lambda: announce(f"Webhook receiver listening on {url}")
    )


class BackgroundReceiver:
    """The receiver on its own thread and loop (the app's sandbox mode, tests)."""

    def __init__(
        self,
        store: EventStore,
        key: rsa.RSAPublicKey | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        head_seconds: float = HEAD_SECONDS,
    ) -> None:
        self.store = store
        sock = bind(host, port)
        self.url = _url(host, sock)
        self._runner = BackgroundServer(
            "webhook receiver", sock, lambda: _server(store, key, head_seconds)
        )

    def start(self, timeout: float = 15.0) -> str:
        self._runner.start(timeout)
        return self.url

    def stop(self, timeout: float = 5.0) -> None:
        self._runner.stop(timeout)
