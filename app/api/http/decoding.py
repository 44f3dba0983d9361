"""An answer's content encoding (identity, gzip, deflate), decoded in bounded steps, so that a
small gzip bomb cannot take the memory."""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx

from app.api.errors import ApiConnectionError, ApiError, ApiTimeoutError, ResponseValidationError
from app.api.http.exchange import Call
from app.api.http.failures import describe_transport_error


class Decoder:
    """The answer's content encoding (identity, gzip, deflate), decoded in bounded steps: no
    step gives more than ``STEP`` bytes, and past ``limit`` bytes in all it stops."""

    STEP = 256 * 1024

    def __init__(self, encoding: str, call: Call, limit: int | None = None) -> None:
        self._call = call
        self._limit = limit
        self._produced = 0
        self._encoding = encoding
        self._zlib: Any = None
        self._started = False
        if encoding == "gzip":
            self._zlib = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._zlib = zlib.decompressobj()

    @classmethod
    def for_response(cls, response: httpx.Response, call: Call) -> Decoder:
        if response.is_stream_consumed:
            return cls("identity", call)  # built whole (a test's mock): httpx decoded it
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if encoding not in ("identity", "", "gzip", "deflate"):
            raise call.error(
                ResponseValidationError,
                f"The answer to {call.method} {call.path} uses the content encoding "
                f"{encoding[:40]!r}, which Partner Desk does not read",
            )
        return cls(encoding or "identity", call)

    def feed(self, data: bytes) -> Iterator[bytes]:
        """The decoded bytes of one piece of the answer, in steps."""
        if self._zlib is None:  # in steps too: an answer handed over whole is no exception
            for start in range(0, len(data), self.STEP):
                yield self._counted(data[start : start + self.STEP])
            return
        pending = data
        while True:
            try:
                out = self._zlib.decompress(pending, self.STEP)
            except zlib.error:
                if self._encoding == "deflate" and not self._started:
                    # some servers send raw deflate without the zlib wrapper
                    self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)
                    self._started = True
                    continue
                raise self._broken() from None
            self._started = True
            pending = self._zlib.unconsumed_tail
            if out:
                yield self._counted(out)
            if not pending and len(out) < self.STEP:
                return

    def flush(self) -> bytes:
        if self._zlib is None:
            return b""
        try:
            out: bytes = self._zlib.flush(self.STEP)
        except zlib.error:
            raise self._broken() from None
        if not self._zlib.eof:
            raise self._broken()
        return self._counted(out)

    def _counted(self, out: bytes) -> bytes:
        self._produced += len(out)
        if self._limit is not None and self._produced > self._limit:
            raise TooLarge
        return out

    def _broken(self) -> ApiError:
        return self._call.error(
            ResponseValidationError,
            f"The answer to {self._call.method} {self._call.path} could not be decoded: "
            f"broken {self._encoding} data",
        )

    async def read_all(
        self, response: httpx.Response, limit: int, call: Call, *, cut: bool = False
    ) -> bytes:
        """The whole answer, decoded; past ``limit`` bytes an error (or, with ``cut``, what
        was read so far: an error body is a courtesy)."""
        self._limit = limit
        parts: list[bytes] = []
        try:
            async for piece in raw_pieces(response):
                parts.extend(self.feed(piece))
            parts.append(self.flush())
        except TooLarge:
            if cut:
                return b"".join(parts)[:limit]
            raise call.error(
                ResponseValidationError,
                f"The answer to {call.method} {call.path} is larger than {limit // 1024:,} KiB",
            ) from None
        except httpx.TransportError as exc:
            raise call.error(
                ApiTimeoutError if isinstance(exc, httpx.TimeoutException) else ApiConnectionError,
                f"The answer to {call.method} {call.path} broke off: "
                f"{describe_transport_error(exc)}",
            ) from None
        return b"".join(parts)


class TooLarge(Exception):
    pass


async def raw_pieces(response: httpx.Response) -> AsyncIterator[bytes]:
    """The answer's bytes as they arrive, still encoded."""
    if response.is_stream_consumed:
        yield response.content  # built whole (a test's mock)
        return
    async for piece in response.aiter_raw():
        yield piece
