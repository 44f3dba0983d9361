"""One delivery checked as the contract writes it, before anything is stored: the signature
over the raw bytes first (when a key is configured), then the body — UTF-8 JSON, required
fields, sizes, formats — and the agreement of the headers with it."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric import rsa

from app.core import webhooks as wh
from app.core.text import LONE_SURROGATE
from app.serving import strict_json
from app.webhooks.signature import verify

#: the headers kept with an event (lower case), for the events window
KEPT_HEADERS = (
    "content-type",
    "user-agent",
    "x-webhook-event-type",
    "x-webhook-message-id",
    "x-webhook-event-version",
    "x-webhook-timestamp",
    "x-webhook-signature",
    "nonce",
)
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


class Rejected(Exception):
    """A delivery refused: ``status`` (400, or 401 for the signature) and the reason."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


@dataclass(frozen=True)
class Event:
    event_id: str
    event_type: str
    resource: str
    action: str
    occurred_at: str
    status: str | None
    data_id: str | None
    body: str
    headers: dict[str, str]
    signature_verified: bool
    known_type: bool
    received_at: str
    duplicates: int = 0

    def as_json(self) -> dict[str, Any]:
        return {
            "event_id": self.event_id,
            "event_type": self.event_type,
            "resource": self.resource,
            "action": self.action,
            "occurred_at": self.occurred_at,
            "status": self.status,
            "data_id": self.data_id,
            "signature_verified": self.signature_verified,
            "known_type": self.known_type,
            "duplicates": self.duplicates,
            "received_at": self.received_at,
            "headers": self.headers,
            "body": self.body,
        }


def _text(body: Mapping[str, Any], name: str, high: int, where: str = "") -> str:
    field = f"{where}{name}"
    if name not in body:
        raise Rejected(400, f"{field}: is required")
    value = body[name]
    if not isinstance(value, str):  # null among them: given, but not text
        raise Rejected(400, f"{field}: must be a string")
    if not value or len(value) > high:
        raise Rejected(400, f"{field}: must be 1 to {high} characters")
    if _CONTROL.search(value):
        raise Rejected(400, f"{field}: holds a control character")
    return value


def check(
    headers: Mapping[str, str], raw: bytes, key: rsa.RSAPublicKey | None, received: dt.datetime
) -> Event:
    """The delivery as an event, or Rejected. ``headers`` are looked up in lower case."""
    if len(raw) > wh.BODY_MAX:
        raise Rejected(400, f"The body is larger than {wh.BODY_MAX // 1024} KiB")
    signature = headers.get("x-webhook-signature")
    verified = False
    if key is not None:
        # the raw bytes, before any parsing: a signature proves the body as sent
        if not signature:
            raise Rejected(401, "X-Webhook-Signature: is required (a signing key is configured)")
        if not verify(key, raw, signature):
            raise Rejected(401, "X-Webhook-Signature: does not verify against the body")
        verified = True
    media = headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media != "application/json":
        raise Rejected(400, "Content-Type: must be application/json")
    try:
        text = raw.decode("utf-8")
        body = strict_json.loads(text, parse_float=_finite)
    except strict_json.NotStrictJson as exc:
        raise Rejected(400, f"The body is not JSON: {exc}") from None
    except RecursionError:
        raise Rejected(400, "The body is nested too deeply to be read") from None
    except ValueError as exc:
        if "digits" in str(exc):  # Python's own limit on an integer's length, in its words
            raise Rejected(400, "The body holds a number with too many digits") from None
        raise Rejected(400, f"The body is not UTF-8 JSON: {str(exc)[:120]}") from None
    if not isinstance(body, dict):
        raise Rejected(400, "The body must be a JSON object")
    if _SURROGATE_ESCAPE.search(text):  # UTF-8 holds none: only an escape can make one
        _check_text(body)
    event_id = _text(body, "event_id", 36)
    if not wh.UUID.fullmatch(event_id) or event_id[14] != "7" or event_id[19] not in "89ab":
        raise Rejected(400, "event_id: must be a UUID version 7 in lower-case hex")
    event_type = _text(body, "event_type", wh.TYPE_MAX)
    resource = _text(body, "resource", wh.TYPE_MAX)
    action = _text(body, "action", wh.TYPE_MAX)
    if event_type != f"{resource}.{action}":
        raise Rejected(400, "event_type: must be resource.action of the body")
    known = event_type in wh.KNOWN_TYPES
    if known and action != wh.ACTION:
        raise Rejected(400, f"action: must be {wh.ACTION}")
    occurred = _text(body, "occurred_at", 40)
    if not wh.OCCURRED_AT.fullmatch(occurred) or not _real_time(occurred[:-1]):
        raise Rejected(400, "occurred_at: must be UTC with three fractional digits and Z")
    data = body.get("data")
    if not isinstance(data, dict):
        raise Rejected(400, "data: is required (an object)")
    status = None
    if known or "status" in data:
        status = _text(data, "status", wh.TYPE_MAX, "data.")
        if known and status not in wh.STATUSES:
            raise Rejected(400, f"data.status: must be one of {', '.join(wh.STATUSES)}")
    data_id = _text(data, "id", wh.DATA_ID_MAX, "data.") if "id" in data else None
    _check_headers(headers, event_type, event_id)
    kept = {name: headers[name] for name in KEPT_HEADERS if name in headers}
    return Event(
        event_id=event_id,
        event_type=event_type,
        resource=resource,
        action=action,
        occurred_at=occurred,
        status=status,
        data_id=data_id,
        body=text,
        headers=kept,
        signature_verified=verified,
        known_type=known,
        received_at=wh.occurred_at(received),
    )


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise strict_json.NotStrictJson(f"{text[:40]} is too large a number")
    return value


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _check_text(value: Any, where: str = "body") -> None:
    """Every text valid Unicode (a lone surrogate, which JSON can escape, cannot be stored)."""
    pending = [(value, where)]
    while pending:
        item, at = pending.pop()
        if isinstance(item, str) and LONE_SURROGATE.search(item):
            raise Rejected(400, f"{at}: is not valid Unicode text (a lone surrogate)")
        if isinstance(item, dict):
            for key, child in item.items():
                if LONE_SURROGATE.search(key):
                    raise Rejected(400, f"{at}: a property name is not valid Unicode text")
                pending.append((child, f"{at}.{key}" if at != "body" else key))
        elif isinstance(item, list):
            pending.extend((child, f"{at}.{index}") for index, child in enumerate(item))


def _real_time(text: str) -> bool:
    try:
        dt.datetime.fromisoformat(text)
    except ValueError:
        return False
    return True


def _check_headers(headers: Mapping[str, str], event_type: str, event_id: str) -> None:
    if headers.get("x-webhook-event-type") != event_type:
        raise Rejected(400, "X-Webhook-Event-Type: must equal the body's event_type")
    if headers.get("x-webhook-message-id", "").lower() != event_id:
        raise Rejected(400, "X-Webhook-Message-Id: must equal the body's event_id")
    if headers.get("x-webhook-event-version", "").strip() != wh.EVENT_VERSION:
        raise Rejected(400, "X-Webhook-Event-Version: must be 1")
    stamp = headers.get("x-webhook-timestamp", "")
    if not wh.HEADER_TIMESTAMP.fullmatch(stamp) or not _real_time(stamp[:26]):
        raise Rejected(400, "X-Webhook-Timestamp: must have seven fractional digits, no zone")
    nonce = headers.get("nonce", "")
    if not (nonce.isascii() and nonce.isdigit() and len(nonce) <= 19 and int(nonce) < 2**63):
        raise Rejected(400, "Nonce: must be a 63-bit integer")
