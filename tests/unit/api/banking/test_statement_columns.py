"""Statement columns: what they take column by column is exactly what the record model takes."""

import datetime as dt
import gc
import json
import sys
from array import array
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from app.api.banking import text_column
from app.api.banking.columns import DictionaryColumn, StatementColumns
from app.api.banking.statement_records import RECORDS
from app.api.banking.statement_records import plain_records as _plain
from app.api.banking.statements import _parse
from app.api.banking.text_column import TextColumn, Unplain
from app.core.gc_pause import gc_paused

GOOD = {
    "id": "ST1",
    "booking_date": "2024-02-29",
    "type": "card",
    "direction": "debit",
    "amount": 1250,
    "currency": "EUR",
    "description": "Groceries",
    "counterparty_name": "Maxima LT UAB",
    "counterparty_account": "LT121000011101001000",
    "reference": "TX1",
    "balance_after": -1250,
}

# values of every JSON kind, some right for a field and most wrong for others
values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**64), max_value=2**64),
    st.sampled_from([-(2**63), 2**63 - 1, 2**63, 0, 1.0, 1.5]),
    st.sampled_from(
        ["2024-02-29", "2023-02-29", "2024-1-01", "20240101", "2024-01-01T00:00", "١٢٣٤-٠١-٠١"]
    ),
    st.sampled_from(["credit", "debit", "Credit", "", "İstanbul", "x\u0000y"]),
    st.text(max_size=6),
    st.lists(st.integers(), max_size=2),
)
# a good record with one or two fields changed: most changes are refused, some are not
records = st.lists(st.tuples(st.sampled_from(sorted(GOOD)), values), max_size=2).map(
    lambda changes: {**GOOD, **dict(changes)}
)
records_with_gaps = st.builds(
    lambda record, dropped: {k: v for k, v in record.items() if k not in dropped},
    records,
    st.sets(st.sampled_from(sorted(GOOD)), max_size=1),
)


def model_records(raw: bytes) -> list[dict[str, Any]] | None:
    try:
        return RECORDS.validate_json(raw)
    except ValidationError:
        return None


def model_values(parsed: Any) -> list[dict[str, Any]] | None:
    try:
        return RECORDS.validate_python(parsed)
    except ValidationError:
        return None


def rows_of(columns: StatementColumns) -> list[dict[str, Any]]:
    return [columns.record(row) for row in range(len(columns))]


