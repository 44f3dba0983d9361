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
import hashlib
import json
import logging
import re
import secrets
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal, TypeVar
from urllib.parse import unquote_to_bytes

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from app.core import filter as flt
from app.core import limits
from app.core.limits import Bound
from app.core.money import is_currency
from app.core.redaction import redact, redact_url_part
from app.sandbox.clock import Clock, Scheduler
from app.sandbox.errors import Refusal, error_body, status_body
from app.serving import body as serving_body
from app.serving import strict_json

log = logging.getLogger("partner_desk.sandbox")

T = TypeVar("T")

JSON_BODY_BYTES = 1024 * 1024  # decided; see the README
BODY_SECONDS = 30.0  # a request's body arrives within this after its head, or it is refused
MULTIPART_BODY_BYTES = limits.ATTACHMENT_BYTES.high + 256 * 1024
JSON_DEPTH = 32  # objects and arrays nested deeper are refused (decided)
JSON_VALUES = 10_000  # values in one body (decided: a client with 20 documents has ~200)
IDEMPOTENCY_ENTRIES = 50_000  # answers kept for replay; the oldest are forgotten first
JOURNAL_ENTRIES = 2000

#: The sandbox's users and their passwords (documented in the README).
USERS: dict[str, str] = {"demo": "demo", "demo-avs": "demo"}

_SURROGATE = re.compile("[\ud800-\udfff]")
# C0 and C1 controls but tab and line breaks, and the bidirectional overrides and isolates
# that make text read otherwise than it is stored
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_DIGITS = re.compile(r"[0-9]{1,10}")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


# ---------------------------------------------------------------- shared state


@dataclass
class StoredAnswer:
    fingerprint: str
    status: int
    body: bytes


class Idempotency:
    """Answers of create and update operations by (user, x-request-id), bounded."""

    def __init__(self, capacity: int = IDEMPOTENCY_ENTRIES) -> None:
        self.capacity = capacity
        self._answers: OrderedDict[tuple[str, str], StoredAnswer] = OrderedDict()

    def get(self, key: tuple[str, str]) -> StoredAnswer | None:
        return self._answers.get(key)

    def put(self, key: tuple[str, str], answer: StoredAnswer) -> None:
        self._answers[key] = answer
        while len(self._answers) > self.capacity:
            self._answers.popitem(last=False)

    def __len__(self) -> int:
        return len(self._answers)


@dataclass
class Fault:
    status: Literal[408, 500]
    remaining: int
    # before: answer the status without acting; after: act, then answer the status;
    # delay: wait delay_ms, then serve the request as usual (a slow answer)
    mode: Literal["before", "after", "delay"]
    path_contains: str | None
    delay_ms: int = 0


class Faults:
    def __init__(self) -> None:
        self.active: list[Fault] = []

    def take(self, path: str, mode: str) -> Fault | None:
        for fault in self.active:
            if fault.mode == mode and (fault.path_contains is None or fault.path_contains in path):
                fault.remaining -= 1
                if fault.remaining <= 0:
                    self.active.remove(fault)
                return fault
        return None

    def set(self, fault: Fault) -> None:
        """Replace the fault of the same mode and path (count 0 only clears it)."""
        self.active = [
            f for f in self.active if f.mode != fault.mode or f.path_contains != fault.path_contains
        ]
        if fault.remaining:
            self.active.append(fault)


@dataclass
class SandboxState:
    """Everything a running sandbox holds; ``reset`` replaces it whole."""

    clock: Clock
    scheduler: Scheduler
    services: dict[type, object] = field(default_factory=dict)
    idempotency: Idempotency = field(default_factory=Idempotency)
    faults: Faults = field(default_factory=Faults)
    journal: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=JOURNAL_ENTRIES))

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


