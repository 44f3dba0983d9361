"""The one HTTP transport of a connection profile.

Everything a call needs on the wire happens here: base URL, HTTP Basic credentials,
``x-partner-code`` on secured calls, ``x-request-id`` on every call (the action's idempotency
key on create and update, the same on every retry), retries with backoff on 408 and on
connection errors, and the mapping of failures to typed errors.

Every call is bounded (the README's "Bounds of a call"): in time by an overall deadline over
all its tries, not only per read, and in size by a cap on the decompressed answer. Content
encodings are decoded here, in bounded steps, so a small gzip bomb cannot take the memory.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import email.utils
import ipaddress
import logging
import socket
import ssl
import time
import zlib
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpcore
import httpx
from pydantic import ValidationError

from app.api.action import new_request_id
from app.api.errors import (
    ApiConnectionError,
    ApiError,
    ApiTimeoutError,
    InvalidInput,
    ResponseValidationError,
    error_for_status,
)
from app.api.models import ErrorBody
from app.core import limits
from app.core.redaction import redact
from app.core.text import printable

log = logging.getLogger("partner_desk.api")

# httpcore reads an answer 64 KiB at a time, and each read passes through the layers of four
# libraries; a million-record statement (280 MB) then takes 4,400 of them, a tenth of its
# load. Reading up to 256 KiB at a time (httpcore's own setting for it) takes 1,100.
READ_BYTES = 256 * 1024
SERVER_YEARS = (1970, 9000)  # a Date header outside these years is not taken as the server's
httpcore.AsyncHTTP11Connection.READ_NUM_BYTES = READ_BYTES

MiB = 1024 * 1024


@dataclass(frozen=True)
class Bounds:
    """How long and how large one call may be (documented in the README)."""

    deadline: float = 30.0  # seconds for a whole call: every try, the backoff and the answer
    step_timeout: float = 15.0  # seconds for connecting, or between two bytes of the answer
    answer_bytes: int = 16 * MiB  # a JSON answer, decompressed
    error_bytes: int = 64 * 1024  # an error body, decompressed; the rest is not read
    stream_total: float = 600.0  # seconds for a whole streamed answer (a statement)
    record_bytes: int = 1 * MiB  # one record of a streamed answer
    statement_records: int = 1_500_000  # records of one streamed answer


@dataclass(frozen=True)
class Profile:
    """Where and as whom to call. The password comes from the keyring, never from a file."""

    base_url: str
    user: str
    password: str = field(repr=False)
    partner_code: str
    # True, or the path of a CA bundle; never False (TLS verification stays on)
    verify: bool | str = True
    bounds: Bounds = Bounds()


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 3  # the first try and two retries
    backoff: float = 0.5  # seconds before the first retry; doubles each time
    max_backoff: float = 4.0

    def delay(self, retry: int) -> float:
        return min(self.backoff * 2.0**retry, self.max_backoff)


@dataclass(frozen=True)
class Exchange:
    """One attempt, as the request log shows it: no headers, no body, no credentials."""

    started: dt.datetime
    method: str
    path: str
    status: int | None
    request_id: str
    latency_ms: float
    attempt: int
    error: str | None = None


ExchangeListener = Callable[[Exchange], None]


@dataclass(frozen=True)
class Answer:
    """A 2xx answer, read whole and decoded."""

    status: int
    content: bytes
    request_id: str
    method: str
    path: str


_LOOPBACK_NAMES = frozenset({"localhost"})


def check_base_url(base_url: str) -> None:
    """Refuse an address the desk must not call: plain http to another computer, or one that
    carries a user or password (credentials go in the profile, never in a URL). The message
    never repeats a URL that carries credentials."""
    try:
        parts = urlsplit(base_url)
        host = parts.hostname
        has_credentials = parts.username is not None or parts.password is not None
    except ValueError:
        raise InvalidInput("base URL", "not a valid address") from None
    try:
        port = parts.port
    except ValueError:
        raise InvalidInput("base URL", "the port must be a number from 1 to 65535") from None
    if port == 0:
        raise InvalidInput("base URL", "the port must be a number from 1 to 65535")
    if has_credentials:
        raise InvalidInput(
            "base URL", "must not carry a user or password: enter them in their own fields"
        )
    if parts.scheme not in ("https", "http") or not host:
        raise InvalidInput("base URL", "an address such as https://api.bank.example")
    if parts.query or parts.fragment:
        raise InvalidInput("base URL", "must not carry a query or a fragment")
    if parts.scheme == "http" and not _is_loopback(host):
        raise InvalidInput("base URL", "use https: only this computer may be reached by http")


def _is_loopback(host: str) -> bool:
    if host.lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Transport:
    def __init__(
        self,
        profile: Profile,
        *,
        retry: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        partner_code: bool = True,
    ) -> None:
        """``partner_code``: send x-partner-code on secured calls (the banking API's header;
        the card gateway takes none)."""
        if profile.verify is False:
            raise ValueError("TLS verification cannot be turned off")
        check_base_url(profile.base_url)
        problem = limits.PARTNER_CODE.length_problem(profile.partner_code)
        if partner_code and problem:
            raise InvalidInput("partner code", problem)
        self._partner_code = partner_code
        self.profile = profile
        self.bounds = profile.bounds
        self.retry = retry or RetryPolicy()
        self._listeners: list[ExchangeListener] = []
        self.last_request_id: str | None = None
        self._base_path = urlsplit(api_root(profile.base_url)).path.rstrip("/")
        # the server's clock minus ours, from the Date header of its last answer
        self.server_offset = dt.timedelta(0)
        step = profile.bounds.step_timeout
        tls = _tls_context(profile.verify)
        if transport is None:
            # a request's head and body leave together, not one delayed ACK (~40 ms) apart
            transport = httpx.AsyncHTTPTransport(
                verify=tls, socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
            )
        self._client = httpx.AsyncClient(
            base_url=api_root(profile.base_url),
            auth=httpx.BasicAuth(profile.user, profile.password),
            verify=tls,
            timeout=httpx.Timeout(step, connect=min(step, 5.0)),
            transport=transport,
            follow_redirects=False,
            headers={
                "Accept": "application/json",
                "User-Agent": "PartnerDesk/0.1",
                # what _Decoder reads; anything else is refused
                "Accept-Encoding": "gzip, deflate",
            },
        )

    def add_listener(self, listener: ExchangeListener) -> None:
        self._listeners.append(listener)

    async def aclose(self) -> None:
        await self._client.aclose()

    async def request(
        self,
        method: str,
        path: str,
        *,
        json_body: Any = None,
        params: Mapping[str, str | int] | None = None,
        files: Mapping[str, tuple[str | None, bytes, str]] | None = None,
        secured: bool = True,
        request_id: str | None = None,
    ) -> Answer:
        """Send, retrying on 408 and connection errors with the same x-request-id, and read the
        answer. Returns a 2xx answer; raises an ApiError subclass for anything else."""
        call = self._call(method, path, json_body, params, files, secured, request_id)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.bounds.deadline
        try:
            async with asyncio.timeout_at(deadline):
                response, decoder = await self._send(call, deadline, stream=False)
                try:
                    content = await decoder.read_all(response, self.bounds.answer_bytes, call)
                finally:
                    await response.aclose()
        except TimeoutError:
            raise call.error(
                ApiTimeoutError,
                f"No complete answer from {self._where()} within {self.bounds.deadline:g} s",
            ) from None
        return Answer(response.status_code, content, call.request_id, method, path)

    async def stream(
        self, method: str, path: str, *, params: Mapping[str, str | int] | None = None
    ) -> AnswerStream:
        """Send and return the 2xx answer unread, to be read in pieces (a statement); its
        reading is bounded by ``stream_total`` and, between two bytes, ``step_timeout``."""
        call = self._call(method, path, None, params, None, True, None)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.bounds.deadline
        try:
            async with asyncio.timeout_at(deadline):
                response, decoder = await self._send(call, deadline, stream=True)
        except TimeoutError:
            raise call.error(
                ApiTimeoutError,
                f"No answer from {self._where()} within {self.bounds.deadline:g} s",
            ) from None
        return AnswerStream(self, response, decoder, call)

    # -- plumbing

    def _call(
        self,
        method: str,
        path: str,
        json_body: Any,
        params: Mapping[str, str | int] | None,
        files: Mapping[str, tuple[str | None, bytes, str]] | None,
        secured: bool,
        request_id: str | None,
    ) -> _Call:
        request_id = request_id or new_request_id()
        problem = limits.REQUEST_ID.length_problem(request_id)
        if problem:
            raise InvalidInput("x-request-id", problem)
        headers = {"x-request-id": request_id}
        if secured and self._partner_code:
            headers["x-partner-code"] = self.profile.partner_code
        # built once, so every retry sends the very same bytes (multipart boundary included)
        request = self._client.build_request(
            method,
            path,
            json=json_body,
            params={k: str(v) for k, v in (params or {}).items()},
            files=files,
            headers=headers,
        )
        self.last_request_id = request_id
        return _Call(method, path, request_id, request, secured)

    async def _send(
        self, call: _Call, deadline: float, *, stream: bool
    ) -> tuple[httpx.Response, _Decoder]:
        """The first 2xx answer, its body unread; retries 408 and failed connections."""
        loop = asyncio.get_running_loop()
        last_error: ApiError | None = None
        for attempt in range(1, self.retry.attempts + 1):
            if attempt > 1:
                pause = self.retry.delay(attempt - 2)
                if loop.time() + pause >= deadline:
                    break  # no time left for another try
                await asyncio.sleep(pause)
            started = dt.datetime.now(dt.UTC)
            clock = time.perf_counter()
            try:
                # open operations (IBAN check, healthcheck) never carry the credentials
                response = await self._client.send(
                    call.request,
                    auth=httpx.USE_CLIENT_DEFAULT if call.secured else None,
                    stream=True,
                )
            except httpx.TransportError as exc:
                last_error = call.error(
                    ApiTimeoutError
                    if isinstance(exc, httpx.TimeoutException)
                    else ApiConnectionError,
                    self._failure(exc),
                )
                self._notify(call, None, clock, started, attempt, last_error)
                continue
            self._notify(call, response.status_code, clock, started, attempt)
            self._read_server_time(response)
            try:
                decoder = _Decoder.for_response(response, call)
            except ApiError:
                await response.aclose()
                raise
            if response.is_success:
                return response, decoder
            try:
                body = await decoder.read_all(response, self.bounds.error_bytes, call, cut=True)
            except (ApiError, httpx.TransportError):
                body = b""  # the error body is a courtesy; the status says enough
            finally:
                await response.aclose()
            last_error = _status_error(response, body, call)
            if response.status_code != 408:
                raise last_error
        assert last_error is not None
        raise last_error

    def server_now(self) -> dt.datetime:
        """The server's time now, as far as its last answer told (rules such as "the day of
        payment" are the server's, not this computer's)."""
        return dt.datetime.now(dt.UTC) + self.server_offset

    def _read_server_time(self, response: httpx.Response) -> None:
        try:
            told = email.utils.parsedate_to_datetime(response.headers.get("date", ""))
            if told.tzinfo is None:
                return  # a time of no known zone
            told = told.astimezone(dt.UTC)
        except (TypeError, ValueError, IndexError, OverflowError):
            return  # no Date header, or not one we can read: keep what we knew
        if not SERVER_YEARS[0] <= told.year <= SERVER_YEARS[1]:
            return  # a clock this far off is no clock: every date sum with it would overflow
        self.server_offset = told - dt.datetime.now(dt.UTC)

    def _where(self) -> str:
        return api_root(self.profile.base_url)

    def _failure(self, exc: httpx.TransportError) -> str:
        if isinstance(exc, httpx.TimeoutException):
            return f"No answer from {self._where()} in time: {describe_transport_error(exc)}"
        return f"Cannot reach {self._where()}: {describe_transport_error(exc)}"

    def _notify(
        self,
        call: _Call,
        status: int | None,
        clock: float,
        started: dt.datetime,
        attempt: int,
        error: ApiError | None = None,
    ) -> None:
        exchange = Exchange(
            started=started,
            method=call.method,
            # the whole path on the server: a gateway's /orders/ is its /gateway/orders/
            path=redact(self._base_path + call.path),
            status=status,
            request_id=call.request_id,
            latency_ms=round((time.perf_counter() - clock) * 1000, 1),
            attempt=attempt,
            error=None if error is None else redact(str(error)),
        )
        log.info(
            "%s %s -> %s x-request-id=%s %.1f ms attempt %d",
            call.method,
            exchange.path,
            status if status is not None else exchange.error,
            call.request_id,
            exchange.latency_ms,
            attempt,
        )
        for listener in self._listeners:
            listener(exchange)


