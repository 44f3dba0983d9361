"""The fast path's learned decoder and the columns' shortcuts for repeated values: the same
rows as the plain decoder gives, whatever values come and in whatever order."""

import datetime as dt
import json
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.api.banking.columns import StatementColumns
from app.api.banking.statement_records import PLAIN_RECORDS, LearnedDecoder, plain_records
from app.api.banking.statements import StatementReader

from .test_statement_columns import GOOD, records, records_with_gaps


def known_of(columns: StatementColumns) -> list[list[str | None]]:
    return [
        columns.types.values,
        columns.currencies.values,
        columns.counterparty_names.values,
        columns.counterparty_accounts.values,
    ]


def record(number: int, **changes: Any) -> dict[str, Any]:
    return {**GOOD, "id": f"ST{number}", **changes}


def piece(items: list[dict[str, Any]]) -> bytes:
    return json.dumps(items).encode()


def read(pieces: list[bytes]) -> tuple[StatementReader, StatementColumns]:
    columns = StatementColumns()
    reader = StatementReader(None, 1024 * 1024, columns)  # type: ignore[arg-type] # no error here
    for each in pieces:
        reader.piece(each)  # as the splitter gives them: whole items, as an array
    return reader, columns


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(records, records_with_gaps), min_size=1, max_size=4))
def test_the_learned_decoder_reads_a_piece_as_the_plain_one_does(items):
    """Whatever the values, learned or not: the same records, or None alike."""
    learned = LearnedDecoder()
    learned.learn([[GOOD["type"]], [GOOD["currency"]], [GOOD["counterparty_name"], None], []])
    assert learned.decoder is not PLAIN_RECORDS  # a learned one is in use
    raw = piece(items)
    plain, decoded = plain_records(raw), learned.decode(raw)
    assert (plain is None) == (decoded is None)
    if plain is not None:
        assert msgspec.to_builtins(decoded) == msgspec.to_builtins(plain)


def test_values_first_seen_late_are_read_and_then_learned():
    reader, columns = read(
        [
            piece([record(1), record(2, type="sepa")]),
            piece([record(3, currency="USD", counterparty_name=None), record(4)]),
            piece([record(5, type="internal", counterparty_account="EE1")]),
        ]
    )
    assert [columns.record(row)["type"] for row in range(5)] == [
        "card",
        "sepa",
        "card",
        "card",
        "internal",
    ]
    assert [columns.currency(row) for row in range(5)] == ["EUR", "EUR", "USD", "EUR", "EUR"]
    assert columns.record(2)["counterparty_name"] is None
    assert columns.record(4)["counterparty_account"] == "EE1"
    # each value is held once, and the decoder now gives one string for each value
    assert columns.types.values == ["card", "sepa", "internal"]
    pair = [record(6, type="sepa", currency="USD"), record(7, type="sepa", currency="USD")]
    first, second = reader._decoder.decoder.decode(piece(pair))
    assert first.type == "sepa" and first.type is second.type
    assert first.currency == "USD" and first.currency is second.currency


def test_a_field_whose_values_keep_coming_new_is_soon_read_as_any_text():
    """Each piece with a value not learned is decoded twice: a field that keeps bringing new
    ones stops being learned, and the others go on being."""
    pieces = [piece([record(number, counterparty_name=f"Shop {number}")]) for number in range(12)]
    reader, columns = read(pieces)
    assert len(columns) == 12 and columns.counterparty_names.values[-1] == "Shop 11"
    decoder = reader._decoder.decoder
    new_name = decoder.decode(piece([record(99, counterparty_name="Never seen")]))
    assert new_name[0].counterparty_name == "Never seen"  # taken by the learned decoder
    with pytest.raises(msgspec.ValidationError, match=r"\$\[0\]\.type"):  # still learned
        decoder.decode(piece([record(99, type="never seen")]))


def test_a_piece_of_one_two_or_many_days_in_any_order_keeps_each_rows_date():
    days = [
        ["2024-02-29"] * 4,
        ["2024-02-29", "2024-03-01", "2024-03-01"],
        ["2024-03-01", "2024-03-02", "2024-03-01", "2024-03-02"],  # two days, interleaved
        ["2024-03-03", "2024-03-04", "2024-03-05"],
        ["2024-03-05", "2024-03-04"],
        ["2024-03-06"],
    ]
    pieces, expected, number = [], [], 0
    for dates in days:
        items = []
        for date in dates:
            number += 1
            items.append(record(number, booking_date=date))
            expected.append(dt.date.fromisoformat(date))
        pieces.append(piece(items))
    _reader, columns = read(pieces)
    assert [columns.record(row)["booking_date"] for row in range(len(columns))] == expected


def test_a_piece_of_one_value_throughout_is_coded_as_any_other():
    _reader, columns = read(
        [
            piece([record(1), record(2)]),  # EUR throughout, learned after this piece
            piece([record(3), record(4)]),
            piece([record(5, currency="USD"), record(6, currency="USD")]),  # new, throughout
            piece([record(7, currency="USD"), record(8)]),
        ]
    )
    assert list(columns.currencies.codes) == [0, 0, 0, 0, 1, 1, 1, 0]
    assert [columns.currency(row) for row in range(8)] == ["EUR"] * 4 + ["USD"] * 3 + ["EUR"]


def test_a_field_with_a_long_value_or_too_many_is_read_as_any_text():
    long_name = "N" * 129
    many = [record(number, counterparty_account=f"LT{number:018d}") for number in range(257)]
    reader, columns = read([piece([record(1, counterparty_name=long_name), *many])])
    assert columns.record(0)["counterparty_name"] == long_name
    decoder = reader._decoder.decoder
    new = [record(2, counterparty_name="Other", counterparty_account="EE1", type="card")]
    assert decoder.decode(piece(new))[0].counterparty_account == "EE1"  # neither learned
    with pytest.raises(msgspec.ValidationError, match=r"\$\[0\]\.type"):  # the type is
        decoder.decode(piece([record(3, type="sepa")]))


def test_a_second_statement_finds_its_repeated_values_by_identity_not_by_comparing():
    """typing keeps one Literal for equal values for the whole process, holding the strings of
    the statement that first had them: a second statement's columns hold those very strings,
    the ones its learned decoder gives, so each is found in the index without a comparison."""
    pieces = [
        piece([record(1), record(2, type="sepa", counterparty_name=None)]),
        piece([record(3, currency="USD"), record(4)]),
    ]
    read(pieces)  # the first statement: its strings are the Literals' from now on
    reader, columns = read(pieces)
    decoded = reader._decoder.decoder.decode(piece([record(5, type="sepa", currency="USD")]))[0]
    for value, dictionary in (
        (decoded.type, columns.types),
        (decoded.currency, columns.currencies),
        (decoded.counterparty_name, columns.counterparty_names),
        (decoded.counterparty_account, columns.counterparty_accounts),
    ):
        (held,) = [each for each in dictionary.values if each == value]
        assert held is value, value
        assert next(key for key in dictionary._index if key == value) is value
    # and the rows read back as they came
    assert [columns.record(row)["type"] for row in range(4)] == ["card", "sepa", "card", "card"]
    assert [columns.currency(row) for row in range(4)] == ["EUR", "EUR", "USD", "EUR"]
