"""The sandbox's shared plumbing: every operation of every service goes through ``endpoint``,
which applies the contract's common rules in one place — the fault switch, HTTP Basic
authentication, the header rules, a bounded and checked body, idempotency keyed on the
authenticated user, the journal — and makes each request all-or-nothing.

All-or-nothing: a handler checks everything and returns its answer together with a ``commit``
that applies the change. The answer is encoded before the commit runs, and nothing awaits
between the idempotency check, the handler, the commit and storing the answer, so a refused or
failed request changes nothing and two racing retries with one x-request-id act once.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import datetime as dt
import email.utils
import json
import logging
import re
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar
from urllib.parse import unquote_to_bytes

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from app.core import filter as flt
from app.core import limits
from app.core.limits import Bound
from app.core.money import is_currency
from app.sandbox.body import arriving_budget, checked_text, read_body
from app.sandbox.clock import Clock, Scheduler
from app.sandbox.errors import Refusal, error_body, status_body
from app.sandbox.faults import Fault, Faults
from app.sandbox.idempotency import Idempotency, StoredAnswer
from app.sandbox.journal import Journal
from app.serving.body import BodyBudget

log = logging.getLogger("partner_desk.sandbox")

T = TypeVar("T")


#: The sandbox's users and their passwords (documented in the README).
USERS: dict[str, str] = {"demo": "demo", "demo-avs": "demo"}

_DIGITS = re.compile(r"[0-9]{1,10}")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


# ---------------------------------------------------------------- shared state


STREAMS_MAKING = 2  # streamed answers that make a piece in one turn of the loop


def streams_making() -> asyncio.Semaphore:
    return asyncio.Semaphore(STREAMS_MAKING)


@dataclass
class SandboxState:
    """Everything a running sandbox holds; ``reset`` replaces it whole."""

    clock: Clock
    scheduler: Scheduler
    services: dict[type, object] = field(default_factory=dict)
    idempotency: Idempotency = field(default_factory=Idempotency)
    faults: Faults = field(default_factory=Faults)
    journal: Journal = field(default_factory=Journal)
    # what is held at once of bodies still arriving (a reset keeps it: app.SandboxHost)
    arriving: BodyBudget = field(default_factory=arriving_budget)
    # the streamed answers' turns to make a piece (a reset keeps it, as it keeps the above)
    making: asyncio.Semaphore = field(default_factory=streams_making)

    def service(self, kind: type[T]) -> T:
        value = self.services[kind]
        assert isinstance(value, kind)
        return value


# ---------------------------------------------------------------- one request


@dataclass
class Outcome:
    """A handler's answer, and the change that goes with it (None: it changes nothing)."""

    payload: object
    commit: Callable[[], None] | None = None


@dataclass(frozen=True)
class Streamed:
    """An answer sent in pieces as they are made (a long statement), never built whole, so
    many readers at once cost little memory. Only for answers that change nothing."""

    chunks: Iterator[bytes]


async def _paced(chunks: Iterator[bytes], making: asyncio.Semaphore) -> AsyncIterator[bytes]:
    """The pieces, each made in a turn of the loop that at most ``STREAMS_MAKING`` streams
    have: the others wait their turn, not in the loop's queue — where 150 readers of a
    million records each made a piece (5 ms) before a small request got each of its turns,
    and it took 2.5 s. One stream alone never waits."""
    pieces = iter(chunks)
    while True:
        async with making:
            chunk = next(pieces, None)
            # the loop's turn between two pieces: it serves other requests, and a reader
            # who went away is noticed (the response is then cancelled, the rest never made)
            await asyncio.sleep(0)
        if chunk is None:
            return
        yield chunk


@dataclass(frozen=True)
class Operation:
    secured: bool = True
    idempotent: bool = False  # create/update: x-request-id required, answers replayed
    # none: empty or {}; optional: empty ({} too) or a JSON value; json: required
    body: Literal["none", "optional", "json", "multipart"] = "none"
    partner_code: bool = True  # x-partner-code required (the banking API's; not the gateway's)


Handler = Callable[["Call"], Outcome]


