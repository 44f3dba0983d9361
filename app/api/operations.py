"""What every service's operations share: the transport, path segments, paging and answer checks
against the contract (both services' clients are built on it)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Annotated, Any, TypeVar
from urllib.parse import quote, unquote

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from app.api.errors import InvalidInput, ResponseValidationError
from app.api.http import Transport
from app.core import filter as flt
from app.core import limits
from app.core.limits import Bound

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)


def segment(name: str, value: str, bound: Bound = limits.CLIENT_ID) -> str:
    """A path segment, checked against its bound and escaped."""
    problem = bound.length_problem(value)
    if problem:
        raise InvalidInput(name, problem)
    if any(ch in "/\\?#" or ch.isspace() or not ch.isprintable() for ch in value):
        raise InvalidInput(name, "has a space, a slash or a character an ID cannot hold")
    if _dot_segment(value):
        # a path would read it as "this folder" or "the one above": the list, or the root
        raise InvalidInput(name, f"{value!r} cannot be an ID: it would name another path")
    return quote(value, safe="")


def _dot_segment(value: str) -> bool:
    """ "." or "..", written out or percent-encoded (once, or again and again)."""
    for _ in range(4):
        if value in (".", ".."):
            return True
        decoded = unquote(value)
        if decoded == value:
            return False
        value = decoded
    return True  # encoded past any reason: no ID looks like that


def page(
    offset: int, limit: int, filter_text: str | flt.Node | None, fields: Mapping[str, flt.FieldType]
) -> dict[str, str | int]:
    """The query of one page of a list: offset, limit and the filter, checked."""
    if not limits.OFFSET.low <= offset <= limits.OFFSET.high:
        raise InvalidInput("offset", f"must be from {limits.OFFSET.low} to {limits.OFFSET.high}")
    if not limits.LIMIT.low <= limit <= limits.LIMIT.high:
        raise InvalidInput("limit", f"must be from {limits.LIMIT.low} to {limits.LIMIT.high}")
    params: dict[str, str | int] = {"offset": offset, "limit": limit}
    if filter_text is not None and filter_text != "":
        try:
            node = flt.parse(filter_text) if isinstance(filter_text, str) else filter_text
            flt.check_fields(node, fields)
        except flt.FilterError as exc:
            raise InvalidInput("filter", str(exc)) from None
        written = flt.to_string(node)
        problem = limits.FILTER.length_problem(written)
        if problem:
            raise InvalidInput("filter", problem)
        params["filter"] = written
    return params


@cache
def one(model: type[M]) -> TypeAdapter[M]:
    return TypeAdapter(model)


@cache
def many(model: type[M]) -> TypeAdapter[list[M]]:
    """A list of the model, checked up to its first wrong item: an error gathered for each
    of 200,000 wrong items took 1.2 GB and 6 s."""
    listed = Annotated[list[model], Field(fail_fast=True)]  # type: ignore[valid-type]
    return TypeAdapter(listed)


_PIECE_POSITION = re.compile(r" at line \d+ column \d+")


def contract_error(
    exc: ValidationError,
    method: str,
    path: str,
    request_id: str | None,
    *,
    records_before: int | None = None,
) -> ResponseValidationError:
    """The first problem, where it is. In a streamed array validated a piece at a time,
    ``records_before`` (the records of the earlier pieces) makes a record's number the
    answer's, and a JSON problem is placed after the records taken."""
    first = exc.errors()[0]
    loc, message = list(first["loc"]), str(first["msg"])
    if records_before is not None:
        if loc and isinstance(loc[0], int):
            loc[0] += records_before
        elif not loc:  # the JSON itself: its line and column are the piece's, not the answer's
            loc = [f"a record after the first {records_before:,}" if records_before else "a record"]
            message = _PIECE_POSITION.sub("", message)
    where = ".".join(str(part) for part in loc) or "the answer"
    return ResponseValidationError(
        f"The answer to {method} {path} does not fit the contract: {where}: {message} "
        f"(x-request-id {request_id})",
        request_id=request_id,
        method=method,
        path=path,
    )


class Operations:
    """The base of each resource's operations: one transport (one profile)."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport

    async def aclose(self) -> None:
        await self.transport.aclose()

    async def _call(
        self,
        adapter: TypeAdapter[T],
        method: str,
        path: str,
        *,
        body: Any = None,
        params: Mapping[str, str | int] | None = None,
        request_id: str | None = None,
        secured: bool = True,
        files: Mapping[str, tuple[str | None, bytes, str]] | None = None,
    ) -> T:
        answer = await self.transport.request(
            method,
            path,
            json_body=body,
            params=params,
            request_id=request_id,
            secured=secured,
            files=files,
        )
        try:
            return adapter.validate_json(answer.content)
        except ValidationError as exc:
            raise contract_error(exc, method, path, answer.request_id) from None
