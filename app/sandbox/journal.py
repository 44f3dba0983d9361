"""The journal of requests (GET /_sandbox/requests): a line per request, never a body,
nothing shaped like a card number, and not the tokens of the cardholder's pages (the journal
is read without credentials). The oldest lines go first past JOURNAL_ENTRIES."""

from __future__ import annotations

import datetime as dt
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

    def record(self, now: dt.datetime, request: Request, status: int, started: float) -> None:
        """One line: the request answered ``status`` at ``now`` (the sandbox's clock), in the
        time since ``started`` (perf_counter)."""
        request_id = request.headers.get("x-request-id")
        partner_code = request.headers.get("x-partner-code")
        self.append(
            {
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