@dataclass
class Call:
    """What a handler gets: the request, checked, and the sandbox's state."""

    request: Request
    state: SandboxState
    body: Any
    user: str | None

    def service(self, kind: type[T]) -> T:
        return self.state.service(kind)

    @property
    def now(self) -> dt.datetime:
        return self.state.clock.now()

    def path(self, name: str, bound: Bound = limits.CLIENT_ID) -> str:
        value = str(self.request.path_params[name])
        checked_text(value, name)
        problem = bound.length_problem(value)
        if problem:
            raise Refusal(f"{name}: {problem}")
        return value

    def query(self, name: str) -> str | None:
        value = _given_once(name, self.request.query_params.getlist(name))
        if value is not None:
            checked_text(value, name)
        return value

    def query_int(self, name: str, default: int, bound: Bound) -> int:
        text = self.query(name)
        if text is None:
            return default
        # ASCII digits only: int() would take " 1_0" and full-width digits
        if not _DIGITS.fullmatch(text) or not bound.low <= int(text) <= bound.high:
            raise Refusal(f"{name}: must be an integer from {bound.low} to {bound.high}")
        return int(text)

    def query_date(self, name: str, *, required: bool) -> dt.date | None:
        text = self.query(name)
        if text is None or text == "":
            if required:
                raise Refusal(f"{name}: is required (yyyy-mm-dd)")
            return None
        try:
            if not _DATE.fullmatch(text):
                raise ValueError
            return dt.date.fromisoformat(text)
        except ValueError:
            raise Refusal(f"{name}: {text[:40]!r} is not a date yyyy-mm-dd") from None

    def query_currency(self) -> str | None:
        code = self.query("currency")
        if code is None or code == "":
            return None
        if not is_currency(code):
            raise Refusal(f"currency: {code[:40]!r} is not an ISO 4217 currency code")
        return code

    def paging(self) -> tuple[int, int]:
        offset = self.query_int("offset", 0, limits.OFFSET)
        limit = self.query_int("limit", limits.DEFAULT_LIMIT, limits.LIMIT)
        return offset, limit

    def filter(self, allowed: dict[str, flt.FieldType]) -> flt.Node | None:
        text = self.query("filter")
        if text is None or not text.strip():
            return None
        problem = limits.FILTER.length_problem(text)
        if problem:
            raise Refusal(f"filter: {problem}")
        try:
            node = flt.parse(text)
            flt.check_fields(node, allowed)
        except flt.FilterError as exc:
            raise Refusal(f"filter: {exc}") from None
        return node


def authenticate(request: Request) -> str | None:
    """The user of HTTP Basic credentials, when they are right."""
    header = request.headers.get("authorization", "")
    scheme, _, encoded = header.partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        user, _, password = base64.b64decode(encoded.strip(), validate=True).decode().partition(":")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    expected = USERS.get(user)
    if expected is None:
        # the same work for unknown users; bytes, since compare_digest refuses non-ASCII str
        secrets.compare_digest(password.encode("utf-8", "replace"), b"")
        return None
    given = password.encode("utf-8", "replace")
    return user if secrets.compare_digest(given, expected.encode()) else None


def json_response(
    payload: bytes, status: int = 200, headers: dict[str, str] | None = None
) -> Response:
    return Response(payload, status_code=status, media_type="application/json", headers=headers)


def refusal_response(refusal: Refusal) -> Response:
    headers = {"WWW-Authenticate": 'Basic realm="core"'} if refusal.status == 401 else {}
    if refusal.retry_after is not None:
        headers["Retry-After"] = str(refusal.retry_after)
    return json_response(
        error_body(refusal.message, refusal.title), refusal.status, headers or None
    )


def encode(payload: object) -> bytes:
    if isinstance(payload, bytes):
        return payload
    return json.dumps(payload, ensure_ascii=False).encode()


