"""Searching a loaded statement: text, dates and amounts typed, a slice of rows at a time."""

import json

from app.api.banking.columns import StatementColumns
from app.api.banking.statements import _parse
from app.ui.statements.search import Search
from tests.unit.api.banking.test_statement_columns import GOOD


def searched(columns: StatementColumns, text: str) -> list[str]:
    return [columns.ids[row] for row in Search(columns, text).rows(0, len(columns))]


def test_a_search_checks_only_the_distinct_values_its_rows_use():
    columns = StatementColumns()
    names = [f"Shop {n}" for n in range(10_000)]  # each name new: hostile, or a huge statement
    assert columns.add_parsed(
        [dict(GOOD, id=f"ST{n}", counterparty_name=name) for n, name in enumerate(names)]
    )
    search = Search(columns, "shop 99")
    checked_after = []
    found = []
    for low in range(0, 10_000, 1_000):  # as the model searches: a slice at a time
        found += search.rows(low, low + 1_000)
        checked_after.append(search._codes[id(columns.counterparty_names)][1])
    assert checked_after == list(range(1_000, 10_001, 1_000))  # never all 10,000 at once
    assert [columns.ids[row] for row in found] == [
        f"ST{n}" for n, name in enumerate(names) if "shop 99" in name.lower()
    ]
    assert list(search.rows(5, 5)) == []


def test_search_finds_text_dates_and_amounts_typed():
    columns = StatementColumns()
    rows = [
        dict(GOOD, id="A", amount=1250, balance_after=10_000),
        dict(GOOD, id="B", direction="credit", amount=1250, balance_after=11_250),
        dict(GOOD, id="C", amount=125, balance_after=-1250, booking_date="2024-03-01"),
        dict(GOOD, id="D", currency="JPY", amount=1250, balance_after=5, counterparty_name="Wolt"),
    ]
    assert columns.add_parsed(_parse(json.dumps(rows)))
    assert searched(columns, "12.50") == ["A", "B", "C"]  # C: a balance of -12.50
    assert searched(columns, "-12.50") == ["A", "C"]  # debits, and balances below zero
    assert searched(columns, "1,250") == ["D"]  # yen have no decimals
    assert searched(columns, "2024-03") == ["C"]
    assert searched(columns, "WOLT") == ["D"]
    assert searched(columns, "maxima") == ["A", "B", "C"]
    assert searched(columns, "  ") == ["A", "B", "C", "D"]
    assert searched(columns, "nothing like it") == []
