"""Typed errors of the service layer: one root, a subclass per meaning."""

from __future__ import annotations

from collections.abc import Mapping


class ApiError(Exception):
    """A call that did not succeed, or input refused before anything was sent. Carries what the
    error table needs to show it. Every catch in the desk catches this root."""

    status: int | None = None

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        failure_message: str | None = None,
        error_id: str | None = None,
        title: str | None = None,
        request_id: str | None = None,
        method: str | None = None,
        path: str | None = None,
    ) -> None:
        super().__init__(message)
        if status is not None:
            self.status = status
        self.failure_message = failure_message
        self.error_id = error_id
        self.title = title
        self.request_id = request_id
        self.method = method
        self.path = path

    @property
    def has_error_body(self) -> bool:
        """Whether the service answered with the contract's error body."""
        return self.failure_message is not None and self.error_id is not None

    @property
    def outcome_unknown(self) -> bool:
        """Whether the service may have carried the request out (no answer, a timeout, a 5xx, an
        unreadable answer): only a replay with the same x-request-id can tell."""
        return True


class InvalidInput(ApiError):
    """Input refused before anything is sent; ``field`` names what is wrong. ``problems``
    holds every field's problem when several are wrong at once (the first is ``field``).
    ``label``: the field as the message names it, when that is not ``field`` itself (a
    request's path in the user's words: "Client: country" for client.country)."""

    def __init__(
        self,
        field: str,
        problem: str,
        problems: Mapping[str, str] | None = None,
        *,
        label: str | None = None,
    ) -> None:
        named = label or field
        super().__init__(f"{named}: {problem}" if named else problem)
        self.field = field
        self.problem = problem
        self.problems: dict[str, str] = dict(problems or {field: problem})

    @property
    def outcome_unknown(self) -> bool:
        return False  # nothing was sent


class BadRequest(ApiError):
    status = 400

    @property
    def outcome_unknown(self) -> bool:
        return False  # refused: nothing was carried out


class Unauthorized(ApiError):
    status = 401

    @property
    def outcome_unknown(self) -> bool:
        return False  # refused before anything was carried out


class RequestTimeout(ApiError):
    """408 after every automatic retry with the same x-request-id: try again later."""

    status = 408


class ServerError(ApiError):
    """Any 5xx."""


class UnexpectedStatus(ApiError):
    """A status the contract does not declare (403, 404, 429, a proxy's 502 page, ...)."""


class ApiConnectionError(ApiError):
    """No answer: refused, reset or dropped connection, TLS failure."""


class ApiTimeoutError(ApiConnectionError):
    """No (complete) answer in time."""


class ClosedByDesk(ApiConnectionError):
    """No answer: the desk closed the connection under a call that may have changed
    something (a sign-in anew), so its outcome is not known."""


class ResponseValidationError(ApiError):
    """An answer that does not fit the contract (not JSON, missing or malformed fields, too
    large, undecodable)."""


def error_for_status(status: int) -> type[ApiError]:
    if status == 400:
        return BadRequest
    if status == 401:
        return Unauthorized
    if status == 408:
        return RequestTimeout
    if 500 <= status <= 599:
        return ServerError
    return UnexpectedStatus
