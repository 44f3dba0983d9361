"""A statement's record, as the contract writes it: the model that validates (and words what
is wrong with) records, and the plain shape the fast path decodes them into."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal, NotRequired

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


class PlainRecord(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    """A statement record as the fast path decodes it: each field as plain JSON (strings and
    integers; dates and directions are checked by the columns). A piece with any other value
    is left to the slower way (`StatementReader._add`), which accepts the same or words why
    not — so is a record with a field not named here: msgspec would skip its value unread,
    where the slower way's parser reads it and may refuse it (a number past a double's range,
    nesting past a limit)."""

    # in the order the columns take them (`StatementColumns._take`): a piece's
    # records are turned into columns by msgspec's astuple and zip, both in C
    booking_date: str
    direction: Literal["credit", "debit"]
    amount: int
    balance_after: int
    type: str
    currency: str
    id: str
    description: str
    counterparty_name: str | None = None
    counterparty_account: str | None = None
    reference: str | None = None


PLAIN_RECORDS = msgspec.json.Decoder(list[PlainRecord])