@dataclass(frozen=True)
class _Call:
    """One call: what every try sends, and how its failures are named."""

    method: str
    path: str
    request_id: str
    request: httpx.Request
    secured: bool

    def error(self, kind: type[ApiError], message: str) -> ApiError:
        """A failure that quotes the x-request-id support can look up."""
        return kind(
            f"{message} (x-request-id {self.request_id})",
            request_id=self.request_id,
            method=self.method,
            path=self.path,
        )


class AnswerStream:
    """A 2xx answer read in decoded chunks; close it (or leave its ``chunks`` loop) to close
    the connection."""

    def __init__(
        self, transport: Transport, response: httpx.Response, decoder: _Decoder, call: _Call
    ) -> None:
        self._transport = transport
        self._response = response
        self._decoder = decoder
        self.call = call

    @property
    def request_id(self) -> str:
        return self.call.request_id

    def error(self, kind: type[ApiError], message: str) -> ApiError:
        return self.call.error(kind, message)

    async def chunks(self) -> AsyncIterator[bytes]:
        bounds = self._transport.bounds
        deadline = asyncio.get_running_loop().time() + bounds.stream_total
        raw = raw_pieces(self._response)
        try:
            while True:
                try:
                    async with asyncio.timeout_at(deadline):
                        piece = await anext(raw, None)
                except TimeoutError:
                    raise self.call.error(
                        ApiTimeoutError,
                        f"The answer from {self._transport._where()} did not end within "
                        f"{bounds.stream_total:g} s",
                    ) from None
                except httpx.TimeoutException:
                    raise self.call.error(
                        ApiTimeoutError,
                        f"The answer from {self._transport._where()} stopped: nothing came "
                        f"for {bounds.step_timeout:g} s",
                    ) from None
                except httpx.TransportError as exc:
                    raise self.call.error(
                        ApiConnectionError, self._transport._failure(exc)
                    ) from None
                if piece is None:
                    break
                for decoded in self._decoder.feed(piece):
                    yield decoded
            tail = self._decoder.flush()
            if tail:
                yield tail
        finally:
            await self.aclose()

    async def aclose(self) -> None:
        await self._response.aclose()


