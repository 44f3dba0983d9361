"""The sandbox's webhook emitter: registration status changes delivered to subscribed URLs,
signed with the sandbox's key, on the sandbox's clock and scheduler (events go out with no
request arriving), retried as the contract says, with a readable delivery log.

Control calls (README, "Webhooks"): ``GET /_sandbox/webhooks/public-key``,
``POST|GET /_sandbox/webhooks/subscriptions``, ``DELETE /_sandbox/webhooks/subscriptions/{id}``,
``GET|POST /_sandbox/webhooks/settings``, ``GET /_sandbox/webhooks/deliveries``,
``POST /_sandbox/clients/{id}/status``.
"""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import functools
import json
import logging
import secrets
import socket
import ssl
import time
from collections import deque
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from app.core import webhooks as wh
from app.core.ids import MonotonicUuid7, uuid7
from app.sandbox.banking.records import Client
from app.sandbox.banking.state import Bank
from app.sandbox.clock import Scheduler
from app.sandbox.errors import Refusal, not_found
from app.sandbox.http import SandboxState, encode, json_response

log = logging.getLogger("partner_desk.sandbox")

_NO_DELAY = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
MAX_SUBSCRIPTIONS = 100
DELIVERIES_KEPT = 2000
MAX_PENDING = 10_000  # deliveries waiting for an attempt; past this a new one is not sent
URL_MAX = 2000
RETRY_AFTER_MAX = 3600  # a receiver asking for a longer wait gets this


@dataclass
class RetrySettings:
    base_seconds: float = 1.0
    exponent: float = 2.0
    max_attempts: int = 5
    timeout_seconds: float = 5.0

    def delay(self, attempts: int) -> dt.timedelta:
        """The wait after the ``attempts``-th failed attempt: base * exponent^(attempts-1)."""
        return dt.timedelta(seconds=self.base_seconds * self.exponent ** (attempts - 1))


@dataclass
class Subscription:
    id: str
    url: str
    filter: str
    signed: bool

    def view(self) -> dict[str, Any]:
        return {"id": self.id, "url": self.url, "filter": self.filter, "signed": self.signed}


@dataclass
class Delivery:
    number: int
    subscription: Subscription
    event_id: str
    event_type: str
    body: bytes
    queued: str  # X-Webhook-Timestamp: when it was queued
    state: str = "pending"  # pending, delivered, abandoned
    attempts: list[dict[str, Any]] = field(default_factory=list)
    next_try: dt.datetime | None = None

    def view(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "subscription_id": self.subscription.id,
            "url": self.subscription.url,
            "event_id": self.event_id,
            "event_type": self.event_type,
            "state": self.state,
            "attempts": self.attempts,
            "next_try": self.next_try.isoformat() if self.next_try else None,
            "body": self.body.decode(),
        }


