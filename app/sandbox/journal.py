"""The journal of requests (GET /_sandbox/requests): a line per request, never a body,
nothing shaped like a card number, and not the tokens of the cardholder's pages (the journal
is read without credentials). The oldest lines go first past JOURNAL_ENTRIES."""

from __future__ import annotations

import datetime as dt
import json
import re
import time
from collections import deque
from typing import Any

from starlette.requests import Request

from app.core.redaction import redact, redact_url_part

JOURNAL_ENTRIES = 2000
_PAGE_TOKEN = re.compile(r"^(/gateway/(?:checkout|3ds)/[^/]+/)[^/]+")


class Journal(deque[dict[str, Any]]):
    def __init__(self, entries: int = JOURNAL_ENTRIES) -> None:
        super().__init__(maxlen=entries)

    def record(
        self,
        now: dt.datetime,
        request: Request,
        status: int,
        started: float,
        error: bytes | None = None,
    ) -> None:
        """One line: the request answered ``status`` at ``now`` (the sandbox's clock), in the
        time since ``started`` (perf_counter); an error answer's body with it (``body``: its
        JSON, or its text)."""
        request_id = request.headers.get("x-request-id")
        partner_code = request.headers.get("x-partner-code")
        line: dict[str, Any] = {}
        if error is not None:
            line["body"] = _error_body(error)
        self.append(
            line
            | {
                "time": now.isoformat(timespec="milliseconds"),
                "method": request.method,
                "path": _PAGE_TOKEN.sub(r"\1***", redact_url_part(request.url.path)),
                "query": redact_url_part(request.url.query),
                "status": status,
                "request_id": None if request_id is None else redact(request_id),
                "partner_code": None if partner_code is None else redact(partner_code),
                "ms": round((time.perf_counter() - started) * 1000, 1),
            }
        )


ERROR_BODY_CHARS = 4096  # an error body longer than this is kept cut (a fault's, say)


def _error_body(raw: bytes) -> Any:
    """An error answer's body as the journal keeps it: its JSON, or its text (cut), never a
    card number (the journal is read without credentials)."""
    text = redact(raw[: ERROR_BODY_CHARS * 4].decode("utf-8", "replace"))
    try:
        return json.loads(text)
    except ValueError:
        return text[:ERROR_BODY_CHARS]
