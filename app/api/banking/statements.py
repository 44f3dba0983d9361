"""Statements: the records of an account over a period, streamed and validated in pieces.

A statement can hold a million records. It is read as it arrives: the JSON array is cut into
pieces where an object ends and a comma follows, and each piece is decoded (msgspec; orjson
when it holds more than plain values) and taken into columns, between which the GUI keeps
running. Inside a string the same bytes can occur; a piece cut there does not parse, and only
then is it scanned exactly (strings skipped) to find the true end of its last record. Each
byte is scanned a bounded number of times, and no record may grow past
``Bounds.record_bytes``, so a hostile answer costs linear time and bounded memory.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import AsyncGenerator
from typing import Annotated, Any, Literal, NotRequired

import msgspec
import orjson
from pydantic import Field, TypeAdapter, ValidationError
from typing_extensions import TypedDict  # pydantic needs this one on Python 3.11

from app.api.banking._base import Operations, contract_error
from app.api.banking.accounts import account_path, checked_currency
from app.api.banking.columns import StatementColumns
from app.api.errors import InvalidInput, ResponseValidationError
from app.api.transport import AnswerStream
from app.core.gc_pause import gc_paused

_WHITESPACE = b" \t\n\r"
_LOOK_BACK = 64  # bytes first searched before a comma for the "}" that ends an object
# a string (possibly cut off at the end), or a byte that opens, closes or separates items
# possessive: a long string is one step of the matcher, not a step (and stack entry) per byte
_TOKEN = re.compile(rb'"(?:[^"\\]++|\\.)*+(?:"|\Z)|[\[\]{},]', re.DOTALL)


# what the statement's integer columns hold (the contract's int64)
Int64 = Annotated[int, Field(ge=-(2**63), le=2**63 - 1)]


class StatementRecord(TypedDict):
    """A statement record. A typed dict, not a model: a statement holds 100,000 of them, and
    pydantic validates dicts in half the time it takes to build models."""

    id: str
    booking_date: dt.date
    type: str
    direction: Literal["credit", "debit"]
    amount: Annotated[int, Field(ge=0, le=2**63 - 1)]
    currency: str
    description: str
    counterparty_name: NotRequired[str | None]
    counterparty_account: NotRequired[str | None]
    reference: NotRequired[str | None]
    balance_after: Int64


# fail_fast: a piece of a hundred thousand bad records stops at the first (it gathered 1.4
# million errors, and turning them into Python objects took a second and a gigabyte)
_RECORDS: TypeAdapter[list[StatementRecord]] = TypeAdapter(
    Annotated[list[StatementRecord], Field(fail_fast=True)]
)


class _Plain(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    """A statement record as the fast path decodes it: each field as plain JSON (strings and
    integers; dates and directions are checked by the columns). A piece with any other value
    is left to the slower way (`StatementReader._add`), which accepts the same or words why
    not — so is a record with a field not named here: msgspec would skip its value unread,
    where the slower way's parser reads it and may refuse it (a number past a double's range,
    nesting past a limit)."""

    id: str
    booking_date: str
    type: str
    direction: str
    amount: int
    currency: str
    description: str
    balance_after: int
    counterparty_name: str | None = None
    counterparty_account: str | None = None
    reference: str | None = None


_PLAIN = msgspec.json.Decoder(list[_Plain])


class JsonStreamError(ValueError):
    """The stream is not a JSON array, it ended before the array did, or a record is too long."""


class ArrayEndUnclear(JsonStreamError):
    """The answer ends after a "]" that may end the array (then data follows it) or not (then
    the answer was cut off): the items before it tell (`StatementReader.ends_whole`)."""

    def __init__(self, items: bytes, after: bytes) -> None:
        super().__init__("the array ended early: the answer was cut off")
        self.items = items
        self.after = after


class JsonArraySplitter:
    """Cuts a JSON array of objects into pieces of items while it arrives (see the module).
    Each byte is looked at a bounded number of times however small the chunks come: the
    buffer grows in place and only bytes not yet scanned are searched for a cut."""

    def __init__(self, piece_size: int = 256 * 1024, record_bytes: int = 1024 * 1024) -> None:
        self.piece_size = piece_size
        self.record_bytes = record_bytes
        self._buffer = bytearray()
        self._opened = False
        self._cut = False  # a piece was cut off: an item must follow its comma
        self._scanned = 0  # the buffer before this was searched for cuts
        self._last = -1  # the last cut found so far: a comma after an object's "}"
        self._skipped = 0  # whitespace before the array

    def feed(self, chunk: bytes) -> list[bytes]:
        """Pieces completed by this chunk: the items' bytes without brackets or the last comma."""
        buffer = self._buffer
        buffer += chunk
        if not self._opened:
            start = len(buffer) - len(buffer.lstrip(_WHITESPACE))
            if start == len(buffer):
                self._skipped += start
                if self._skipped > self.record_bytes:  # not read on until the time limit
                    raise JsonStreamError(
                        f"expected a JSON array, found {self._skipped:,} bytes of whitespace"
                    )
                buffer.clear()
                return []
            if buffer[start : start + 1] != b"[":
                found = bytes(buffer[start : start + 1])
                raise JsonStreamError(f"expected a JSON array, found {found!r}")
            del buffer[: start + 1]
            self._opened = True
        if len(buffer) < self.piece_size:
            return []
        self._scan()
        if self._last < 0:
            if len(buffer) > self.piece_size + self.record_bytes:
                raise JsonStreamError(f"no record ends within {self.record_bytes:,} bytes")
            return []
        cut = self._last
        with memoryview(buffer) as view:  # one copy: a slice and bytes() of it would be two
            piece = bytes(view[:cut])
        del buffer[: cut + 1]
        self._scanned = max(self._scanned - cut - 1, 0)
        self._last = -1
        self._cut = True
        return [piece]

    def _scan(self) -> None:
        """Search the bytes not yet scanned for cuts, from their end back: the first cut met
        is the last one, and normally it is found at once; bytes scanned are not scanned
        again."""
        buffer = self._buffer
        end = len(buffer)
        while (comma := buffer.rfind(b",", self._scanned, end)) >= 0:
            if _after_object(buffer, comma):
                self._last = comma
                break
            end = comma
        self._scanned = len(buffer)

    def finish(self) -> list[bytes]:
        """The last piece; raises when the array did not start or did not end."""
        if not self._opened:
            raise JsonStreamError("expected a JSON array, found nothing")
        rest = bytes(self._buffer).rstrip(_WHITESPACE)
        if not rest.endswith(b"]"):
            end = rest.rfind(b"]")
            if end >= 0:  # the array's end, with something after it, or a "]" inside it
                raise ArrayEndUnclear(rest[:end], rest[end + 1 :])
            raise JsonStreamError("the array ended early: the answer was cut off")
        self._buffer.clear()
        piece = rest[:-1]
        if piece.strip(_WHITESPACE):
            return [piece]
        if self._cut:
            raise JsonStreamError("a comma is not followed by an item")
        return []


