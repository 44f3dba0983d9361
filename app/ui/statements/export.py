"""The statement's rows as its CSV file holds them, made a chunk of rows at a time and, within
a chunk, a column at a time: each date, dictionary value (type, currency, counterparty) and
currency's decimal places is worked out once, only free texts are checked for a formula row
by row, and the csv writer gets whole rows ready (a row at a time, the work cost four times
what writing it does)."""

from __future__ import annotations

import datetime as dt
from array import array
from collections.abc import Callable, Iterator, Sequence
from operator import itemgetter
from typing import Any

from app.api.banking.columns import DictionaryColumn, StatementColumns
from app.core.csv_export import Block, neutralise, neutralise_column
from app.core.money import MoneyError, decimal_texts, exponent

CHUNK_ROWS = 2048  # rows made at once: a few milliseconds of work
BLOCK_ROWS = 32768  # rows made in booking order, then put back (a few MB of rows at once)


def places_of(currency: str) -> int | None:
    """The currency's decimal places; None for one this desk does not know (minor units)."""
    try:
        return exponent(currency)
    except MoneyError:
        return None


def _safe_values(column: DictionaryColumn) -> list[str]:
    """Each value of a dictionary column as a cell, neutralised once."""
    return [neutralise(value or "") for value in column.values]


class _RowMaker:
    """Makes the export's rows of a statement, a chunk at a time; what the chunks share (each
    dictionary value neutralised, each currency's places, each date's text) is worked out once."""

    def __init__(self, data: StatementColumns) -> None:
        self.data = data
        currency_values = list(data.currencies.values)
        self.places = [places_of(value or "") for value in currency_values]
        self.currencies = [neutralise(value or "") for value in currency_values]
        self.types = _safe_values(data.types)
        self.names = _safe_values(data.counterparty_names)
        self.accounts = _safe_values(data.counterparty_accounts)
        self.days: dict[int, str] = {}

    def rows(self, rows: array[int]) -> list[tuple[str, ...]]:
        data, days = self.data, self.days
        pick = _picker(rows)  # the chunk's values of a column, in C rather than row by row
        codes = pick(data.currencies.codes)
        ordinals = pick(data.days)
        for ordinal in set(ordinals).difference(days):
            days[ordinal] = dt.date.fromordinal(ordinal).isoformat()
        signed = [
            amount if credit else -amount
            for amount, credit in zip(pick(data.amounts), pick(data.credits), strict=True)
        ]
        return list(
            zip(
                _picker(ordinals)(days),
                _picker(pick(data.types.codes))(self.types),
                _decimals(signed, codes, self.places),
                _picker(codes)(self.currencies),
                neutralise_column(data.descriptions.texts_of(rows)),
                _picker(pick(data.counterparty_names.codes))(self.names),
                _picker(pick(data.counterparty_accounts.codes))(self.accounts),
                neutralise_column(data.references.texts_of(rows)),
                _decimals(pick(data.balances), codes, self.places),
                strict=True,
            )
        )


def export_chunks(data: StatementColumns, order: array[int]) -> Iterator[list[tuple[str, ...]]]:
    """The rows ``order`` names, in that order, as the export writes them: date, type, amount,
    currency, description, counterparty, its account, reference, balance; amounts as plain
    decimals of their currency, every cell a spreadsheet would run as a formula neutralised.
    A chunk of a few milliseconds at a time (the window's export)."""
    maker = _RowMaker(data)
    for low in range(0, len(order), CHUNK_ROWS):
        yield maker.rows(order[low : low + CHUNK_ROWS])


def export_blocks(data: StatementColumns, order: array[int]) -> Iterator[Block]:
    """`export_chunks`' rows, for work away from the window (a forked copy): a block of
    ``BLOCK_ROWS`` at a time, made in booking order — the columns read in the order they lie
    in memory, where a sorted table's order reads them all over it — with where each row
    asked for is among them. The writer puts them back as lines (one object a row), not as
    the rows' cells: written in a sorted order, the cells cost a cache miss each, a sixth of
    a copy's time."""
    maker = _RowMaker(data)
    for low in range(0, len(order), BLOCK_ROWS):
        block = order[low : low + BLOCK_ROWS]
        ascending = array(block.typecode, sorted(block))
        made: list[tuple[str, ...]] = []
        for start in range(0, len(ascending), CHUNK_ROWS):
            made += maker.rows(ascending[start : start + CHUNK_ROWS])
        if ascending == block:
            yield Block(made)
        else:
            made_at = dict(zip(ascending, range(len(ascending)), strict=True))
            yield Block(made, array("I", map(made_at.__getitem__, block)))


def _picker(keys: Sequence[int]) -> Callable[[Any], list[Any]]:
    """Reads the values at ``keys`` of a list, array or dict at once (itemgetter)."""
    if len(keys) == 1:  # itemgetter of one key gives the value, not a tuple of it
        key = keys[0]
        return lambda values: [values[key]]
    get = itemgetter(*keys)
    return lambda values: list(get(values))


def _decimals(amounts: list[int], codes: list[int], places: list[int | None]) -> list[str]:
    """Each amount as a plain decimal of its row's currency (minor units for one unknown)."""
    first = codes[0] if codes else 0
    if codes.count(first) == len(codes):  # one currency: the whole column at once
        return decimal_texts(amounts, places[first] or 0)
    return [
        decimal_texts([amount], places[code] or 0)[0]
        for amount, code in zip(amounts, codes, strict=True)
    ]