class _Decoder:
    """The answer's content encoding (identity, gzip, deflate), decoded in bounded steps: no
    step gives more than ``STEP`` bytes, and past ``limit`` bytes in all it stops."""

    STEP = 256 * 1024

    def __init__(self, encoding: str, call: _Call, limit: int | None = None) -> None:
        self._call = call
        self._limit = limit
        self._produced = 0
        self._encoding = encoding
        self._zlib: Any = None
        self._started = False
        if encoding == "gzip":
            self._zlib = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._zlib = zlib.decompressobj()

    @classmethod
    def for_response(cls, response: httpx.Response, call: _Call) -> _Decoder:
        if response.is_stream_consumed:
            return cls("identity", call)  # built whole (a test's mock): httpx decoded it
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if encoding not in ("identity", "", "gzip", "deflate"):
            raise call.error(
                ResponseValidationError,
                f"The answer to {call.method} {call.path} uses the content encoding "
                f"{encoding[:40]!r}, which Partner Desk does not read",
            )
        return cls(encoding or "identity", call)

    def feed(self, data: bytes) -> Iterator[bytes]:
        """The decoded bytes of one piece of the answer, in steps."""
        if self._zlib is None:  # in steps too: an answer handed over whole is no exception
            for start in range(0, len(data), self.STEP):
                yield self._counted(data[start : start + self.STEP])
            return
        pending = data
        while True:
            try:
                out = self._zlib.decompress(pending, self.STEP)
            except zlib.error:
                if self._encoding == "deflate" and not self._started:
                    # some servers send raw deflate without the zlib wrapper
                    self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)
                    self._started = True
                    continue
                raise self._broken() from None
            self._started = True
            pending = self._zlib.unconsumed_tail
            if out:
                yield self._counted(out)
            if not pending and len(out) < self.STEP:
                return

    def flush(self) -> bytes:
        if self._zlib is None:
            return b""
        try:
            out: bytes = self._zlib.flush(self.STEP)
        except zlib.error:
            raise self._broken() from None
        if not self._zlib.eof:
            raise self._broken()
        return self._counted(out)

    def _counted(self, out: bytes) -> bytes:
        self._produced += len(out)
        if self._limit is not None and self._produced > self._limit:
            raise _TooLarge
        return out

    def _broken(self) -> ApiError:
        return self._call.error(
            ResponseValidationError,
            f"The answer to {self._call.method} {self._call.path} could not be decoded: "
            f"broken {self._encoding} data",
        )

    async def read_all(
        self, response: httpx.Response, limit: int, call: _Call, *, cut: bool = False
    ) -> bytes:
        """The whole answer, decoded; past ``limit`` bytes an error (or, with ``cut``, what
        was read so far: an error body is a courtesy)."""
        self._limit = limit
        parts: list[bytes] = []
        try:
            async for piece in raw_pieces(response):
                parts.extend(self.feed(piece))
            parts.append(self.flush())
        except _TooLarge:
            if cut:
                return b"".join(parts)[:limit]
            raise call.error(
                ResponseValidationError,
                f"The answer to {call.method} {call.path} is larger than {limit // 1024:,} KiB",
            ) from None
        except httpx.TransportError as exc:
            raise call.error(
                ApiTimeoutError if isinstance(exc, httpx.TimeoutException) else ApiConnectionError,
                f"The answer to {call.method} {call.path} broke off: "
                f"{describe_transport_error(exc)}",
            ) from None
        return b"".join(parts)