async def _paced(chunks: Iterator[bytes]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk
        # the loop's turn between two pieces: it serves other requests, and a reader who
        # went away is noticed (the response is then cancelled, the rest never made)
        await asyncio.sleep(0)


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


def checked_text(value: str, where: str) -> str:
    """Refuse text that is not valid Unicode (a lone surrogate, as JSON "\\ud800" writes it) or
    that holds a control character (NUL and the like; tab and line breaks are text)."""
    if _SURROGATE.search(value):
        raise Refusal(f"{where}: is not valid Unicode text (it holds a lone surrogate)")
    if _CONTROL.search(value):
        raise Refusal(f"{where}: holds a control character, which text cannot hold")
    return value


def checked_json(value: Any) -> None:
    """Walk a parsed body: every text valid Unicode without control characters, no deeper
    than JSON_DEPTH, at most JSON_VALUES values (so checking it against a schema is bounded
    work), no number JSON cannot carry exactly (those arrive as Decimal and fail any integer
    field). The walk stops at the first problem."""
    pending: list[tuple[Any, str, int]] = [(value, "", 0)]
    seen = 0
    while pending:
        item, where, depth = pending.pop()
        seen += 1
        if seen > JSON_VALUES:
            raise Refusal(f"The body holds more than {JSON_VALUES:,} values")
        if depth > JSON_DEPTH:
            raise Refusal(f"The body nests objects and arrays more than {JSON_DEPTH} deep")
        if isinstance(item, str):
            checked_text(item, where or "body")
        elif isinstance(item, dict):
            for key, child in item.items():
                checked_text(key, f"{where}.{key}" if where else "a property name")
                pending.append((child, f"{where}.{key}" if where else key, depth + 1))
        elif isinstance(item, list):
            for index, child in enumerate(item):
                pending.append((child, f"{where}.{index}" if where else str(index), depth + 1))


def parse_json(raw: bytes) -> Any:
    """A JSON body, checked: numbers with a fraction or exponent become Decimal (never float,
    so 100.0 is not an integer), NaN and Infinity are refused, depth and text are checked."""
    try:
        text = raw.decode("utf-8")  # strictly: UTF-16 and broken UTF-8 are refused
    except UnicodeDecodeError as exc:
        raise Refusal(f"The body is not UTF-8 text: {exc.reason} at byte {exc.start}") from None
    try:
        parsed = strict_json.loads(text, parse_float=Decimal)
    except RecursionError:
        raise Refusal(f"The body nests objects and arrays more than {JSON_DEPTH} deep") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise Refusal(f"The body is not valid JSON: {str(exc)[:200]}") from None
    checked_json(parsed)
    return parsed


async def read_capped(request: Request, cap: int) -> bytes:
    """The request's body, refused past ``cap`` bytes without reading the rest, or when it
    does not arrive within BODY_SECONDS of its head."""
    try:
        return await serving_body.read_capped(request, cap, BODY_SECONDS)
    except serving_body.BodyRefused as refused:
        raise Refusal(str(refused)) from None


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    )


def _charset(content_type: str) -> str | None:
    """The charset parameter of a Content-Type, lower case, or None."""
    for parameter in content_type.split(";")[1:]:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset":
            return value.strip().strip('"').lower()
    return None


async def read_body(request: Request, kind: str) -> tuple[Any, str]:
    """The parsed body and its fingerprint (what makes two submissions the same action).
    ``kind``: json (required), optional, none (empty or ``{}``) or multipart."""
    content_type = request.headers.get("content-type", "")
    if kind == "multipart":
        if not content_type.lower().startswith("multipart/form-data"):
            raise Refusal("The body must be sent as multipart/form-data with metadata and file")
        await read_capped(request, MULTIPART_BODY_BYTES)
        return await _read_multipart(request)
    raw = await read_capped(request, JSON_BODY_BYTES)
    if not raw.strip():
        if kind == "json":
            raise Refusal("The body is required (a JSON object)")
        return None, "empty"
    if not _is_json(content_type):
        raise Refusal("The body must be sent as application/json")
    charset = _charset(content_type)
    if charset not in (None, "utf-8", "utf8"):  # JSON is UTF-8: another would be misread
        raise Refusal(f"Content-Type: charset {charset[:40]!r}: JSON is sent as utf-8")
    parsed = parse_json(raw)
    if kind == "none":
        if parsed != {}:
            raise Refusal("This operation takes no body")
        return None, "empty"  # {} is no body: the same request as an empty one
    return parsed, fingerprint(parsed)


