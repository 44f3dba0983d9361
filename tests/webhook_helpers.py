"""Deliveries as the contract writes them, for the receiver's tests and probes."""

from __future__ import annotations

import datetime as dt
import json
import secrets
import time
from collections.abc import Callable
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from app.core import webhooks as wh
from app.core.ids import uuid7
from app.webhooks.signature import sign

PRIVATE = rsa.generate_private_key(public_exponent=65537, key_size=2048)
PUBLIC_PEM = PRIVATE.public_key().public_bytes(
    serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
)


def event_body(
    *,
    event_type: str = "private_reg.status_changed",
    status: str = "done",
    data_id: str | None = "EXT-1",
    moment: dt.datetime | None = None,
    **changes: Any,
) -> dict[str, Any]:
    moment = moment or dt.datetime.now(dt.UTC)
    resource, _, action = event_type.partition(".")
    data: dict[str, Any] = {"status": status}
    if data_id is not None:
        data["id"] = data_id
    body = {
        "event_id": str(uuid7(int(moment.timestamp() * 1000))),
        "event_type": event_type,
        "resource": resource,
        "action": action,
        "occurred_at": wh.occurred_at(moment),
        "data": data,
    }
    body.update(changes)
    return body


def delivery(
    body: dict[str, Any] | bytes, *, signed: bool = True, **header_changes: str | None
) -> tuple[dict[str, str], bytes]:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    try:
        parsed = body if isinstance(body, dict) else json.loads(raw)
    except (ValueError, RecursionError):  # a body made to be refused
        parsed = {}
    if not isinstance(parsed, dict):
        parsed = {}
    headers = {
        "Content-Type": wh.CONTENT_TYPE,
        "User-Agent": wh.USER_AGENT,
        "X-Webhook-Event-Type": str(parsed.get("event_type", "")),
        "X-Webhook-Message-Id": str(parsed.get("event_id", "")),
        "X-Webhook-Event-Version": "1",
        "X-Webhook-Timestamp": wh.header_timestamp(dt.datetime.now(dt.UTC)),
        "Nonce": str(secrets.randbits(63)),
    }
    if signed:
        headers["X-Webhook-Signature"] = sign(PRIVATE, raw)
    for name, value in header_changes.items():
        header = name.replace("_", "-")
        headers = {k: v for k, v in headers.items() if k.lower() != header.lower()}
        if value is not None:
            headers[header] = value
    return headers, raw


def eventually(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait for a state that, once reached, stays (an event stored, a delivery settled)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.02)
