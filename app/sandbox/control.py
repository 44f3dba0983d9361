"""The sandbox's own control calls, under /_sandbox (documented in the README): the fault
switch, the journal of requests, reset, and the clock. Their bodies are checked like any
other: a bad control call is a 400 and changes nothing."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from app.sandbox import webhooks
from app.sandbox.body import read_body
from app.sandbox.errors import Refusal, status_body
from app.sandbox.faults import Fault
from app.sandbox.http import SandboxState, encode, json_response, refusal_response

log = logging.getLogger("partner_desk.sandbox")

MAX_FAULT_COUNT = 1000
MAX_PATH = 200  # path, path_contains, method
MAX_DELAY_MS = 30_000
MAX_ADVANCE = dt.timedelta(days=3660)
LATEST = dt.datetime(2999, 12, 31, tzinfo=dt.UTC)  # the clock goes no further (decided)


def _state(request: Request) -> SandboxState:
    state: SandboxState = request.app.state.sandbox
    return state


def _object(body: Any, allowed: set[str], *, required: bool = True) -> dict[str, Any]:
    if body is None and not required:
        return {}
    if not isinstance(body, dict):
        raise Refusal("The body must be a JSON object")
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise Refusal(
            f"{unknown[0]}: is not a known property (known: {', '.join(sorted(allowed))})"
        )
    return body


def _integer(body: dict[str, Any], name: str, default: int, low: int, high: int) -> int:
    value = body.get(name, default)
    if type(value) is not int or not low <= value <= high:
        raise Refusal(f"{name}: must be a whole number from {low} to {high}")
    return value


def _controlled(handler: Callable[[Request, Any], Response]) -> Callable[[Request], Any]:
    async def serve(request: Request) -> Response:
        try:
            body, _ = await read_body(request, "optional")
            return handler(request, body)
        except Refusal as refusal:
            return refusal_response(refusal)
        except Exception:
            log.exception("sandbox control call failed")
            return json_response(status_body(500), 500)

    return serve


def set_faults(request: Request, body: Any) -> Response:
    """{"status": 200..599, "count": N, "mode": "before"|"after"|"delay", "delay_ms": N,
    "method": "GET"…, "path": glob, "path_contains": text, "body": object|text}: the next N
    calls whose method and path match answer that status with that body (the service's error
    body when none is given), delay_ms late; or (delay) are served as usual, delay_ms late.
    Count 0 clears the fault of that mode, method and path."""
    faults = _state(request).faults
    if request.method == "GET":  # those still to come, with how many calls each has left
        return json_response(encode({"faults": [f.view() for f in faults.active]}))
    if request.method == "DELETE":
        faults.active.clear()
        return json_response(encode({"faults": []}))
    spec = _object(
        body, {"status", "count", "mode", "path_contains", "path", "method", "body", "delay_ms"}
    )
    status = spec.get("status", 408)
    if type(status) is not int or not 200 <= status <= 599:  # 408.0 is no status
        raise Refusal("status: must be a whole number from 200 to 599")
    count = _integer(spec, "count", 1, 0, MAX_FAULT_COUNT)
    mode = spec.get("mode", "before")
    if mode not in ("before", "after", "delay"):
        raise Refusal("mode: must be before, after or delay")
    delay_ms = _integer(spec, "delay_ms", 0, 0, MAX_DELAY_MS)
    if mode == "delay" and not delay_ms:
        raise Refusal(f"delay_ms: from 1 to {MAX_DELAY_MS} with mode delay")
    path_contains = _text(spec, "path_contains")
    path = _text(spec, "path")
    method = _text(spec, "method")
    if method is not None and not (method.isascii() and method.isalpha()):
        raise Refusal("method: an HTTP method, such as GET or POST")
    answer = spec.get("body")
    if answer is not None and not isinstance(answer, dict | list | str):
        raise Refusal("body: a JSON object or array (sent as JSON), or text (sent as it is)")
    sent = answer.encode("utf-8") if isinstance(answer, str) else None
    if isinstance(answer, dict | list):
        sent = encode(answer)
    fault = Fault(
        status,
        count,
        mode,
        path_contains,
        delay_ms,
        method=method.upper() if method else None,
        path=path,
        body=sent,
    )
    faults.set(fault)
    return json_response(encode({"faults": [f.view() for f in faults.active]}))


def _text(spec: dict[str, Any], name: str) -> str | None:
    value = spec.get(name)
    if value is not None and (not isinstance(value, str) or not 1 <= len(value) <= MAX_PATH):
        raise Refusal(f"{name}: must be text of 1 to {MAX_PATH} characters")
    return value


def journal(request: Request, body: Any) -> Response:
    state = _state(request)
    if request.method == "DELETE":
        state.journal.clear()
    return json_response(encode(list(state.journal)))


def clock(request: Request, body: Any) -> Response:
    """GET: the sandbox's time. POST {"advance_seconds": N} or {"advance_days": N}: move it
    forward and run everything that fell due before answering."""
    state = _state(request)
    ran = 0
    if request.method == "POST":
        spec = _object(body, {"advance_seconds", "advance_days"})
        if len(spec) != 1:
            raise Refusal("Send one of advance_seconds or advance_days")
        if "advance_days" in spec:
            delta = dt.timedelta(days=_integer(spec, "advance_days", 0, 0, MAX_ADVANCE.days))
        else:
            seconds = spec["advance_seconds"]
            top = int(MAX_ADVANCE.total_seconds())
            if isinstance(seconds, bool) or not isinstance(seconds, int | Decimal):
                raise Refusal(f"advance_seconds: must be a number from 0 to {top}")
            if not 0 <= seconds <= top:
                raise Refusal(f"advance_seconds: must be a number from 0 to {top}")
            delta = dt.timedelta(seconds=float(seconds))
        if state.clock.now() + delta > LATEST:
            raise Refusal(
                f"The clock would pass {LATEST:%Y-%m-%d}: reset the sandbox to start over"
            )
        state.clock.advance(delta)
        ran = state.scheduler.run_due()
    return json_response(
        encode(
            {
                "now": state.clock.now().isoformat(timespec="milliseconds"),
                "frozen": state.clock.frozen,
                "ran": ran,
                "pending": len(state.scheduler),
            }
        )
    )


def reset(request: Request, body: Any) -> Response:
    """Reseed the sandbox: a restart without restarting."""
    _object(body, set(), required=False)
    request.app.state.host.reset()
    return json_response(encode({"result": "reset"}))


def routes() -> list[BaseRoute]:
    return [
        Route("/_sandbox/faults", _controlled(set_faults), methods=["GET", "POST", "DELETE"]),
        Route("/_sandbox/requests", _controlled(journal), methods=["GET", "DELETE"]),
        Route("/_sandbox/clock", _controlled(clock), methods=["GET", "POST"]),
        Route("/_sandbox/reset", _controlled(reset), methods=["POST"]),
        *webhooks.routes(_controlled),
    ]
