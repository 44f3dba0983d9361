"""A request's body, bounded in size and in time, for any server of the project."""

from __future__ import annotations

import asyncio

from starlette.requests import ClientDisconnect, Request


class BodyRefused(Exception):
    """The body was not read: the reason, in words a sender can act on."""


async def read_capped(request: Request, cap: int, seconds: float) -> bytes:
    """The request's body, refused past ``cap`` bytes without reading the rest, and when it
    does not arrive whole within ``seconds`` (a slow or stalled body is not waited for)."""
    too_large = f"The body is larger than {cap // 1024:,} KiB"
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > cap:
        raise BodyRefused(too_large)
    parts: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(seconds):
            async for chunk in request.stream():
                size += len(chunk)
                if size > cap:
                    raise BodyRefused(too_large)
                parts.append(chunk)
    except ClientDisconnect:
        raise BodyRefused("The body was cut off") from None
    except TimeoutError:
        raise BodyRefused(f"The body did not arrive within {seconds:g} s") from None
    raw = b"".join(parts)
    request._body = raw  # so request.form() parses what was read here
    return raw