class Emitter:
    def __init__(self, scheduler: Scheduler, bank: Bank) -> None:
        self.scheduler = scheduler
        self.settings = RetrySettings()
        self.subscriptions: dict[str, Subscription] = {}
        self.deliveries: deque[Delivery] = deque(maxlen=DELIVERIES_KEPT)
        self._numbers = 0
        self._ids = MonotonicUuid7()
        self._tasks: set[asyncio.Task[None]] = set()
        self._pending = 0  # deliveries in the state "pending"
        self._tls: ssl.SSLContext | None = None  # made once: tens of ms of the loop each time
        bank.status_listeners.append(self.emit)

    @functools.cached_property
    def key(self) -> rsa.RSAPrivateKey:
        """The signing key, made when first needed (20 to 60 ms: not on the way to the
        sandbox's first answer)."""
        return rsa.generate_private_key(public_exponent=65537, key_size=2048)

    @functools.cached_property
    def public_pem(self) -> str:
        public = self.key.public_key()
        pem = public.public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        return pem.decode()

    # -- events

    def emit(self, client: Client, moment: dt.datetime) -> None:
        """A client's registration status changed: one message per matching subscription."""
        resource = wh.RESOURCES[client.client_type]
        event_type = f"{resource}.{wh.ACTION}"
        for subscription in list(self.subscriptions.values()):
            if not wh.filter_matches(subscription.filter, event_type):
                continue
            # ids from one source sort in emission order, within a millisecond too
            event_id = str(self._ids.next(int(moment.timestamp() * 1000)))
            data: dict[str, Any] = {"status": client.status}
            if client.external_reference:
                data["id"] = client.external_reference
            body = {
                "event_id": event_id,
                "event_type": event_type,
                "resource": resource,
                "action": wh.ACTION,
                "occurred_at": wh.occurred_at(moment),
                "data": data,
            }
            self._numbers += 1
            delivery = Delivery(
                self._numbers,
                subscription,
                event_id,
                event_type,
                json.dumps(body, separators=(",", ":")).encode(),
                wh.header_timestamp(self.scheduler.clock.now()),
                next_try=moment,
            )
            self.deliveries.append(delivery)
            if self._pending >= MAX_PENDING:  # the scheduler's memory is bounded too
                delivery.state, delivery.next_try = "abandoned", None
                error = f"not sent: {MAX_PENDING:,} deliveries are waiting already"
                self._record(delivery, None, None, error, None)
                continue
            self._pending += 1
            self.scheduler.at(moment, self._job(delivery), "webhook")

    def _record(
        self,
        delivery: Delivery,
        nonce: int | None,
        status: int | None,
        error: str | None,
        started: float | None,
    ) -> None:
        """One attempt in the delivery's log (nonce and start None: it was not sent)."""
        delivery.attempts.append(
            {
                "at": wh.occurred_at(self.scheduler.clock.now()),
                "nonce": None if nonce is None else str(nonce),
                "status": status,
                "error": error,
                "ms": 0.0 if started is None else round((time.perf_counter() - started) * 1000, 1),
            }
        )

    def _settle(self, delivery: Delivery, state: str) -> None:
        """The delivery is no longer pending: delivered or abandoned."""
        if delivery.state == "pending":
            self._pending -= 1
        delivery.state, delivery.next_try = state, None

    def _job(self, delivery: Delivery) -> Any:
        def start(_moment: dt.datetime) -> None:
            task = asyncio.get_running_loop().create_task(self._attempt(delivery))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

        return start

    def _tls_context(self) -> ssl.SSLContext:
        """The trusted CAs, loaded once (a client per attempt loaded them each time, 40 ms
        of the loop's time: a burst of deliveries held every request up for seconds)."""
        if self._tls is None:
            import certifi

            self._tls = ssl.create_default_context(cafile=certifi.where())
        return self._tls

    def headers(self, delivery: Delivery, nonce: int) -> dict[str, str]:
        headers = {
            "Content-Type": wh.CONTENT_TYPE,
            "User-Agent": wh.USER_AGENT,
            "X-Webhook-Event-Type": delivery.event_type,
            "X-Webhook-Message-Id": delivery.event_id,
            "X-Webhook-Event-Version": wh.EVENT_VERSION,
            "X-Webhook-Timestamp": delivery.queued,
            "Nonce": str(nonce),
        }
        if delivery.subscription.signed:
            signature = self.key.sign(delivery.body, padding.PKCS1v15(), hashes.SHA256())
            headers["X-Webhook-Signature"] = base64.b64encode(signature).decode()
        return headers

    async def _attempt(self, delivery: Delivery) -> None:
        # here, not at the top: the sandbox's first answer does not wait for httpx (14 ms)
        import httpx

        if delivery.state != "pending":
            return
        settings = self.settings
        nonce = secrets.randbits(63)  # fresh for every attempt
        status: int | None = None
        error: str | None = None
        asked_wait = 0  # the receiver's Retry-After, in seconds
        started = time.perf_counter()
        try:
            async with asyncio.timeout(settings.timeout_seconds):
                async with (
                    httpx.AsyncClient(
                        timeout=settings.timeout_seconds,
                        # head and body leave at once, not 40 ms apart (Nagle, delayed ACK)
                        transport=httpx.AsyncHTTPTransport(
                            verify=self._tls_context(), socket_options=_NO_DELAY
                        ),
                    ) as client,
                    client.stream(
                        "POST",
                        delivery.subscription.url,
                        content=delivery.body,
                        headers=self.headers(delivery, nonce),
                    ) as response,
                ):
                    status = response.status_code  # its body is discarded unread
                    asked_wait = _retry_after(response.headers.get("retry-after", ""))
        except TimeoutError:
            error = "timeout"
        except httpx.TimeoutException:
            error = "timeout"
        except httpx.HTTPError as exc:
            error = f"network: {type(exc).__name__}"
        except Exception as exc:  # an address that cannot be used: recorded, not retried
            error = f"failed: {type(exc).__name__}: {str(exc)[:100]}"
            self._record(delivery, nonce, None, error, started)
            self._settle(delivery, "abandoned")
            return
        self._record(delivery, nonce, status, error, started)
        if status is not None and 200 <= status < 300:
            self._settle(delivery, "delivered")
            return
        retryable = error is not None or status in (408, 429) or (status or 0) >= 500
        if not retryable or len(delivery.attempts) >= settings.max_attempts:
            self._settle(delivery, "abandoned")
            log.info(
                "webhook %s to %s abandoned after %d attempts (%s)",
                delivery.event_id,
                delivery.subscription.url,
                len(delivery.attempts),
                error or status,
            )
            return
        # the backoff, or longer when the receiver asks (503 while its store is away)
        wait = max(settings.delay(len(delivery.attempts)), dt.timedelta(seconds=asked_wait))
        delivery.next_try = self.scheduler.clock.now() + wait
        self.scheduler.at(delivery.next_try, self._job(delivery), "webhook retry")

    # -- subscriptions

    def subscribe(self, body: dict[str, Any]) -> Subscription:
        url, filter_text = body.get("url"), body.get("filter", "*")
        if not isinstance(url, str) or not url or len(url) > URL_MAX:
            raise Refusal(f"url: is required, at most {URL_MAX} characters")
        _check_url(url)
        if not isinstance(filter_text, str):
            raise Refusal("filter: must be a string")
        problem = wh.check_filter(filter_text)
        if problem:
            raise Refusal(f"filter: {problem}")
        pem = body.get("public_key_pem")
        if pem is not None and (not isinstance(pem, str) or pem.strip() != self.public_pem.strip()):
            raise Refusal(
                "public_key_pem: is not this sandbox's public key "
                "(GET /_sandbox/webhooks/public-key)"
            )
        if len(self.subscriptions) >= MAX_SUBSCRIPTIONS:
            raise Refusal(f"At most {MAX_SUBSCRIPTIONS} subscriptions")
        subscription = Subscription(str(uuid7()), url, filter_text, signed=pem is not None)
        self.subscriptions[subscription.id] = subscription
        return subscription


