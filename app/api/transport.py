"""The one HTTP transport of a connection profile.

Everything a call needs on the wire happens here: base URL, HTTP Basic credentials,
``x-partner-code`` on secured calls, ``x-request-id`` on every call (the action's idempotency
key on create and update, the same on every retry), retries with backoff on 408 and on
connection errors, timeouts, and the mapping of failures to typed errors.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import logging
import ssl
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from app.api.errors import (
    ApiConnectionError,
    ApiError,
    ApiTimeoutError,
    InvalidInput,
    error_for_status,
)
from app.core.limits import MAX_PARTNER_CODE, MAX_REQUEST_ID

log = logging.getLogger("partner_desk.api")


def new_request_id() -> str:
    """A fresh x-request-id: one per user action, kept with its form for every retry."""
    return uuid.uuid4().hex


@dataclass(frozen=True)
class Profile:
    """Where and as whom to call. The password comes from the keyring, never from a file."""

    base_url: str
    user: str
    password: str = field(repr=False)
    partner_code: str
    # True, or the path of a CA bundle; never False (TLS verification stays on)
    verify: bool | str = True
    timeout: float = 15.0


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


class Transport:
    def __init__(
        self,
        profile: Profile,
        *,
        retry: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        if profile.verify is False:
            raise ValueError("TLS verification cannot be turned off")
        if not 0 < len(profile.partner_code) <= MAX_PARTNER_CODE:
            raise InvalidInput("partner_code", f"1 to {MAX_PARTNER_CODE} characters")
        self.profile = profile
        self.retry = retry or RetryPolicy()
        self._listeners: list[ExchangeListener] = []
        self.last_request_id: str | None = None
        self._client = httpx.AsyncClient(
            base_url=api_root(profile.base_url),
            auth=httpx.BasicAuth(profile.user, profile.password),
            verify=_tls_context(profile.verify),
            timeout=httpx.Timeout(profile.timeout, connect=min(profile.timeout, 5.0)),
            transport=transport,
            follow_redirects=False,
            headers={"Accept": "application/json", "User-Agent": "PartnerDesk/0.1"},
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
        stream: bool = False,
    ) -> httpx.Response:
        """Send, retrying on 408 and connection errors with the same x-request-id.

        Returns a 2xx response; raises an ApiError subclass for anything else. With ``stream``
        the body of a 2xx answer is not read yet: the caller reads it and must close it.
        """
        request_id = request_id or new_request_id()
        if not 0 < len(request_id) <= MAX_REQUEST_ID:
            raise InvalidInput("x-request-id", f"1 to {MAX_REQUEST_ID} characters")
        headers = {"x-request-id": request_id}
        if secured:
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
        last_error: ApiError | None = None
        for attempt in range(1, self.retry.attempts + 1):
            if attempt > 1:
                await asyncio.sleep(self.retry.delay(attempt - 2))
            started = dt.datetime.now(dt.UTC)
            clock = time.perf_counter()
            try:
                # open operations (IBAN check, healthcheck) never carry the credentials
                response = await self._client.send(
                    request, auth=httpx.USE_CLIENT_DEFAULT if secured else None, stream=stream
                )
            except httpx.TransportError as exc:
                last_error = transport_error(exc, self.profile.base_url)
                last_error.request_id, last_error.method, last_error.path = request_id, method, path
                self._notify(started, method, path, None, request_id, clock, attempt, last_error)
                continue
            self._notify(started, method, path, response.status_code, request_id, clock, attempt)
            if response.is_success:
                if not stream:
                    await response.aread()
                return response
            try:
                await response.aread()
            except httpx.TransportError:
                pass  # the error body is a courtesy; the status says enough
            finally:
                await response.aclose()
            last_error = _status_error(response, method, path, request_id)
            if response.status_code != 408:
                raise last_error
        assert last_error is not None
        raise last_error

    def _notify(
        self,
        started: dt.datetime,
        method: str,
        path: str,
        status: int | None,
        request_id: str,
        clock: float,
        attempt: int,
        error: ApiError | None = None,
    ) -> None:
        exchange = Exchange(
            started=started,
            method=method,
            path=path,
            status=status,
            request_id=request_id,
            latency_ms=round((time.perf_counter() - clock) * 1000, 1),
            attempt=attempt,
            error=None if error is None else str(error),
        )
        log.info(
            "%s %s -> %s x-request-id=%s %.1f ms attempt %d",
            method,
            path,
            status if status is not None else error,
            request_id,
            exchange.latency_ms,
            attempt,
        )
        for listener in self._listeners:
            listener(exchange)


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


def transport_error(exc: httpx.TransportError, base_url: str) -> ApiConnectionError:
    """The typed error for no (complete) answer."""
    if isinstance(exc, httpx.TimeoutException):
        return ApiTimeoutError(f"No answer from {base_url} in time ({type(exc).__name__})")
    return ApiConnectionError(f"Cannot reach {base_url}: {exc or type(exc).__name__}")


def _status_error(response: httpx.Response, method: str, path: str, request_id: str) -> ApiError:
    """The typed error for a non-2xx answer, with the error body when there is one."""
    kind = error_for_status(response.status_code)
    failure_message = error_id = title = None
    body = _json_or_none(response)
    detail = body.get("detail") if isinstance(body, dict) else None
    if isinstance(body, dict) and isinstance(detail, dict):
        failure_message = _text_or_none(body.get("failure_message"))
        error_id = _text_or_none(detail.get("error_id"))
        title = _text_or_none(detail.get("title"))
    summary = failure_message or f"HTTP {response.status_code} {response.reason_phrase}".strip()
    return kind(
        summary,
        status=response.status_code,
        failure_message=failure_message,
        error_id=error_id,
        title=title,
        request_id=request_id,
        method=method,
        path=path,
    )


def _json_or_none(response: httpx.Response) -> object:
    """The parsed body, or None for a proxy's HTML page, an empty or an unread body."""
    try:
        return json.loads(response.content)
    except (ValueError, httpx.ResponseNotRead):
        return None


def _text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None