def _after_object(buffer: bytearray, comma: int) -> bool:
    """Whether the last byte before the comma, whitespace aside, is a "}". The look-back
    doubles while it finds only whitespace: each comma is looked at once, so a long run of
    whitespace costs its length, never a refusal of a valid answer."""
    look = _LOOK_BACK
    while True:
        start = max(0, comma - look)
        before = buffer[start:comma].rstrip(_WHITESPACE)
        if before or start == 0:
            return before.endswith(b"}")
        look *= 2


def join(first: bytes, second: bytes) -> bytes:
    """Two pieces as the bytes they were cut from (the cut is made at the comma itself)."""
    return b",".join((first, second))


def bracketed(items: bytes) -> bytes:
    """Items as the JSON array of them, copied once (chained + would copy them twice)."""
    return b"".join((b"[", items, b"]"))


def last_item_end(text: bytes) -> int:
    """The position of the last comma between two items of the array (strings skipped), or -1."""
    depth = 0
    last = -1
    for token in _TOKEN.finditer(text):
        byte = token.group()[:1]
        if byte in b"[{":
            depth += 1
        elif byte in b"]}":
            depth -= 1
        elif byte == b"," and depth == 0:
            last = token.start()
    return last


class StatementReader:
    """Puts the pieces of a statement into columns. A piece is decoded once into plain typed
    records whose values go straight into the columns (`StatementColumns.add_plain`); only
    a piece with other values is parsed into dicts (`add_parsed`), and only when those are
    not plainly right either does the record model validate it, to accept or word the error."""

    def __init__(self, stream: AnswerStream, record_bytes: int, into: StatementColumns) -> None:
        self._stream = stream
        self._record_bytes = record_bytes
        self._carry: bytes | None = None
        self._columns = into

    def piece(self, piece: bytes) -> int:
        """The number of records the piece completed."""
        text = piece if self._carry is None else join(self._carry, piece)
        self._carry = None
        raw = bracketed(text)
        added = self._add_plain(raw)
        if added is not None:
            return added
        try:
            parsed = _parse(raw)
        except ValueError:
            pass  # not JSON: cut inside a string, most likely
        else:
            return self._add(raw, parsed)
        # validate up to the true end of the last whole record
        end = last_item_end(text)
        if end >= 0 and not text[:end].strip(_WHITESPACE):  # "[" or "," before the comma
            raise JsonStreamError("a comma follows no item")  # `[]` would take it silently
        rest = text if end < 0 else text[end + 1 :]
        if len(rest) > self._record_bytes:
            raise JsonStreamError(f"a record is longer than {self._record_bytes:,} bytes")
        self._carry = rest
        if end < 0:
            return 0
        return self._add(bracketed(text[:end]))

    def last(self, piece: bytes | None) -> int:
        """The final piece (None when the array ended on a cut): all that is left must parse."""
        parts = [part for part in (self._carry, piece) if part is not None]
        self._carry = None
        if not parts:
            return 0
        text = join(*parts) if len(parts) == 2 else parts[0]
        return self._add(bracketed(text))

    def ends_whole(self, items: bytes) -> bool:
        """Whether these last items complete the array's records (nothing is taken)."""
        text = items if self._carry is None else join(self._carry, items)
        try:
            _parse(bracketed(text))
        except ValueError:
            return False
        return True

    def _add_plain(self, raw: bytes) -> int | None:
        """The records the fast path took, or None (and nothing taken) when it did not."""
        columns = self._columns
        before = len(columns)
        records = _plain(raw)
        if records is None or not columns.add_plain(records):
            return None
        return len(columns) - before

    def _add(self, raw: bytes, parsed: Any = None) -> int:
        if parsed is None:
            added = self._add_plain(raw)
            if added is not None:
                return added
        columns = self._columns
        before = len(columns)
        if parsed is None:
            try:
                parsed = _parse(raw)
            except ValueError:
                parsed = None  # the model words what is wrong
        if parsed is None or not columns.add_parsed(parsed):
            try:
                # the model judges the values the columns saw (one parser, one nesting limit),
                # or the text itself when it did not parse, to word what is wrong
                records = (
                    _RECORDS.validate_json(raw)
                    if parsed is None
                    else _RECORDS.validate_python(parsed)
                )
                columns.add_records(records)
            except ValidationError as exc:
                call = self._stream.call
                raise contract_error(
                    exc, call.method, call.path, call.request_id, records_before=before
                ) from None
        return len(columns) - before


