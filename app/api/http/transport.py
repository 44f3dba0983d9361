"""The one HTTP transport of a connection: it knows no service.

Everything a call needs on the wire happens here: the address, the authentication and the
headers its service's layer gives it (api/banking, api/gateway), ``x-request-id`` on every
call (the action's idempotency key on create and update, the same on every retry), retries
with jittered backoff on 408 and on connection errors, and the mapping of failures to typed
errors.

Every call is bounded (the README's "Bounds of a call"): in time by an overall deadline over
all its tries, not only per read, and in size by a cap on the decompressed answer (decoded
in bounded steps by `decoding`, so a small gzip bomb cannot take the memory).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import email.utils
import logging
import ssl
import time
from collections.abc import AsyncIterator, Mapping
from typing import Any
from urllib.parse import urlsplit

import httpcore
import httpx

from app.api.action import new_request_id
from app.api.address import check_base_url
from app.api.errors import (
    ApiConnectionError,
    ApiError,
    ApiTimeoutError,
    ClosedByDesk,
    InvalidInput,
    ResponseValidationError,
)
from app.api.http import h11_buffer
from app.api.http.deadline import AnswerDeadline
from app.api.http.decoding import Decoder, raw_pieces
from app.api.http.exchange import Answer, Call, Exchange, ExchangeListener
from app.api.http.failures import (
    describe_transport_error,
    lasting,
    set_aside_redirect,
    status_error,
)
from app.api.http.network import http_transport
from app.api.http.policy import Bounds, RetryPolicy
from app.core import limits
from app.core.redaction import redact
from app.core.tls import tls_context

log = logging.getLogger("partner_desk.api")

# httpcore reads an answer 64 KiB at a time, and each read passes through the layers of four
# libraries; a long streamed answer (280 MB) then takes 4,400 of them, a tenth of its load.
# Reading up to 256 KiB at a time (httpcore's own setting for it) takes 1,100.
READ_BYTES = 256 * 1024
# failures once connected: a connection broken, or an answer that is not HTTP/1.1
_REACHED = (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError)
_READS = frozenset({"GET", "HEAD"})  # calls that change nothing: cancelled when it closes
SERVER_YEARS = (1970, 9000)  # a Date header outside these years is not taken as the server's
httpcore.AsyncHTTP11Connection.READ_NUM_BYTES = READ_BYTES
h11_buffer.install()  # an answer's bytes handed on by h11, not copied twice more


class Transport:
    def __init__(
        self,
        base_url: str,
        *,
        auth: httpx.Auth | None = None,
        headers: Mapping[str, str] | None = None,
        secured_headers: Mapping[str, str] | None = None,
        verify: bool | str = True,
        bounds: Bounds | None = None,
        retry: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        """``auth`` and ``secured_headers`` go with every secured call, ``headers`` with every
        call: the service's own (its authentication, its headers) are given by its layer."""
        if verify is False:
            raise ValueError("TLS verification cannot be turned off")
        check_base_url(base_url)
        self.base_url = base_url.rstrip("/")
        self._secured_headers = dict(secured_headers or {})
        self.bounds = bounds = bounds or Bounds()
        self.retry = retry or RetryPolicy()
        self._listeners: list[ExchangeListener] = []
        # the tasks making a call, with how many each makes; whether it was closed
        self._calls: dict[asyncio.Task[Any], int] = {}
        self._closed = False
        self.last_request_id: str | None = None
        self._base_path = urlsplit(self.base_url).path.rstrip("/")
        # the server's clock minus ours, from the Date header of its last answer
        self.server_offset = dt.timedelta(0)
        step = bounds.step_timeout
        try:
            tls = tls_context(self.base_url, verify if isinstance(verify, str) else None)
        except (OSError, ssl.SSLError) as exc:
            raise InvalidInput("CA bundle", f"cannot use {verify}: {exc}") from None
        if transport is None:
            transport = http_transport(tls)
        self._client = httpx.AsyncClient(
            base_url=self.base_url,
            auth=auth,
            verify=tls,
            timeout=httpx.Timeout(step, connect=min(step, 5.0)),
            transport=transport,
            follow_redirects=False,
            event_hooks={"response": [set_aside_redirect]},
            headers={
                "Accept": "application/json",
                "User-Agent": "PartnerDesk/0.1",
                # what Decoder reads; anything else is refused
                "Accept-Encoding": "gzip, deflate",
                **(headers or {}),
            },
        )

    def add_listener(self, listener: ExchangeListener) -> None:
        self._listeners.append(listener)

    async def aclose(self) -> None:
        """Close its connections. A call still on its way is then the desk's to stop, never
        the server's failure (a sign-in anew during a statement's load said that the server
        broke the answer off): the tasks reading something (GET, HEAD) are cancelled first;
        a call that may have changed something fails saying that its outcome is not known
        (`failure`), so that its form offers to send it again (with its key: never carried
        out twice). A call made after is cancelled."""
        self._closed = True
        current = asyncio.current_task()
        for task in self._calls:
            if task is not current:
                task.cancel()
        await self._client.aclose()

    def _calling(self, method: str) -> asyncio.Task[Any] | None:
        """The current task makes a call, until `_called`: one that reads (GET, HEAD) is
        cancelled if the transport closes meanwhile (`aclose`)."""
        if self._closed:
            raise asyncio.CancelledError  # a call of a session that has ended
        task = asyncio.current_task()
        if task is None or method not in _READS:
            return None
        self._calls[task] = self._calls.get(task, 0) + 1
        return task

    def _called(self, task: asyncio.Task[Any] | None) -> None:
        if task is None:
            return
        if self._calls.get(task, 0) > 1:
            self._calls[task] -= 1
        else:
            self._calls.pop(task, None)

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
        calling = self._calling(method)
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
                f"No complete answer from {self.where()} within {self.bounds.deadline:g} s",
            ) from None
        except ApiConnectionError:
            if self._closed:  # under the answer's reading: the desk's doing
                raise call.error(ClosedByDesk, self.stopped()) from None
            raise
        finally:
            self._called(calling)
        if content.count(b",") >= self.bounds.answer_values:  # before any is parsed
            raise call.error(
                ResponseValidationError,
                f"The answer to {method} {path} holds more than "
                f"{self.bounds.answer_values:,} values",
            )
        return Answer(response.status_code, content, call.request_id, method, path)

    async def stream(
        self, method: str, path: str, *, params: Mapping[str, str | int] | None = None
    ) -> AnswerStream:
        """Send and return the 2xx answer unread, to be read in pieces (a long list); its
        reading is bounded by ``stream_total`` and, between two bytes, ``step_timeout``."""
        call = self._call(method, path, None, params, None, True, None)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.bounds.deadline
        calling = self._calling(method)  # until the answer is closed (`AnswerStream.aclose`)
        try:
            async with asyncio.timeout_at(deadline):
                response, decoder = await self._send(call, deadline, stream=True)
        except TimeoutError:
            self._called(calling)
            raise call.error(
                ApiTimeoutError,
                f"No answer from {self.where()} within {self.bounds.deadline:g} s",
            ) from None
        except BaseException:
            self._called(calling)
            raise
        return AnswerStream(self, response, decoder, call, calling)

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
    ) -> Call:
        request_id = request_id or new_request_id()
        problem = limits.REQUEST_ID.length_problem(request_id)
        if problem:
            raise InvalidInput("x-request-id", problem)
        headers = {"x-request-id": request_id}
        if secured:
            headers.update(self._secured_headers)
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
        return Call(method, path, request_id, request, secured)

    async def _send(
        self, call: Call, deadline: float, *, stream: bool
    ) -> tuple[httpx.Response, Decoder]:
        """The first 2xx answer, its body unread; retries 408 and failed connections (not
        those that would fail again: `lasting`)."""
        loop = asyncio.get_running_loop()
        last_error: ApiError | None = None
        for attempt in range(1, self.retry.attempts + 1):
            if attempt > 1:
                pause = self.retry.delay(attempt - 2)
                if loop.time() + pause >= deadline:
                    break  # no time left for another try
                await asyncio.sleep(pause)
                if self._closed:  # meanwhile (a call that reads was cancelled)
                    raise call.error(ClosedByDesk, self.stopped())
            started = dt.datetime.now(dt.UTC)
            clock = time.perf_counter()
            try:
                # open operations never carry the credentials
                response = await self._client.send(
                    call.request,
                    auth=httpx.USE_CLIENT_DEFAULT if call.secured else None,
                    stream=True,
                )
            except asyncio.CancelledError:
                self._notify(call, None, clock, started, attempt, cancelled=True)
                raise
            except httpx.TransportError as exc:
                last_error = call.error(
                    ClosedByDesk
                    if self._closed
                    else ApiTimeoutError
                    if isinstance(exc, httpx.TimeoutException)
                    else ApiConnectionError,
                    self.failure(exc),
                )
                self._notify(call, None, clock, started, attempt, last_error)
                if lasting(exc) or self._closed:
                    raise last_error from None
                continue
            self._notify(call, response.status_code, clock, started, attempt)
            self._read_server_time(response)
            try:
                decoder = Decoder.for_response(response, call)
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
            last_error = status_error(response, body, call)
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

    def where(self) -> str:
        return self.base_url

    def failure(self, exc: httpx.TransportError) -> str:
        if self._closed:
            return self.stopped()
        described = describe_transport_error(exc)
        if isinstance(exc, httpx.TimeoutException):
            return f"No answer from {self.where()} in time: {described}"
        if isinstance(exc, _REACHED):  # "Cannot reach" misled: the server was reached
            return f"The exchange with {self.where()} failed: {described}"
        return f"Cannot reach {self.where()}: {described}"

    def stopped(self) -> str:
        """Why a call that may have changed something failed when the desk closed its
        connection under it."""
        return (
            f"The desk closed its connection to {self.where()} (signed in anew) before the "
            "answer came: whether it was carried out is not known"
        )

    def _notify(
        self,
        call: Call,
        status: int | None,
        clock: float,
        started: dt.datetime,
        attempt: int,
        error: ApiError | None = None,
        *,
        cancelled: bool = False,
    ) -> None:
        exchange = Exchange(
            started=started,
            method=call.method,
            # the whole path on the server: /orders/ under a base URL of /shop is /shop/orders/
            path=redact(self._base_path + call.path),
            status=status,
            request_id=call.request_id,
            latency_ms=round((time.perf_counter() - clock) * 1000, 1),
            attempt=attempt,
            error=None if error is None else redact(str(error)),
            cancelled=cancelled,
        )
        log.info(
            "%s %s -> %s x-request-id=%s %.1f ms attempt %d",
            call.method,
            exchange.path,
            status if status is not None else ("cancelled" if cancelled else exchange.error),
            call.request_id,
            exchange.latency_ms,
            attempt,
        )
        for listener in self._listeners:
            listener(exchange)