class _TooLarge(Exception):
    pass


async def raw_pieces(response: httpx.Response) -> AsyncIterator[bytes]:
    """The answer's bytes as they arrive, still encoded."""
    if response.is_stream_consumed:
        yield response.content  # built whole (a test's mock)
        return
    async for piece in response.aiter_raw():
        yield piece


def api_root(base_url: str) -> str:
    """The address both versions hang under: a base URL given with its /v1 (as the contract
    writes it) or /v2 prefix is accepted too."""
    root = base_url.rstrip("/")
    for prefix in ("/v1", "/v2"):
        if root.endswith(prefix):
            return root[: -len(prefix)]
    return root


def _tls_context(verify: bool | str) -> ssl.SSLContext:
    """The system's trusted CAs, plus those of the profile's CA bundle when it has one."""
    context = ssl.create_default_context()
    if isinstance(verify, str):
        try:
            context.load_verify_locations(cafile=verify)
        except (OSError, ssl.SSLError) as exc:
            raise InvalidInput("CA bundle", f"cannot use {verify}: {exc}") from None
    return context


_DESCRIPTIONS: dict[type[httpx.TransportError], str] = {
    httpx.ConnectTimeout: "the connection was not accepted in time",
    httpx.ReadTimeout: "the server stopped sending",
    httpx.WriteTimeout: "the request could not be sent in time",
    httpx.PoolTimeout: "no connection was free in time",
    httpx.ConnectError: "the connection was refused or failed",
    httpx.ReadError: "the connection broke while reading the answer",
    httpx.WriteError: "the connection broke while sending the request",
    httpx.RemoteProtocolError: "the server closed the connection or broke the HTTP protocol",
    httpx.LocalProtocolError: "the request could not be sent over HTTP",
    httpx.ProxyError: "the proxy refused the connection",
    httpx.UnsupportedProtocol: "the address uses a protocol that is not supported",
}


