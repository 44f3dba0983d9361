"""Refusals the sandbox answers with the contract's error body."""

from __future__ import annotations

import json
import uuid

from app.core.redaction import redact

TITLES = {401: "Unauthorized", 408: "Request timeout", 500: "Internal error"}
MESSAGES = {
    401: "Authentication required: send the user and password with HTTP Basic",
    408: "The request was not executed in time",
    500: "The service failed to process the request",
}


class Refusal(Exception):
    """A request the sandbox refuses; becomes ``{"failure_message", "detail": {...}}``."""

    def __init__(
        self,
        message: str,
        title: str = "Invalid request",
        status: int = 400,
        *,
        retry_after: int | None = None,  # seconds, said in Retry-After (a 503)
    ) -> None:
        super().__init__(message)
        self.message = message
        self.title = title
        self.status = status
        self.retry_after = retry_after


def not_found(what: str) -> Refusal:
    # The contract declares no 404 for operations: unknown resources are a 400.
    return Refusal(f"{what} not found", title="Not found")


def not_allowed(message: str) -> Refusal:
    return Refusal(message, title="Operation not allowed")


def room(held: int, most: int, what: str) -> None:
    """Refuse to store one more when ``most`` are held: the sandbox's memory is bounded."""
    if held >= most:
        raise not_allowed(f"The sandbox holds its most {what} ({most:,}): reset it to start over")


def error_body(message: str, title: str) -> bytes:
    """The contract's error body, with a fresh error_id each time. A message that quotes what
    was sent never carries a card number, nor a lone surrogate (shown as its escape)."""
    message = redact(message.encode("utf-8", "backslashreplace").decode("utf-8"))
    body = {"failure_message": message, "detail": {"error_id": str(uuid.uuid4()), "title": title}}
    # ASCII only: a message that quotes hostile input can always be encoded
    return json.dumps(body).encode()


def status_body(status: int) -> bytes:
    """The error body of a status the sandbox answers without a reason of its own."""
    return error_body(MESSAGES[status], TITLES[status])
