"""What one call is and what it leaves: the request every try sends, the record of each try
for the request log, and a 2xx answer."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

import httpx

from app.api.errors import ApiError


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
    cancelled: bool = False  # given up by the desk (a window closed, a newer call) unanswered


ExchangeListener = Callable[[Exchange], None]


@dataclass(frozen=True)
class Answer:
    """A 2xx answer, read whole and decoded."""

    status: int
    content: bytes
    request_id: str
    method: str
    path: str


@dataclass(frozen=True)
class Call:
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
