"""A request's body, bounded in size and in time, for any server of the project."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.requests import Request

Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]


class BodyRefused(Exception):
    """The body was not read: the reason, in words a sender can act on."""


class BodiesTooMany(BodyRefused):
    """Refused for the server already holding as much of bodies still arriving as it takes
    (`BodyBudget`), not for what the body is: sent again later, it is read."""


class BodyBudget:
    """What a server holds at once of bodies still arriving, past each one's first
    ``free`` bytes: senders who send most of a large body and then stall cannot make it
    hold a large body's worth for every connection it keeps (250 such uploads held 2.5 GB).
    The first bytes are free, so small bodies (most requests) are never refused for it."""

    def __init__(self, most: int, free: int = 64 * 1024) -> None:
        self.most = most
        self.free = free
        self.held = 0


def too_large(cap: int) -> str:
    return f"The body is larger than {cap // 1024:,} KiB"


def too_slow(seconds: float) -> str:
    return f"The body did not arrive within {seconds:g} s"


async def read_body(
    receive: Receive, declared: str, cap: int, seconds: float, budget: BodyBudget | None = None
) -> bytes:
    """The body of an ASGI request (``declared``: its Content-Length header, or ""), refused
    past ``cap`` bytes without reading the rest, when it does not arrive whole within
    ``seconds`` (a slow or stalled body is not waited for), and when it would take the
    ``budget`` past its most."""
    if declared.isdigit() and int(declared) > cap:
        raise BodyRefused(too_large(cap))
    parts: list[bytes] = []
    size = counted = 0
    try:
        async with asyncio.timeout(seconds):
            while True:
                message = await receive()
                if message["type"] != "http.request":  # the sender went away
                    raise BodyRefused("The body was cut off")
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > cap:
                    raise BodyRefused(too_large(cap))
                if budget is not None and size > budget.free:
                    more = size - budget.free - counted
                    if budget.held + more > budget.most:
                        raise BodiesTooMany(
                            "The server is receiving too many large bodies at once; send "
                            "it again later"
                        )
                    budget.held += more
                    counted += more
                parts.append(chunk)
                if not message.get("more_body", False):
                    break
    except TimeoutError:
        raise BodyRefused(too_slow(seconds)) from None
    finally:
        if budget is not None:
            budget.held -= counted  # whole or refused, it no longer arrives
    return b"".join(parts)


async def read_capped(
    request: Request, cap: int, seconds: float, budget: BodyBudget | None = None
) -> bytes:
    """A Starlette request's body, bounded as ``read_body`` bounds it."""
    declared = request.headers.get("content-length", "")
    raw = await read_body(request.receive, declared, cap, seconds, budget)
    request._body = raw  # so request.form() parses what was read here
    return raw
