"""Statements: the records of an account over a period, streamed and validated in pieces.

A statement can hold a million records. It is read as it arrives: the JSON array is cut into
pieces (`json_stream`), each piece decoded (msgspec: into plain records when it holds plain
values, else into Python values) and taken into columns (`columns`), between which the GUI
keeps running; a piece the columns do not take plainly goes to the record model
(`statement_records`), which accepts it or words what is wrong.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncGenerator
from typing import Any

import msgspec
from pydantic import ValidationError

from app.api.banking.accounts import account_path, checked_currency
from app.api.banking.columns import StatementColumns
from app.api.banking.json_stream import (
    WHITESPACE,
    ArrayEndUnclear,
    JsonArraySplitter,
    JsonStreamError,
    bracketed,
    join,
    last_item_end,
)
from app.api.banking.statement_records import RECORDS, LearnedDecoder, StatementRecord
from app.api.errors import ApiError, InvalidInput, ResponseValidationError
from app.api.http import AnswerStream
from app.api.http.policy import MiB
from app.api.operations import Operations, contract_error
from app.core.gc_pause import gc_paused
from app.core.heap import keep_freed_memory


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
        self._decoder = LearnedDecoder()

    def piece(self, piece: bytes) -> int:
        """The number of records the piece (the splitter's: whole items as a JSON array)
        completed."""
        if self._carry is None:
            raw = piece
        else:  # after a piece cut inside a string
            raw = bracketed(join(self._carry, piece[1:-1]))
            self._carry = None
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
        text = raw[1:-1]
        end = last_item_end(text)
        if end >= 0 and not text[:end].strip(WHITESPACE):  # "[" or "," before the comma
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
        carry, self._carry = self._carry, None
        if carry is None:
            return 0 if piece is None else self._add(piece)
        return self._add(bracketed(carry if piece is None else join(carry, piece[1:-1])))

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
        before = columns.taken
        records = self._decoder.decode(raw)
        if records is None or not columns.add_plain(records):
            return None
        self._learn()
        return columns.taken - before

    def _add(self, raw: bytes, parsed: Any = None) -> int:
        if parsed is None:
            added = self._add_plain(raw)
            if added is not None:
                return added
        columns = self._columns
        before = columns.taken
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
                    RECORDS.validate_json(raw)
                    if parsed is None
                    else RECORDS.validate_python(parsed)
                )
                columns.add_records(records)
            except ValidationError as exc:
                call = self._stream.call
                raise contract_error(
                    exc, call.method, call.path, call.request_id, records_before=before
                ) from None
        self._learn()
        return columns.taken - before

    def _learn(self) -> None:
        columns = self._columns
        dictionaries = (
            columns.types,
            columns.currencies,
            columns.counterparty_names,
            columns.counterparty_accounts,
        )
        given = self._decoder.learn([dictionary.values for dictionary in dictionaries])
        if given is not None:
            for dictionary, strings in zip(dictionaries, given, strict=True):
                dictionary.adopt(strings)


def _parse(raw: bytes) -> Any:
    """A piece as Python values (msgspec, as the fast path). A text it refuses (1e400, nesting
    deeper than Python's stack allows) is a ValueError: the record model then reads it and
    words what is wrong; an integer past 64 bits it reads exactly, and the columns, which
    take 64-bit integers only, leave it to the record model, which names the field."""
    try:
        return msgspec.json.decode(raw)
    except RecursionError:
        raise ValueError("nested too deep") from None


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
        keep_freed_memory()  # its pieces are freed as fast as they come (app.core.heap)
        path = account_path(client_id, account_id) + "/statement"
        stream = await self.transport.stream("GET", path, params=params)
        bounds = self.transport.bounds
        splitter = JsonArraySplitter(record_bytes=bounds.record_bytes)
        reader = StatementReader(stream, bounds.record_bytes, into)
        count = 0

        def counted(added: int) -> int:
            nonlocal count
            count += added
            if count > bounds.stream_records:
                raise stream.error(
                    ResponseValidationError,
                    f"The statement has more than {bounds.stream_records:,} records: "
                    "choose a shorter period or one currency",
                )
            return added

        received = 0

        def too_large() -> ApiError:
            return stream.error(
                ResponseValidationError,
                f"The statement is larger than {bounds.stream_bytes // MiB:,} MiB: "
                "choose a shorter period or one currency",
            )

        try:
            async for chunk in stream.chunks():
                received += len(chunk)
                if received > bounds.stream_bytes:
                    raise too_large()
                for piece in splitter.feed(chunk):
                    with gc_paused():  # a piece's thousand records: see app.core.gc_pause
                        added = counted(reader.piece(piece))
                    if into.held_bytes > bounds.stream_bytes:  # one emoji: 4 bytes a letter
                        raise too_large()
                    if added:
                        yield added
            final = splitter.finish()
            if added := counted(reader.last(final[0] if final else None)):
                yield added
        except ArrayEndUnclear as unclear:
            problem = (
                f"data follows the array's end: {unclear.after.lstrip(WHITESPACE)[:40]!r}"
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