class AnswerStream:
    """A 2xx answer read in decoded chunks; close it (or leave its ``chunks`` loop) to close
    the connection."""

    def __init__(
        self,
        transport: Transport,
        response: httpx.Response,
        decoder: Decoder,
        call: Call,
        reader: asyncio.Task[Any] | None = None,
    ) -> None:
        self._transport = transport
        self._response = response
        self._decoder = decoder
        self.call = call
        self._reader = reader  # the task that asked for it: making a call until it is closed

    @property
    def request_id(self) -> str:
        return self.call.request_id

    def error(self, kind: type[ApiError], message: str) -> ApiError:
        return self.call.error(kind, message)

    async def chunks(self) -> AsyncIterator[bytes]:
        bounds = self._transport.bounds
        loop = asyncio.get_running_loop()
        raw = raw_pieces(self._response)
        deadline = AnswerDeadline(loop, loop.time() + bounds.stream_total)
        try:
            while True:
                # the task reading is in the call too
                reading = self._transport._calling(self.call.method)
                try:
                    piece = await deadline.within(lambda: anext(raw, None))
                except TimeoutError:
                    raise self.call.error(
                        ApiTimeoutError,
                        f"The answer from {self._transport.where()} did not end within "
                        f"{bounds.stream_total:g} s",
                    ) from None
                except httpx.TimeoutException:
                    raise self.call.error(
                        ApiTimeoutError,
                        f"The answer from {self._transport.where()} stopped: nothing came "
                        f"for {bounds.step_timeout:g} s",
                    ) from None
                except httpx.TransportError as exc:  # the server was reached: it broke off
                    raise self.call.error(
                        ApiConnectionError,
                        f"The answer from {self._transport.where()} broke off: "
                        f"{describe_transport_error(exc)}",
                    ) from None
                finally:
                    self._transport._called(reading)
                if piece is None:
                    break
                for decoded in self._decoder.feed(piece):
                    yield decoded
            tail = self._decoder.flush()
            if tail:
                yield tail
        finally:
            deadline.close()
            await self.aclose()

    async def aclose(self) -> None:
        reader, self._reader = self._reader, None
        self._transport._called(reader)  # the call it is part of ends
        await self._response.aclose()