def fingerprint(parsed: Any) -> str:
    canonical = json.dumps(parsed, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


async def _read_multipart(request: Request) -> tuple[Any, str]:
    """The attachment's two parts, read from the raw body (already bounded by read_capped)
    so that the metadata's bytes are checked as UTF-8 JSON exactly as sent."""
    content_type = request.headers.get("content-type", "")
    parts = _multipart_parts(request._body, content_type)
    for name in ("metadata", "file"):
        found = parts.get(name, [])
        if not found:
            raise Refusal(f"{name}: is required")
        if len(found) > 1:
            raise Refusal(f"{name}: is sent more than once")
    unknown = sorted(set(parts) - {"metadata", "file"})
    if unknown:
        raise Refusal(f"{unknown[0][:40]}: is not a part of an attachment (metadata, file)")
    (metadata_raw, _), (content, filename) = parts["metadata"][0], parts["file"][0]
    if filename is None:
        raise Refusal("file: must be a file part (with a filename)")
    if len(metadata_raw) > JSON_BODY_BYTES:
        raise Refusal("metadata: larger than 1,024 KiB")
    metadata = parse_json(metadata_raw)
    if len(content) > limits.ATTACHMENT_BYTES.high:
        raise Refusal("file: larger than the 10 MiB limit")
    if not content:
        raise Refusal("file: is empty")
    digest = hashlib.sha256(fingerprint(metadata).encode() + b"\0" + content).hexdigest()
    return {"metadata": metadata, "file": content}, digest


MultipartParts = dict[str, list[tuple[bytes, str | None]]]


def _multipart_parts(raw: bytes, content_type: str) -> MultipartParts:
    """Name -> [(bytes, filename)] of a multipart/form-data body, at most four parts."""
    from python_multipart.multipart import MultipartParser, parse_options_header

    _media, options = parse_options_header(content_type)
    boundary = options.get(b"boundary")
    if not boundary:
        raise Refusal("The multipart body has no boundary")
    parts: MultipartParts = {}
    current: dict[str, Any] = {}
    header: list[bytes] = [b"", b""]

    def begin() -> None:
        current.clear()
        current.update(name=None, filename=None, data=bytearray())
        if sum(len(found) for found in parts.values()) >= 4:
            raise Refusal("The multipart body has more than 4 parts")

    def header_field(data: bytes, start: int, end: int) -> None:
        header[0] += data[start:end]

    def header_value(data: bytes, start: int, end: int) -> None:
        header[1] += data[start:end]

    def header_end() -> None:
        if header[0].strip().lower() == b"content-disposition":
            _kind, disposition = parse_options_header(header[1])
            name, filename = disposition.get(b"name"), disposition.get(b"filename")
            current["name"] = name.decode("utf-8", "replace") if name else None
            current["filename"] = filename.decode("utf-8", "replace") if filename else None
        header[0] = header[1] = b""

    def data(chunk: bytes, start: int, end: int) -> None:
        current["data"] += chunk[start:end]

    def end() -> None:
        if current.get("name") is None:
            raise Refusal("A multipart part has no name")
        parts.setdefault(current["name"], []).append((bytes(current["data"]), current["filename"]))

    parser = MultipartParser(
        boundary,
        {
            "on_part_begin": begin,
            "on_header_field": header_field,
            "on_header_value": header_value,
            "on_header_end": header_end,
            "on_part_data": data,
            "on_part_end": end,
        },
    )
    try:
        parser.write(raw)
        parser.finalize()
    except Refusal:
        raise
    except Exception as exc:  # python-multipart raises several kinds for a malformed body
        raise Refusal(f"The multipart body cannot be read: {str(exc)[:200]}") from None
    return parts


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
    headers = {"WWW-Authenticate": 'Basic realm="core"'} if refusal.status == 401 else None
    return json_response(error_body(refusal.message, refusal.title), refusal.status, headers)


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
        record(state, request, response.status_code, started)
        return response

    return serve


_PAGE_TOKEN = re.compile(r"^(/gateway/(?:checkout|3ds)/[^/]+/)[^/]+")


def record(state: SandboxState, request: Request, status: int, started: float) -> None:
    """One line of the journal: never a body, nothing shaped like a card number, and not the
    tokens of the cardholder's pages (the journal is read without credentials)."""
    request_id = request.headers.get("x-request-id")
    partner_code = request.headers.get("x-partner-code")
    state.journal.append(
        {
            "time": state.clock.now().isoformat(timespec="milliseconds"),
            "method": request.method,
            "path": _PAGE_TOKEN.sub(r"\1***", redact_url_part(request.url.path)),
            "query": redact_url_part(request.url.query),
            "status": status,
            "request_id": None if request_id is None else redact(request_id),
            "partner_code": None if partner_code is None else redact(partner_code),
            "ms": round((time.perf_counter() - started) * 1000, 1),
        }
    )


async def _respond(
    request: Request,
    state: SandboxState,
    spec: Operation,
    handler: Handler,
    request_id: str | None,
) -> Response:
    path = request.url.path
    slow = state.faults.take(path, "delay")
    if slow is not None:
        await asyncio.sleep(slow.delay_ms / 1000)
    fault = state.faults.take(path, "before")
    if fault is not None:
        return json_response(status_body(fault.status), fault.status)
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
    fault = state.faults.take(path, "after")
    if fault is not None:
        # the action happened; a retry with the same x-request-id replays its answer
        return json_response(status_body(fault.status), fault.status)
    if streamed is not None:
        if request.method == "HEAD":  # the headers alone: nothing is made to be thrown away
            head = Response(media_type="application/json")
            del head.headers["content-length"]  # the GET's length is not known, nor 0
            return head
        return StreamingResponse(_paced(streamed.chunks), media_type="application/json")
    return json_response(encoded)


_ONCE = ("authorization", "x-partner-code", "x-request-id")


def _given_once(name: str, values: list[str]) -> str | None:
    """The one value of a query parameter or header; given twice, which one was meant? It is
    refused, never one taken silently."""
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
        _given_once(name, request.headers.getlist(name))
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