def normalised(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A record as the columns give it back: absent optional fields are None."""
    optional = ("counterparty_name", "counterparty_account", "reference")
    return [{**dict.fromkeys(optional), **record} for record in records]


EDGES = [
    ("amount", -5),
    ("amount", True),
    ("amount", 1.0),
    ("amount", "12"),
    ("amount", 2**63),
    ("amount", 2**64),  # past the columns' 64-bit integers
    ("balance_after", 10**30),
    ("balance_after", -(2**63)),
    ("balance_after", -(2**63) - 1),
    ("type", None),
    ("currency", 978),
    ("direction", "Credit"),
    ("booking_date", "2023-02-29"),
    ("booking_date", "20240101"),
    ("booking_date", "2024-01-01T00:00:00"),
    ("description", None),
    ("counterparty_name", 0),
    ("reference", ""),
    ("reference", False),
]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.one_of(records, records_with_gaps), min_size=1, max_size=4))
def test_columns_take_only_what_the_model_takes_and_as_the_same_values(items):
    check_same_as_the_model(items)


@pytest.mark.parametrize(("field", "value"), EDGES)
def test_edge_values_are_taken_exactly_as_the_model_takes_them(field, value):
    check_same_as_the_model([GOOD, {**GOOD, field: value}])


@pytest.mark.parametrize(
    "dates",
    [
        ["2024-03-01", "2024-03-01\u00002024-03-01", "2024-03-01"],  # one holds the separator
        ["2024-03-01", "x2024-03-02", "2024-03-02"],  # the last date found inside another
        ["2024-03-01", "2024-03-01 ", "2024-03-02"],
        # run together without a separator, these would spell the runs of two dates
        ["2024-03-01", "2024-03-0", "12024-03-02", "2024-03-02"],
        ["2024-03-01", "2024-03-02", "2024-03-01", "2024-03-02"],
        ["2024-03-01", "2024-02-30", "2024-03-02"],
        ["2024-03-01", None, "2024-03-01"],
        ["2024-03-01"] * 3 + ["2024-03-02"] * 2,
        ["2024-03-02"],
    ],
)
def test_a_pieces_dates_are_each_judged_however_they_read_joined(dates):
    """The columns tell a piece of one date, or of one then another, by comparing its dates
    joined with those runs spelled out: dates that would spell the same text joined are
    still each judged, as the model judges them."""
    check_same_as_the_model(
        [{**GOOD, "id": f"ST{n}", "booking_date": d} for n, d in enumerate(dates)]
    )


def check_same_as_the_model(items: list[dict[str, Any]]) -> None:
    check_text_same_as_the_model(json.dumps(items).encode())


def check_text_same_as_the_model(raw: bytes) -> None:
    """The reader's three ways agree with the model reading the JSON text: the columns take
    the piece decoded plainly, or parsed, or the model judges the values parsed (the text
    itself when it did not parse)."""
    expected = model_records(raw)
    columns = StatementColumns()
    plain = _plain(raw)  # the fast path
    if plain is not None and columns.add_plain(plain):
        assert expected is not None
        assert normalised(rows_of(columns)) == normalised(expected)
        return
    assert len(columns) == 0  # not taken: nothing changed
    try:
        parsed = _parse(raw)  # the parser the statement reader uses
    except ValueError:
        parsed = None
    taken = parsed is not None and columns.add_parsed(parsed)
    if taken:
        assert expected is not None
        assert normalised(rows_of(columns)) == normalised(expected)
        return
    assert len(columns) == 0  # not taken: nothing changed
    judged = model_records(raw) if parsed is None else model_values(parsed)
    assert (judged is None) == (expected is None)
    if judged is not None:
        columns.add_records(judged)
        assert normalised(rows_of(columns)) == normalised(expected)


_BASE = json.dumps(GOOD).encode()[:-1]  # a good record without its closing brace
HOSTILE_TEXTS = {
    "bad UTF-8 in an unknown field": _BASE + b', "x": "\xc3"}',
    "an overlong UTF-8 form in an unknown field": _BASE + b', "x": "\xc0\xaf"}',
    "a surrogate as UTF-8 in an unknown field": _BASE + b', "x": "\xed\xa0\x80"}',
    "bad UTF-8 in a field": _BASE.replace(b'"Groceries"', b'"\xff"') + b"}",
    "a lone surrogate in an unknown field": _BASE + b', "x": "\\ud800"}',
    "a lone low surrogate in a field": _BASE.replace(b'"Groceries"', b'"\\udc00"') + b"}",
    "a control character in an unknown field": _BASE + b', "x": "\x01"}',
    "NaN in an unknown field": _BASE + b', "x": NaN}',
    "1e400 in an unknown field": _BASE + b', "x": 1e400}',
    "an integer of 500 digits in an unknown field": _BASE + b', "x": ' + b"9" * 500 + b"}",
    "nesting 300 deep in an unknown field": _BASE + b', "x": ' + b"[" * 300 + b"]" * 300 + b"}",
    "nesting 2000 deep in an unknown field": _BASE + b', "x": ' + b"[" * 2000 + b"]" * 2000 + b"}",
    "a field twice, the last right": _BASE.replace(b'"amount": 1250', b'"amount": "x"')
    + b', "amount": 7}',
    "a field twice, the last wrong": _BASE + b', "amount": "x"}',
    "an optional field twice, the last null": _BASE + b', "reference": null}',
    "an escaped key": _BASE.replace(b'"amount"', b'"\\u0061mount"') + b"}",
    "a trailing comma": _BASE + b",}",
    "an amount of 2**63": _BASE.replace(b"1250", str(2**63).encode()) + b"}",
    "an amount of 1.0": _BASE.replace(b"1250", b"1.0") + b"}",
    "an amount of true": _BASE.replace(b"1250", b"true") + b"}",
    "an integer of 4,301 digits in an unknown field": _BASE + b', "x": ' + b"9" * 4301 + b"}",
    "1e400 and nesting 200 deep in unknown fields": _BASE
    + b', "x": '
    + b"[" * 200
    + b"]" * 200
    + b', "z": 1e400}',
    "an unknown field": _BASE + b', "x": 1}',
    "a field named as msgspec's own": _BASE + b', "__struct_fields__": 1}',
}


@pytest.mark.parametrize("text", HOSTILE_TEXTS.values(), ids=HOSTILE_TEXTS)
def test_hostile_text_is_judged_alike_by_the_fast_path_and_the_slower_way(text):
    """Whether the plain decoder or the parser and the model read a piece, it is accepted as
    the same records or refused alike (the model on the parsed values is the reference here:
    it reads unknown fields nested deeper than its own parser would)."""
    raw = b"[" + text + b"," + text + b"]"
    try:
        slower = model_values(_parse(raw))
    except ValueError:
        slower = model_records(raw)
    columns = StatementColumns()
    plain = _plain(raw)
    if plain is not None and columns.add_plain(plain):
        assert slower is not None
        assert normalised(rows_of(columns)) == normalised(slower)
    else:
        assert len(columns) == 0


def test_a_piece_not_taken_leaves_the_columns_as_they_were():
    columns = StatementColumns()
    assert columns.add_parsed([GOOD])
    before = rows_of(columns)
    bad = [dict(GOOD, id="ST2"), dict(GOOD, id="ST3", counterparty_name=7)]
    assert not columns.add_parsed(bad)
    assert not columns.add_parsed([dict(GOOD, booking_date="2023-02-29")])
    assert not columns.add_parsed([dict(GOOD, amount=-5)])
    assert not columns.add_parsed([dict(GOOD, balance_after=2**63)])
    assert not columns.add_parsed({"not": "a list"})
    assert rows_of(columns) == before and len(columns.days) == len(columns.balances) == 1
    brought = dict(GOOD, type="T2", currency="XYZ", counterparty_name="New", description=5)
    assert not columns.add_parsed([brought])  # the description refused after the rest
    for dictionary, values in [
        (columns.types, ["card"]),
        (columns.currencies, ["EUR"]),
        (columns.counterparty_names, ["Maxima LT UAB"]),
    ]:
        assert dictionary.values == values  # the piece's new values forgotten
    assert columns.add_parsed([dict(brought, description="d")])
    assert rows_of(columns)[1]["currency"] == "XYZ" and columns.currencies.values[1] == "XYZ"


@pytest.mark.parametrize("by_model", [False, True])
def test_whether_any_amount_is_zero_is_known_without_a_pass_over_the_rows(by_model):
    """A sort by amount treats zeros apart only when there are any (a pass over a million
    amounts saved); a piece refused does not count."""
    columns = StatementColumns()

    def add(records: list[dict]) -> bool:
        if by_model:
            columns.add_records(RECORDS.validate_python(records))
            return True
        return columns.add_parsed(records)

    assert add([GOOD, dict(GOOD, id="ST2", amount=1)])
    assert columns.zero_amounts is False
    assert not columns.add_parsed([dict(GOOD, id="ST3", amount=0), dict(GOOD, amount=-1)])
    assert columns.zero_amounts is False
    assert add([dict(GOOD, id="ST4", amount=7), dict(GOOD, id="ST5", amount=0)])
    assert columns.zero_amounts is True
    assert add([dict(GOOD, id="ST6", amount=9)])
    assert columns.zero_amounts is True


def test_records_come_back_as_they_arrived_with_dates_amounts_and_codes():
    columns = StatementColumns()
    rows = [
        dict(GOOD),
        dict(GOOD, id="ST2", direction="credit", amount=0, currency="JPY", reference=None),
        dict(GOOD, id="ST3", booking_date="2024-03-01", counterparty_name=None),
    ]
    assert columns.add_parsed(_parse(json.dumps(rows)))
    assert columns.record(1) == {
        **rows[1],
        "booking_date": dt.date(2024, 2, 29),
    }
    assert columns.signed_amount(0) == -1250 and columns.signed_amount(1) == 0
    assert columns.credits.tolist() == [0, 1, 0]
    # repeated strings are stored once
    assert columns.currencies.values == ["EUR", "JPY"]
    assert columns.counterparty_names.values == ["Maxima LT UAB", None]
    assert columns.main_currency() == "EUR"
    assert columns.daily_balances("EUR") == [
        (dt.date(2024, 2, 29), -1250),
        (dt.date(2024, 3, 1), -1250),
    ]
    assert columns.daily_balances("USD") == []


def test_a_reference_left_empty_and_one_that_is_null_read_back_as_sent():
    columns = StatementColumns()
    rows = [
        dict(GOOD, id=f"ST{n}", reference=reference)
        for n, reference in enumerate(["", None, "TX9", None])
    ]
    assert columns.add_plain(_plain(json.dumps(rows[:2]).encode()))
    assert columns.add_parsed(_parse(json.dumps(rows[2:])))
    assert [columns.record(row)["reference"] for row in range(4)] == ["", None, "TX9", None]
    assert [columns.references[row] for row in range(4)] == ["", "", "TX9", ""]  # as shown


def test_free_text_is_found_within_one_value_never_across_two():
    column = TextColumn()
    column.append(TextColumn.prepare(["Rent", "al car", "İzmir", "x"], nullable=False))
    column.append(TextColumn.prepare(["Rental", None], nullable=True))
    assert [column[row] for row in range(6)] == ["Rent", "al car", "İzmir", "x", "Rental", ""]
    assert list(column.rows_containing("rental", 0, 6)) == [4]  # not "Rent" + "al car"
    assert list(column.rows_containing("rent", 0, 6)) == [0, 4]
    assert list(column.rows_containing("rent", 1, 4)) == []
    assert list(column.rows_containing("izmir", 0, 6)) == []
    assert list(column.rows_containing("i̇zmir", 0, 6)) == [2]  # lower case is longer


def test_a_text_holding_the_separator_reads_back_whole_and_is_found_within_itself_alone():
    column = TextColumn()
    column.append(TextColumn.prepare(["a\0b", "ab", "b\0"], nullable=False))
    column.append(TextColumn.prepare(["x", "y"], nullable=False))
    values = ["a\0b", "ab", "b\0", "x", "y"]
    assert [column[row] for row in range(5)] == values
    assert column.texts_of(array("I", range(5))) == values
    assert list(column.rows_containing("\0", 0, 5)) == [0, 2]
    assert list(column.rows_containing("ab", 0, 5)) == [1]
    assert list(column.rows_containing("b\0a", 0, 5)) == []  # "a\0b" then "ab": two values
    assert list(column.rows_containing("x\0y", 0, 5)) == []  # "x" then "y"


def test_where_each_text_starts_is_found_only_for_a_row_read_by_itself(monkeypatch):
    found: list[int] = []
    starts = text_column._starts
    monkeypatch.setattr(
        text_column, "_starts", lambda lengths, code: found.append(1) or starts(lengths, code)
    )
    column = TextColumn()
    for piece in range(3):
        column.append(TextColumn.prepare([f"p{piece}r{row}" for row in range(4)], nullable=False))
    every = [f"p{piece}r{row}" for piece in range(3) for row in range(4)]
    # a load, a run of rows (the booking order's export), a search: never a value's start
    assert column.texts_of(array("I", range(12))) == every
    assert column.texts_of(array("I", range(3, 9))) == every[3:9]
    assert list(column.rows_containing("r2", 0, 12)) == [2, 6, 10]
    assert found == []
    assert column[5] == "p1r1"  # a row by itself: its piece's starts, once
    assert column[6] == "p1r2"
    assert found == [1]
    assert sum(1 for _ in column.find_starts()) == 2  # the other two pieces, a yield each
    assert list(column.find_starts()) == []
    assert found == [1, 1, 1]
    assert list(column.rows_containing("r2", 0, 12)) == [2, 6, 10]
    assert column.texts_of(array("I", [11, 0, 5])) == ["p2r3", "p0r0", "p1r1"]


_TEXTS = st.one_of(st.none(), st.text(alphabet="aAb\0İẞ ", max_size=4))


@settings(max_examples=200, deadline=None)
@given(
    pieces=st.lists(st.lists(_TEXTS, min_size=1, max_size=5), min_size=1, max_size=4),
    needle=st.text(alphabet="ab\0i̇ß", min_size=1, max_size=3),
    found_first=st.booleans(),
)
def test_free_text_reads_back_and_is_found_as_its_values_say(pieces, needle, found_first):
    column = TextColumn()
    for values in pieces:
        column.append(TextColumn.prepare(values, nullable=True))
    if found_first:  # where each value starts, found before (or never for) what follows
        assert list(column.find_starts()) is not None
    values = ["" if value is None else value for piece in pieces for value in piece]
    rows = len(values)
    for read in range(2):  # before and after single rows were read (their pieces' starts)
        for low, high in ((0, rows), (1, rows - 1)):
            assert list(column.rows_containing(needle, low, high)) == [
                row for row in range(low, high) if needle in values[row].lower()
            ]
        assert column.texts_of(array("I", range(rows))) == values
        if read:
            assert column.texts_of(array("I", reversed(range(rows)))) == values[::-1]
        else:
            assert [column[row] for row in range(rows)] == values
            assert [column.value(row) for row in range(rows)] == [v for p in pieces for v in p]


@pytest.mark.parametrize(
    "rows",
    [
        [],
        [0, 1, 2, 3, 4, 5, 6],  # every row, across the three pieces
        [2, 3, 4],  # a run from one piece into the next
        [5],
        [3, 2, 1],  # the rows of a run, not in order
        [6, 0, 4, 4],
    ],
)
def test_the_texts_of_many_rows_are_each_rows_own(rows):
    from array import array

    column = TextColumn()
    column.append(TextColumn.prepare(["Rent", "al car", "İzmir"], nullable=False))
    column.append(TextColumn.prepare(["x", "Rental"], nullable=False))
    column.append(TextColumn.prepare([None, "Ünï"], nullable=True))
    assert column.texts_of(array("I", rows)) == [column[row] for row in rows]


def test_the_collector_pauses_while_nested_and_resumes_after():
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), gc_paused():
        raise RuntimeError
    assert gc.isenabled()


def test_the_chart_keeps_each_days_last_balance_piece_after_piece():
    columns = StatementColumns()
    day_one = [dict(GOOD, id=f"A{n}", balance_after=n) for n in range(3)]
    day_two = [dict(GOOD, id="B", booking_date="2024-03-01", balance_after=7)]
    assert columns.add_parsed(_parse(json.dumps(day_one[:2])))  # one currency
    assert columns.add_parsed(_parse(json.dumps(day_one[2:] + day_two)))
    assert columns.add_parsed(_parse(json.dumps([dict(GOOD, currency="USD")])))  # another
    assert columns.daily_balances("EUR") == [
        (dt.date(2024, 2, 29), 2),
        (dt.date(2024, 3, 1), 7),
    ]
    assert columns.daily_balances("USD") == [(dt.date(2024, 2, 29), -1250)]
    assert columns.main_currency() == "EUR" and columns.currency_counts[0] == 4


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def test_amounts_nested_past_the_recursion_limit_are_left_to_the_model_not_compared():
    """Two equal lists nested deeper than Python recurses: comparing them (a max) would raise
    RecursionError; the columns refuse them as no integers, and take nothing."""
    depth = sys.getrecursionlimit() + 100
    items = [dict(GOOD, id="A", amount=_nested(depth)), dict(GOOD, id="B", amount=_nested(depth))]
    columns = StatementColumns()
    assert not columns.add_parsed(items)
    assert len(columns) == 0 and columns.types.values == []


def test_true_and_false_are_taken_as_the_integers_the_model_reads():
    columns = StatementColumns()
    parsed = _parse(
        json.dumps([dict(GOOD, amount=True), dict(GOOD, amount=0, balance_after=False)])
    )
    assert columns.add_parsed(parsed)
    taken = [columns.daily_balances("EUR")[0][1], columns.balances_high, columns.amounts_high]
    assert taken == [0, 0, 1] and {type(value) for value in taken} == {int}
    assert [type(columns.record(row)["amount"]) for row in range(2)] == [int, int]


def test_a_piece_of_one_currency_keeps_each_days_last_balance_in_any_order():
    """A piece of one day keeps its last record's balance; a piece whose days come back
    (not in booking order) keeps each day's last one all the same."""
    march = "2024-03-01"
    one_day = [dict(GOOD, id=f"A{n}", balance_after=n) for n in (5, 9, 3)]
    days_back = [
        dict(GOOD, id="B1", balance_after=10),
        dict(GOOD, id="B2", booking_date=march, balance_after=20),
        dict(GOOD, id="B3", balance_after=30),
    ]
    for pieces, expected in (
        ([one_day], [(dt.date(2024, 2, 29), 3)]),
        ([days_back], [(dt.date(2024, 2, 29), 30), (dt.date(2024, 3, 1), 20)]),
    ):
        columns = StatementColumns()
        for piece in pieces:
            assert columns.add_plain(_plain(json.dumps(piece).encode()))
        assert columns.daily_balances("EUR") == expected


def test_a_piece_of_several_currencies_keeps_each_ones_last_balance_of_the_day():
    mixed = [
        dict(GOOD, id="1", currency="EUR", balance_after=1),
        dict(GOOD, id="2", currency="USD", balance_after=50),
        dict(GOOD, id="3", currency="EUR", balance_after=2),
        dict(GOOD, id="4", currency="USD", booking_date="2024-03-01", balance_after=60),
        dict(GOOD, id="5", currency="USD", booking_date="2024-03-01", balance_after=70),
    ]
    for take in ("parsed", "validated"):
        columns = StatementColumns()
        if take == "parsed":
            assert columns.add_parsed(_parse(json.dumps(mixed)))
        else:
            columns.add_records(RECORDS.validate_python(mixed))
        assert columns.daily_balances("EUR") == [(dt.date(2024, 2, 29), 2)]
        assert columns.daily_balances("USD") == [
            (dt.date(2024, 2, 29), 50),
            (dt.date(2024, 3, 1), 70),
        ]
        assert columns.daily_balances("GBP") == []
        assert columns.main_currency() == "USD"
        assert (columns.currency_counts[0], columns.currency_counts[1]) == (2, 3)


def test_a_dictionary_column_codes_any_number_of_values_and_refuses_what_is_no_text():
    column = DictionaryColumn(nullable=True)
    assert list(column.encode([])) == []
    assert list(column.encode(["card"])) == [0]  # one value: no tuple of one to unpack
    assert list(column.encode(["card", "sepa", None, "card"])) == [0, 1, 2, 0]
    assert list(column.encode(["sepa"])) == [1]
    assert column.values == ["card", "sepa", None]
    for bad in ([["a", "list"]], [7], ["card", 7.5]):
        with pytest.raises(Unplain):
            column.encode(bad)
    assert column.values == ["card", "sepa", None]  # nothing learnt from a refused piece
    with pytest.raises(Unplain):
        DictionaryColumn(nullable=False).encode(["card", None])


def test_dropped_rows_take_their_values_but_not_the_currencies_or_the_count():
    """A writer streaming the rows on forgets each piece's values (distinct counterparties
    of 900 KB held 1.3 GB), keeping the currencies its balances are kept by, and the count
    of rows taken, which names a wrong record's place in the whole statement."""
    columns = StatementColumns()
    assert columns.add_parsed([GOOD, {**GOOD, "counterparty_name": "Other", "currency": "USD"}])
    columns.drop_rows()
    assert len(columns) == 0 and columns.taken == 2
    assert columns.counterparty_names.values == [] and columns.types.values == []
    assert columns.currencies.values == ["EUR", "USD"]
    assert columns.add_parsed([{**GOOD, "counterparty_name": "Third", "currency": "USD"}])
    assert columns.record(0)["counterparty_name"] == "Third"
    assert columns.record(0)["currency"] == "USD"
    assert columns.taken == 3 and columns.currency_counts == {0: 1, 1: 2}


def test_what_the_rows_hold_is_counted_and_a_value_forgotten_is_not():
    columns = StatementColumns()
    empty = columns.held_bytes
    assert columns.add_parsed([{**GOOD, "description": "x" * 10_000}])
    ascii_held = columns.held_bytes - empty
    assert 10_000 < ascii_held < 12_000
    assert columns.add_parsed([{**GOOD, "description": "\U0001f600" + "x" * 10_000}])
    assert columns.held_bytes - empty - ascii_held > 40_000  # four bytes a letter
    names = columns.counterparty_names
    before = names.held
    names.encode(["a new counterparty " * 10])
    assert names.held > before
    names.forget_after(len(names.values) - 1)
    assert names.held == before
