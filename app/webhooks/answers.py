"""The receiver's answers: JSON, with their length; a refusal in the contract's error shape."""

from __future__ import annotations

import json
import uuid
from typing import Any

TITLES = {400: "Invalid delivery", 401: "Unauthorized", 503: "Store unavailable"}


class Answer:
    """One JSON answer: its status, its headers and its body's bytes."""

    __slots__ = ("body", "headers", "status")

    def __init__(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None):
        self.status = status
        self.body = json.dumps(body).encode()
        self.headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(self.body)).encode()),
            *((name.encode(), value.encode()) for name, value in (headers or {}).items()),
        ]


def refusal(status: int, message: str, headers: dict[str, str] | None = None) -> Answer:
    title = TITLES.get(status, "Error")
    body = {"failure_message": message, "detail": {"error_id": str(uuid.uuid4()), "title": title}}
    return Answer(status, body, headers)
