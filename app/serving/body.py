"""A request's body, bounded in size and in time, for any server of the project."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.requests import Request

Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]


class BodyRefused(Exception):
    """The body was not read: the reason, in words a sender can act on."""


async def read_body(receive: Receive, declared: str, cap: int, seconds: float) -> bytes:
    """The body of an ASGI request (``declared``: its Content-Length header, or ""), refused
    past ``cap`` bytes without reading the rest, and when it does not arrive whole within
    ``seconds`` (a slow or stalled body is not waited for)."""
    too_large = f"The body is larger than {cap // 1024:,} KiB"
    if declared.isdigit() and int(declared) > cap:
        raise BodyRefused(too_large)
    parts: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(seconds):
            while True:
                message = await receive()
                if message["type"] != "http.request":  # the sender went away
                    raise BodyRefused("The body was cut off")
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > cap:
                    raise BodyRefused(too_large)
                parts.append(chunk)
                if not message.get("more_body", False):
                    break
    except TimeoutError:
        raise BodyRefused(f"The body did not arrive within {seconds:g} s") from None
    return b"".join(parts)


async def read_capped(request: Request, cap: int, seconds: float) -> bytes:
    """A Starlette request's body, bounded as ``read_body`` bounds it."""
    declared = request.headers.get("content-length", "")
    raw = await read_body(request.receive, declared, cap, seconds)
    request._body = raw  # so request.form() parses what was read here
    return raw
