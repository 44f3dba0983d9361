"""Failures in words: why an exchange failed (a refused connection, a TLS problem and what it
most likely means), and the typed error for a non-2xx answer with its error body."""

from __future__ import annotations

import json
import re
import ssl
from collections.abc import Iterator

import httpx
from pydantic import ValidationError

from app.api.errors import ApiError, error_for_status
from app.api.http.exchange import Call
from app.api.models import ErrorBody, ErrorDetail
from app.core.text import mended, printable

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


# failures a retry meets again, whatever the wait: the request itself cannot be sent, or the
# server's TLS is refused for what it is (its certificate, or no TLS there at all)
_LASTING_KINDS = (httpx.UnsupportedProtocol, httpx.LocalProtocolError)
_LASTING_TLS_REASONS = frozenset(
    {"WRONG_VERSION_NUMBER", "UNSUPPORTED_PROTOCOL", "TLSV1_ALERT_PROTOCOL_VERSION"}
)


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """The exception, then its causes and contexts, each once."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def lasting(exc: httpx.TransportError) -> bool:
    """Whether trying again would fail the same way: an untrusted certificate (retried, it
    only made the person wait a second and a half for the same words), a server that does
    not answer in TLS, a request that cannot be sent. A refused or broken connection, or a
    handshake cut short, may not last: those are tried again."""
    if isinstance(exc, _LASTING_KINDS):
        return True
    return any(
        isinstance(cause, ssl.SSLCertVerificationError)
        or (isinstance(cause, ssl.SSLError) and str(cause.reason) in _LASTING_TLS_REASONS)
        for cause in _chain(exc)
    )


def describe_transport_error(exc: BaseException) -> str:
    """The reason for a failed exchange, never empty: the deepest message in the exception's
    chain, or what its kind means, and what a TLS failure most likely means."""
    reason = hint = ""
    for current in _chain(exc):
        text = str(current).strip()
        # anyio's cancel scope tells how it stopped the wait, not why: the kind says that
        if text and not text.startswith("Cancelled via cancel scope"):
            reason = text
        if isinstance(current, ssl.SSLError):
            hint = _TLS_HINTS.get(str(current.reason), hint)
    meaning = next(
        (text for kind, text in _DESCRIPTIONS.items() if isinstance(exc, kind)),
        type(exc).__name__,
    )
    described = meaning if not reason or reason == meaning else f"{meaning} ({reason})"
    return f"{described}: {hint}" if hint else described


def status_error(response: httpx.Response, body: bytes, call: Call) -> ApiError:
    """The typed error for a non-2xx answer, with the error body when there is one."""
    kind = error_for_status(response.status_code)
    failure_message = error_id = title = None
    parsed = _error_body(body)
    if parsed is not None:
        failure_message = parsed.failure_message
        error_id = parsed.detail.error_id
        title = parsed.detail.title
    if failure_message:
        summary = failure_message
    else:
        # no error body: the status, where a redirect pointed, and the id support can look up
        summary = f"HTTP {response.status_code} {printable(response.reason_phrase)}".strip()
        location = response.extensions.get(_LOCATION)
        if location:
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


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def _error_body(body: bytes) -> ErrorBody | None:
    """The contract's error body, if the answer holds one (not a proxy's HTML page, an empty
    or a cut body). A lone surrogate, which JSON can write ("\\ud800") but no text holds, is
    read as U+FFFD: the strict reader refuses the whole body for one, and the server's message
    was lost."""
    try:
        return ErrorBody.model_validate_json(body)
    except ValidationError:
        if not _SURROGATE_ESCAPE.search(body):
            return None
    try:  # the body is bounded (Bounds.error_bytes)
        parsed = ErrorBody.model_validate(json.loads(body))
    except (ValueError, RecursionError):  # not JSON, nested too deeply, or not the error body
        return None
    detail = parsed.detail
    return ErrorBody(
        failure_message=mended(parsed.failure_message),
        detail=ErrorDetail(error_id=mended(detail.error_id), title=mended(detail.title)),
    )


_LOCATION = "partner_desk.location"  # a redirect's address, in the response's extensions


async def set_aside_redirect(response: httpx.Response) -> None:
    """A redirect's address set aside, out of the headers, to be quoted: httpx reads it to
    work out the next request whether it follows it or not (the desk never does), and one
    that is no address (a control character, a broken international name) raised as a
    connection that broke — tried again and said as a server not reached — or as no error
    the desk knows, with a traceback."""
    if response.is_redirect:
        response.extensions[_LOCATION] = response.headers["location"]
        del response.headers["location"]