def _plain(raw: bytes) -> list[_Plain] | None:
    """A piece decoded by the fast path (msgspec, into `_Plain`: a third less time than
    parsing into dicts, and a third less again taking the values), or None when it is not
    plainly records. Every value it takes it reads whole, as the slower way's parser does;
    the piece's UTF-8 is checked first all the same, so that no byte of it goes unchecked."""
    if not raw.isascii():
        try:
            raw.decode()
        except UnicodeDecodeError:
            return None
    try:
        return _PLAIN.decode(raw)
    except msgspec.DecodeError:  # its values are never nested: no recursion to run out of
        return None


def _parse(raw: bytes) -> Any:
    """A piece as Python values. orjson, not pydantic-core's parser: it parses a piece in
    about two-thirds of the time (a million-record load 10-15 % sooner). They refuse the same
    texts (no NaN, lone surrogates, control characters or bad UTF-8); where orjson gives a
    float for an integer past 64 bits the record model refuses it, naming the field
    (`StatementColumns.add_parsed` takes integers only), and a text orjson refuses (1e400,
    nesting past 1,024) is read by the record model, which words what is wrong."""
    return orjson.loads(raw)


def statement_query(
    date_from: dt.date, date_to: dt.date, currency: str | None
) -> dict[str, str | int]:
    if date_from > date_to:
        raise InvalidInput("date_from", f"{date_from} is after date_to {date_to}")
    params: dict[str, str | int] = {
        "date_from": date_from.isoformat(),
        "date_to": date_to.isoformat(),
    }
    if checked_currency(currency):
        params["currency"] = str(currency)
    return params