# what a TLS failure most likely means for the person signing in (ssl.SSLError.reason)
_TLS_HINTS = {
    "WRONG_VERSION_NUMBER": "the server does not answer in TLS there: is its address http://?",
    "CERTIFICATE_VERIFY_FAILED": (
        "the server's certificate is not trusted: for a private CA, give the profile its CA bundle"
    ),
}


def describe_transport_error(exc: BaseException) -> str:
    """The reason for a failed exchange, never empty: the deepest message in the exception's
    chain, or what its kind means, and what a TLS failure most likely means."""
    reason = hint = ""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        text = str(current).strip()
        # anyio's cancel scope tells how it stopped the wait, not why: the kind says that
        if text and not text.startswith("Cancelled via cancel scope"):
            reason = text
        if isinstance(current, ssl.SSLError):
            hint = _TLS_HINTS.get(str(current.reason), hint)
        current = current.__cause__ or current.__context__
    meaning = next(
        (text for kind, text in _DESCRIPTIONS.items() if isinstance(exc, kind)),
        type(exc).__name__,
    )
    described = meaning if not reason or reason == meaning else f"{meaning} ({reason})"
    return f"{described}: {hint}" if hint else described


def _status_error(response: httpx.Response, body: bytes, call: _Call) -> ApiError:
    """The typed error for a non-2xx answer, with the error body when there is one."""
    kind = error_for_status(response.status_code)
    failure_message = error_id = title = None
    try:
        parsed = ErrorBody.model_validate_json(body)
    except ValidationError:
        parsed = None  # a proxy's HTML page, an empty or a cut body
    if parsed is not None:
        failure_message = parsed.failure_message
        error_id = parsed.detail.error_id
        title = parsed.detail.title
    if failure_message:
        summary = failure_message
    else:
        # no error body: the status, where a redirect pointed, and the id support can look up
        summary = f"HTTP {response.status_code} {printable(response.reason_phrase)}".strip()
        location = response.headers.get("location")
        if response.is_redirect and location:
            summary += f", a redirect to {printable(location)} (not followed)"
        summary += f" (x-request-id {call.request_id})"
    return kind(
        summary,
        status=response.status_code,
        failure_message=failure_message,
        error_id=error_id,
        title=title,
        request_id=call.request_id,
        method=call.method,
        path=call.path,
    )