def _retry_after(value: str) -> int:
    """A Retry-After of delta-seconds, at most an hour; 0 for none (or an HTTP date)."""
    value = value.strip()
    if not (value.isascii() and value.isdigit()):
        return 0
    return RETRY_AFTER_MAX if len(value) > 4 else min(int(value), RETRY_AFTER_MAX)


def _check_url(url: str) -> None:
    """An address deliveries can go to: http(s), a host, a port that is one, no spaces or
    control characters, and no user or password (deliveries carry no credentials)."""
    import httpx

    if any(ch.isspace() or not ch.isprintable() for ch in url):
        raise Refusal("url: must not hold spaces or control characters")
    try:
        parts = urlsplit(url)
        port = parts.port
        httpx.URL(url)
    except (ValueError, httpx.InvalidURL):
        raise Refusal("url: is not a valid address (its host or port cannot be read)") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise Refusal("url: must be an http or https address")
    if port == 0:
        raise Refusal("url: the port must be from 1 to 65535")
    if parts.username is not None or parts.password is not None:
        raise Refusal("url: must not carry a user or password: deliveries carry no credentials")


# ---------------------------------------------------------------- control calls


def _emitter(request: Request) -> Emitter:
    state: SandboxState = request.app.state.sandbox
    return state.service(Emitter)


