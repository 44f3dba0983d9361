"""The receiver's HTTP app and its runners. A delivery is checked (signature on the raw bytes
first), then committed to the store, and only then acknowledged with 2xx; events arriving at
once are committed together (one transaction, one sync to disk, every sender answered after
it), so many senders cost few syncs. A refused delivery stores nothing.

While the store is unavailable (its server away, a table locked past the store's bounds),
deliveries are answered 503 with Retry-After, so that their senders send them again; the log
says once that the store went away and once that it is back, with the number refused."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import socket
import time
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import uvicorn
from cryptography.hazmat.primitives.asymmetric import rsa

from app.core import webhooks as wh
from app.serving.body import Receive, too_large
from app.serving.runner import BackgroundServer, guarded_server
from app.serving.sockets import bind
from app.webhooks.answers import TITLES, Answer, refusal
from app.webhooks.connection import protocol_of
from app.webhooks.delivery import KEPT_HEADERS, Event, Rejected, check
from app.webhooks.store import EventStore, StoreUnavailable

Send = Callable[[dict[str, Any]], Awaitable[None]]

log = logging.getLogger("partner_desk.webhooks")

PATH = "/webhooks"
HEAD_SECONDS = 10.0  # a request head arrives within this, or the connection is closed
BODY_SECONDS = 10.0  # and its body within this, or it is refused
MAX_CONNECTIONS = 512  # past this, the longest-waiting connection without a request goes
BATCH = 256  # events committed in one transaction at most
RETRY_AFTER_SECONDS = 5  # told to senders while the store is unavailable
# a stop waits this long for the answers under way, then drops them: unacknowledged, so their
# senders send them again (a sender holding its body back would otherwise hold the stop)
GRACE_SECONDS = 5
MAX_GRACE_SECONDS = 3600  # `webhooks serve --grace`
STORE_RETRY_SECONDS = 1.0  # while it is, the store is asked again at most this often
UNLISTED_SAID = 100  # event types not in the catalogue said in the log, each once


class Writer:
    """Group commit: deliveries arriving while a transaction is being written wait for the
    next one, which then holds all of them (at most ``BATCH``), so a store's sync is shared by
    many senders. The loop hands a whole batch to the store's thread and is woken once when
    it is committed, not once per event; each waiting delivery then learns its outcome."""

    def __init__(self, store: EventStore, health: StoreHealth | None = None) -> None:
        self.store = store
        self._health = health or StoreHealth()
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="webhook-store")
        self._waiting: list[tuple[Event, asyncio.Future[bool]]] = []
        self._writing: asyncio.Task[None] | None = None

    def put(self, event: Event, outcome: asyncio.Future[bool]) -> None:
        """``event`` committed with the next batch; ``outcome`` then says whether it was new,
        or holds what kept it from being stored."""
        self._waiting.append((event, outcome))
        if self._writing is None:
            self._writing = asyncio.get_running_loop().create_task(self._write())

    def close(self) -> None:
        self._thread.shutdown(wait=True)

    async def _write(self) -> None:
        """Commit what waits, batch after batch, until nothing does."""
        loop = asyncio.get_running_loop()
        try:
            while self._waiting:
                batch, self._waiting = self._waiting[:BATCH], self._waiting[BATCH:]
                events = [event for event, _ in batch]
                try:
                    results = await loop.run_in_executor(self._thread, self._commit, events)
                except BaseException as exc:  # the thread is gone: nobody is told "stored"
                    results = [exc] * len(batch)
                for (_event, outcome), result in zip(batch, results, strict=True):
                    _settle(outcome, result)
        finally:
            self._writing = None

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
    if outcome.done():  # its sender went away
        return
    if isinstance(result, BaseException):
        outcome.set_exception(result)
    else:
        outcome.set_result(bool(result))


def _headers(raw: Iterable[tuple[bytes, bytes]]) -> dict[str, str]:
    """The request's headers by lower-case name (``raw``: as sent, h11's raw items). A
    header the delivery's checks read, given twice, is refused: which one counts would be a
    guess (a valid signature beside a wrong one)."""
    headers: dict[str, str] = {}
    for raw_name, raw_value in raw:
        name = raw_name.lower().decode("latin-1")
        if name in headers and name in KEPT_HEADERS:
            raise Rejected(400, f"{_title(name)}: is given more than once")
        headers[name] = raw_value.decode("latin-1")
    return headers


def _title(name: str) -> str:
    """A header's name as the contract writes it (x-webhook-signature: X-Webhook-Signature)."""
    return "-".join(part.capitalize() for part in name.split("-"))