def endpoint(spec: Operation, handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    """Wrap a handler with the contract's common rules, faults, journal and idempotency."""

    async def serve(request: Request) -> Response:
        state: SandboxState = request.app.state.sandbox
        started = time.perf_counter()
        request_id = request.headers.get("x-request-id")
        response = await _respond(request, state, spec, handler, request_id)
        if request_id is not None and limits.REQUEST_ID.length_problem(request_id) is None:
            response.headers["x-request-id"] = request_id
        # the service's time is the sandbox clock's, moved forward or not: a client judging
        # "the day of payment" reads it here, as from any server
        response.headers["date"] = email.utils.format_datetime(state.clock.now(), usegmt=True)
        error = bytes(response.body) if response.status_code >= 400 else None
        state.journal.record(state.clock.now(), request, response.status_code, started, error)
        return response

    return serve


async def _respond(
    request: Request,
    state: SandboxState,
    spec: Operation,
    handler: Handler,
    request_id: str | None,
) -> Response:
    path, method = request.url.path, request.method
    slow = state.faults.take(method, path, "delay")
    if slow is not None:
        await asyncio.sleep(slow.delay_ms / 1000)
    fault = state.faults.take(method, path, "before")
    if fault is not None:
        return await _faulted(fault)
    try:
        _check_query(request)
        user = _check_headers(request, spec, request_id)
        body, digest = await read_body(request, spec.body)
        if request.app.state.sandbox is not state:  # reset while the body came or it waited
            raise Refusal(
                "The sandbox was reset while this request arrived: nothing was done; send it again",
                title="Operation not allowed",
            )
        if spec.body == "optional" and body == {}:
            body, digest = None, "empty"  # {} is no body: the same request as an empty one
        elif spec.body == "optional" and digest != "empty" and not isinstance(body, dict):
            raise Refusal("The body must be a JSON object")
        key = (user or "", request_id or "")
        fingerprint_ = f"{request.method} {path} {digest}"
        if spec.idempotent:
            stored = state.idempotency.get(key)
            if stored is not None:
                if stored.fingerprint != fingerprint_:
                    raise Refusal(
                        f"x-request-id: {request_id} was already used for a different request; "
                        "use a new id for a new action",
                        title="Duplicate request",
                    )
                return json_response(stored.body, stored.status, {"x-idempotent-replay": "true"})
        # from here to the end of the commit nothing awaits: the request is one atomic step
        state.scheduler.run_due()
        outcome = handler(Call(request, state, body, user))
        streamed = outcome.payload if isinstance(outcome.payload, Streamed) else None
        if streamed is not None and (outcome.commit is not None or spec.idempotent):
            raise TypeError("only an answer that changes nothing is streamed")
        encoded = b"" if streamed is not None else encode(outcome.payload)
        if outcome.commit is not None:
            outcome.commit()
        if spec.idempotent:
            state.idempotency.put(key, StoredAnswer(fingerprint_, 200, encoded))
    except Refusal as refusal:
        return refusal_response(refusal)
    except Exception:
        log.exception("sandbox handler failed")
        return json_response(status_body(500), 500)
    fault = state.faults.take(method, path, "after")
    if fault is not None:
        # the action happened; a retry with the same x-request-id replays its answer
        return await _faulted(fault)
    if streamed is not None:
        if request.method == "HEAD":  # the headers alone: nothing is made to be thrown away
            head = Response(media_type="application/json")
            del head.headers["content-length"]  # the GET's length is not known, nor 0
            return head
        return StreamingResponse(
            _paced(streamed.chunks, state.making), media_type="application/json"
        )
    return json_response(encoded)


async def _faulted(fault: Fault) -> Response:
    """A fault's answer, as late as it asks."""
    if fault.delay_ms:
        await asyncio.sleep(fault.delay_ms / 1000)
    return json_response(fault.answer(), fault.status)


_ONCE = ("authorization", "x-partner-code", "x-request-id")


def _given_once(name: str, values: list[str]) -> str | None:
    """The one value of a query parameter or header (``name`` says which: "limit", "the
    authorization header"); given twice, which one was meant? It is refused, never one taken
    silently."""
    if len(values) > 1:
        raise Refusal(f"{name}: given {len(values)} times; give it once")
    return values[0] if values else None


def _check_query(request: Request) -> None:
    try:  # read as text, a bad byte would become U+FFFD and match nothing, silently
        unquote_to_bytes(request.scope["query_string"]).decode("utf-8")
    except UnicodeDecodeError:
        raise Refusal("The query is not valid UTF-8") from None


def _check_headers(request: Request, spec: Operation, request_id: str | None) -> str | None:
    for name in _ONCE:
        # "the … header": "authorization: given" would read as a credential to the redaction
        # every message passes through, and be sent as "authorization: ***"
        _given_once(f"the {name} header", request.headers.getlist(name))
    user = None
    if spec.secured:
        user = authenticate(request)
        if user is None:
            raise Refusal(
                "Authentication required: send the user and password with HTTP Basic",
                title="Unauthorized",
                status=401,
            )
        if spec.partner_code:
            partner = request.headers.get("x-partner-code")
            if not partner:
                raise Refusal("x-partner-code: the header is required")
            if len(partner) > limits.PARTNER_CODE.high:
                raise Refusal(f"x-partner-code: at most {limits.PARTNER_CODE.high} characters")
    if request_id is not None:
        problem = limits.REQUEST_ID.length_problem(request_id)
        if problem:
            raise Refusal(f"x-request-id: {problem}")
    if spec.idempotent and not request_id:
        raise Refusal("x-request-id: the header is required for create and update")
    return user