def _number(body: dict[str, Any], name: str, low: float, high: float, *, whole: bool) -> Any:
    value = body[name]
    problem = f"{name}: must be a {'whole ' if whole else ''}number from {low} to {high}"
    # JSON numbers with a fraction arrive as Decimal (app.sandbox.http.parse_json)
    if isinstance(value, bool) or not isinstance(value, int | Decimal):
        raise Refusal(problem)
    if (whole and not isinstance(value, int)) or not low <= value <= high:
        raise Refusal(problem)
    return value if whole else float(value)


def public_key(request: Request, body: Any) -> Response:
    return Response(_emitter(request).public_pem, media_type="application/x-pem-file")


def subscriptions(request: Request, body: Any) -> Response:
    emitter = _emitter(request)
    if request.method == "POST":
        if not isinstance(body, dict):
            raise Refusal("The body must be a JSON object {url, filter, public_key_pem?}")
        unknown = sorted(set(body) - {"url", "filter", "public_key_pem"})
        if unknown:
            raise Refusal(
                f"{unknown[0][:40]}: is not a known property (url, filter, public_key_pem)"
            )
        return json_response(encode(emitter.subscribe(body).view()))
    return json_response(encode([s.view() for s in emitter.subscriptions.values()]))


def unsubscribe(request: Request, body: Any) -> Response:
    emitter = _emitter(request)
    found = emitter.subscriptions.pop(str(request.path_params["id"]), None)
    if found is None:
        raise not_found("subscription")
    return json_response(encode(found.view()))


def settings(request: Request, body: Any) -> Response:
    emitter = _emitter(request)
    if request.method == "POST":
        if not isinstance(body, dict):
            raise Refusal("The body must be a JSON object")
        known = {"base_seconds", "exponent", "max_attempts", "timeout_seconds"}
        unknown = sorted(set(body) - known)
        if unknown:
            raise Refusal(f"{unknown[0][:40]}: is not a known setting ({', '.join(sorted(known))})")
        checked = {
            "base_seconds": (0, 3600, False),
            "exponent": (1, 10, False),
            "max_attempts": (1, 20, True),
            "timeout_seconds": (0.1, 60, False),
        }
        values = {
            name: _number(body, name, *checked[name][:2], whole=checked[name][2]) for name in body
        }
        for name, value in values.items():
            setattr(emitter.settings, name, value)
    return json_response(encode(emitter.settings.__dict__))


def deliveries(request: Request, body: Any) -> Response:
    return json_response(encode([d.view() for d in _emitter(request).deliveries]))


def client_status(request: Request, body: Any) -> Response:
    state: SandboxState = request.app.state.sandbox
    bank = state.service(Bank)
    if not isinstance(body, dict) or set(body) != {"status"}:
        raise Refusal('The body must be {"status": "inprogress" | "done" | "active"}')
    status = body["status"]
    if status not in wh.STATUSES:
        raise Refusal(f"status: must be one of {', '.join(wh.STATUSES)}")
    client = bank.client(str(request.path_params["id"])[:64])
    state.scheduler.run_due()
    changed = bank.set_client_status(client, status, state.clock.now())
    return json_response(encode({"id": client.id, "status": client.status, "changed": changed}))


def routes(controlled: Any) -> list[BaseRoute]:
    return [
        Route("/_sandbox/webhooks/public-key", controlled(public_key), methods=["GET"]),
        Route(
            "/_sandbox/webhooks/subscriptions", controlled(subscriptions), methods=["GET", "POST"]
        ),
        Route("/_sandbox/webhooks/subscriptions/{id}", controlled(unsubscribe), methods=["DELETE"]),
        Route("/_sandbox/webhooks/settings", controlled(settings), methods=["GET", "POST"]),
        Route("/_sandbox/webhooks/deliveries", controlled(deliveries), methods=["GET"]),
        Route("/_sandbox/clients/{id}/status", controlled(client_status), methods=["POST"]),
    ]


def install(state: SandboxState) -> Emitter:
    emitter = Emitter(state.scheduler, state.service(Bank))
    state.services[Emitter] = emitter
    return emitter