class ReceiverApp:
    """The receiver: POST /webhooks and GET /health, every other path or method answered 404
    or 405 in the error shape. Its connections (`app.webhooks.connection`) read each request
    and ask it for the answer; as an ASGI app it only opens the store's writer at the
    server's start and closes it at its stop."""

    def __init__(self, store: EventStore, key: rsa.RSAPublicKey | None) -> None:
        self.store = store
        self.key = key
        self.writer: Writer | None = None
        self._unlisted_said: set[str] = set()  # the types not in the catalogue said so far

    def answer_at_once(self, method: str, path: str) -> Answer | None:
        """The answer to a request known from its head; None for a delivery."""
        if path == PATH:
            if method == "POST":
                return None
            return refusal(405, f"{method} is not allowed on {path}", {"Allow": "POST"})
        if path == "/health":
            if method in ("GET", "HEAD"):
                return Answer(200, {"result": "ok"})
            return refusal(405, f"{method} is not allowed on {path}", {"Allow": "GET, HEAD"})
        return refusal(404, f"Deliveries are POSTed to {PATH}")

    def opening(self, raw_headers: Iterable[tuple[bytes, bytes]]) -> dict[str, str] | Answer:
        """A delivery's headers, or its refusal before its body is read."""
        try:
            headers = _headers(raw_headers)
        except Rejected as refused:
            return refusal(refused.status, refused.reason)
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > wh.BODY_MAX:
            return refusal(400, too_large(wh.BODY_MAX))
        return headers

    def checked(self, headers: dict[str, str], raw: bytes) -> Event | Answer:
        """The delivery as an event to store, or its refusal."""
        try:
            return check(headers, raw, self.key, dt.datetime.now(dt.UTC))
        except Rejected as refused:
            return refusal(refused.status, refused.reason)

    def put(self, event: Event, outcome: asyncio.Future[bool]) -> None:
        assert self.writer is not None  # opened at the server's start
        self.writer.put(event, outcome)

    def told(self, event: Event | None, outcome: asyncio.Future[bool]) -> Answer:
        """What the sender of a delivery is told once its commit ended; a 503 that asks for it
        again when a stop's grace ran out first (nothing acknowledged, no traceback)."""
        if outcome.cancelled() or event is None:
            return refusal(
                503,
                "The receiver is stopping; send the event again later",
                {"Retry-After": str(RETRY_AFTER_SECONDS)},
            )
        failure = outcome.exception()
        if isinstance(failure, StoreUnavailable):
            return refusal(
                503,
                "The event store is unavailable; send the event again later",
                {"Retry-After": str(RETRY_AFTER_SECONDS)},
            )
        if failure is not None:
            return refusal(500, "The event could not be stored; send it again")
        if not event.known_type:
            self._say_unlisted(event.event_type)
        result = "stored" if outcome.result() else "duplicate"
        return Answer(200, {"result": result, "event_id": event.event_id})

    def _say_unlisted(self, event_type: str) -> None:
        """Each type not in the catalogue is said once, the first UNLISTED_SAID of them: a
        sender making up types (unsigned deliveries, where no key is set) cannot fill the
        log, a line an event."""
        said = self._unlisted_said
        if event_type in said or len(said) > UNLISTED_SAID:
            return
        said.add(event_type)
        if len(said) <= UNLISTED_SAID:
            log.info("Stored an event of a type not in the catalogue: %s", event_type)
        else:
            log.info(
                "Stored events of more than %d types not in the catalogue: further types are "
                "not said",
                UNLISTED_SAID,
            )

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            try:
                message = await receive()
            except asyncio.CancelledError:
                # a forced stop (a second Ctrl-C) ends the loop with no shutdown message: the
                # answers it cut were never acknowledged, and the store's thread ends at the
                # exit all the same; uvicorn would log this as a fault, with a traceback
                return
            if message["type"] == "lifespan.startup":
                self.writer = Writer(self.store)
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self.writer is not None:
                    await asyncio.to_thread(self.writer.close)
                await send({"type": "lifespan.shutdown.complete"})
                return


def create_app(store: EventStore, key: rsa.RSAPublicKey | None) -> ReceiverApp:
    return ReceiverApp(store, key)


def listening_url(host: str, sock: socket.socket) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{sock.getsockname()[1]}{PATH}"


def receiver_server(
    store: EventStore,
    key: rsa.RSAPublicKey | None,
    head_seconds: float = HEAD_SECONDS,
    on_closed: Callable[[], None] | None = None,
    grace_seconds: float = GRACE_SECONDS,
) -> uvicorn.Server:
    app = create_app(store, key)
    return guarded_server(
        app,
        protocol=protocol_of(app, BODY_SECONDS),
        head_seconds=head_seconds,
        max_connections=MAX_CONNECTIONS,
        timeout_keep_alive=30,
        timeout_graceful_shutdown=grace_seconds,
        malformed_title=TITLES[400],
        on_closed=on_closed,
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
        self.url = listening_url(host, sock)
        self._runner = BackgroundServer(
            "webhook receiver", sock, lambda: receiver_server(store, key, head_seconds)
        )

    def start(self, timeout: float = 15.0) -> str:
        self._runner.start(timeout)
        return self.url

    def stop(self, timeout: float = 5.0) -> None:
        self._runner.stop(timeout)
