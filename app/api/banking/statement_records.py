"""A statement's record, as the contract writes it: the model that validates (and words what
is wrong with) records, and the plain shape the fast path decodes them into."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Annotated, Any, Literal, NotRequired, get_args

import msgspec
from pydantic import ConfigDict, Field, TypeAdapter
from typing_extensions import TypedDict  # pydantic needs this one on Python 3.11

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
# million errors, and turning them into Python objects took a second and a gigabyte);
# defer_build: its validator is built when first used, not on the way to the window (20 ms)
RECORDS: TypeAdapter[list[StatementRecord]] = TypeAdapter(
    Annotated[list[StatementRecord], Field(fail_fast=True)], config=ConfigDict(defer_build=True)
)


class PlainRecord(msgspec.Struct, gc=False, forbid_unknown_fields=True, kw_only=True):
    """A statement record as the fast path decodes it: each field as plain JSON (strings and
    integers; dates and directions are checked by the columns). A piece with any other value
    is left to the slower way (`StatementReader._add`), which accepts the same or words why
    not — so is a record with a field not named here: msgspec would skip its value unread,
    where the slower way's parser reads it and may refuse it (a number past a double's range,
    nesting past a limit)."""

    # in the contract's order, as servers write them: msgspec matches each key first against
    # the field after the last one matched (a twentieth less work decoding a piece than in
    # any other order); the columns take them in this order too (`StatementColumns._take`),
    # a piece's records turned into columns by msgspec's astuple and zip, both in C
    id: str
    booking_date: str
    type: str
    direction: Literal["credit", "debit"]
    amount: int
    currency: str
    description: str
    counterparty_name: str | None = None
    counterparty_account: str | None = None
    reference: str | None = None
    balance_after: int


PLAIN_RECORDS = msgspec.json.Decoder(list[PlainRecord])


def plain_records(raw: bytes) -> list[PlainRecord] | None:
    """A piece decoded by the fast path (msgspec, into `PlainRecord`: a third less time than
    parsing into dicts, and a third less again taking the values), or None when it is not
    plainly records. Every value it takes it reads whole, as the slower way's parser does,
    and every byte is in a value or a key it reads (an unknown key is refused): broken UTF-8
    anywhere is a UnicodeDecodeError, and the slower way words it."""
    try:
        return PLAIN_RECORDS.decode(raw)
    except (msgspec.DecodeError, UnicodeDecodeError):  # never nested: no recursion to run out of
        return None


# the fields whose values repeat, as the columns keep them: each distinct value once
# (`StatementColumns` DictionaryColumn), in this order
REPEATED_FIELDS = ("type", "currency", "counterparty_name", "counterparty_account")
# a field is decoded as any string once it has more distinct values, or a longer one, or
# brought new values to more pieces: typing keeps its last 128 Literals, each holding its
# strings, for as long as the process lives (about 5 MB at most with these bounds)
_LEARNED_VALUES = 256
_LEARNED_LENGTH = 128
_LEARNED_MISSES = 8


class LearnedDecoder:
    """The fast path's decoder, each repeated field typed as the values the columns already
    hold (a Literal of them). msgspec then gives every record with a value the one string of
    the Literal, neither made nor hashed anew for each: a tenth less time decoding a piece
    and taking its codes. A piece with a value not seen yet is not taken by it: the plain
    decoder then takes it, and the decoder is made again with its values (`learn`). A field
    whose values keep coming new (more than ``_LEARNED_VALUES``, or new in more than
    ``_LEARNED_MISSES`` pieces), or one longer than ``_LEARNED_LENGTH``, is decoded as any
    string: a piece is decoded twice only a bounded number of times."""

    def __init__(self) -> None:
        self.decoder: msgspec.json.Decoder[list[Any]] = PLAIN_RECORDS
        self._learned = (0,) * len(REPEATED_FIELDS)  # the values known when it was made
        self._misses = [0] * len(REPEATED_FIELDS)

    def decode(self, raw: bytes) -> list[Any] | None:
        """The piece's records, or None when the plain decoder does not take it either."""
        if self.decoder is not PLAIN_RECORDS:
            try:
                return self.decoder.decode(raw)
            except (msgspec.DecodeError, UnicodeDecodeError):
                pass  # a value not learned yet, or not plain at all
        return plain_records(raw)

    def learn(self, known: Sequence[list[str | None]]) -> tuple[tuple[str, ...], ...] | None:
        """Made again when the columns' distinct values (in `REPEATED_FIELDS`' order) grew.
        Returns, when made again, the strings it gives for each field (none for a field
        decoded as any string): equal to the values known, but not always the same objects,
        as typing keeps one Literal for equal values for as long as the process lives, with
        the strings of the statement that first had them. The columns hold these (`adopt`),
        so that each value is found by identity, not compared (about 4% of a second
        statement's reading)."""
        counts = tuple(map(len, known))
        if counts == self._learned:
            return None
        for field, (now, before) in enumerate(zip(counts, self._learned, strict=True)):
            if now != before and before:
                self._misses[field] += 1
        self._learned = counts
        types: dict[str, Any] = {}
        for field, name, values in zip(range(len(known)), REPEATED_FIELDS, known, strict=True):
            strings = tuple(value for value in values if value is not None)
            if (
                strings
                and len(strings) <= _LEARNED_VALUES
                and self._misses[field] <= _LEARNED_MISSES
                and max(map(len, strings)) <= _LEARNED_LENGTH
            ):
                types[name] = Literal[strings]
        given = tuple(get_args(types[name]) if name in types else () for name in REPEATED_FIELDS)
        if not types:
            self.decoder = PLAIN_RECORDS
            return given
        fields = [
            (field.name, types.get(field.name, field.type))
            if field.default is msgspec.NODEFAULT
            else (
                field.name,
                types[field.name] | None if field.name in types else field.type,
                field.default,
            )
            for field in msgspec.structs.fields(PlainRecord)
        ]
        learned = msgspec.defstruct(
            "LearnedRecord", fields, gc=False, forbid_unknown_fields=True, kw_only=True
        )
        self.decoder = msgspec.json.Decoder(list[learned])  # type: ignore[valid-type]
        return given