class StatementOperations(Operations):
    async def get_statement(
        self,
        client_id: str,
        account_id: str,
        date_from: dt.date,
        date_to: dt.date,
        *,
        currency: str | None = None,
    ) -> list[StatementRecord]:
        columns = StatementColumns()
        async for _added in self.iter_statement(
            client_id, account_id, date_from, date_to, currency=currency, into=columns
        ):
            pass
        return [columns.record(row) for row in range(len(columns))]

    async def iter_statement(
        self,
        client_id: str,
        account_id: str,
        date_from: dt.date,
        date_to: dt.date,
        *,
        currency: str | None = None,
        into: StatementColumns,
    ) -> AsyncGenerator[int, None]:
        """The statement into ``into`` as it arrives, yielding the number of records each
        piece added, so a long one can be shown (and cancelled) while it downloads; closing
        the iterator closes the connection."""
        params = statement_query(date_from, date_to, currency)
        path = account_path(client_id, account_id) + "/statement"
        stream = await self.transport.stream("GET", path, params=params)
        bounds = self.transport.bounds
        splitter = JsonArraySplitter(record_bytes=bounds.record_bytes)
        reader = StatementReader(stream, bounds.record_bytes, into)
        count = 0

        def counted(added: int) -> int:
            nonlocal count
            count += added
            if count > bounds.statement_records:
                raise stream.error(
                    ResponseValidationError,
                    f"The statement has more than {bounds.statement_records:,} records: "
                    "choose a shorter period or one currency",
                )
            return added

        try:
            async for chunk in stream.chunks():
                for piece in splitter.feed(chunk):
                    with gc_paused():  # a piece's thousand records: see app.core.gc_pause
                        added = counted(reader.piece(piece))
                    if added:
                        yield added
            final = splitter.finish()
            if added := counted(reader.last(final[0] if final else None)):
                yield added
        except ArrayEndUnclear as unclear:
            problem = (
                f"data follows the array's end: {unclear.after.lstrip(_WHITESPACE)[:40]!r}"
                if reader.ends_whole(unclear.items)
                else str(unclear)
            )
            raise stream.error(
                ResponseValidationError, f"The answer to GET {path} is not a JSON array: {problem}"
            ) from None
        except JsonStreamError as exc:
            raise stream.error(
                ResponseValidationError, f"The answer to GET {path} is not a JSON array: {exc}"
            ) from None
        finally:
            await stream.aclose()
