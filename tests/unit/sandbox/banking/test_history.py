"""Generated demo histories: consistent wherever read, and never held whole."""

import datetime as dt
import json
import tracemalloc

import pytest
import yaml

from app.core.resources import OPENAPI_V1
from app.sandbox.banking.history import BLOCK, DemoHistory
from app.sandbox.banking.ledger import Ledger, Movement

SINCE = dt.date(2024, 11, 23)
UNTIL = dt.date(2026, 11, 23)
EVER = (dt.date(2000, 1, 1), dt.date(2100, 1, 1))


def ledger_with(count: int) -> Ledger:
    ledger = Ledger()
    ledger.book(Movement(SINCE, "opening", "credit", 1_000, "USD", "Opening"))
    ledger.book(Movement(SINCE, "opening", "credit", 50_000_000, "EUR", "Opening"))
    ledger.add_history(DemoHistory(len(ledger), SINCE, UNTIL, count, 7, 50_000_000), "EUR")
    return ledger


def test_records_are_a_consistent_statement_and_the_balances_follow():
    ledger = ledger_with(3 * BLOCK + 17)
    records = json.loads(ledger.statement_json(*EVER, None))
    assert len(records) == len(ledger) == 3 * BLOCK + 19
    assert [r["id"] for r in records[:3]] == ["ST000000001", "ST000000002", "ST000000003"]
    assert records[-1]["id"] == f"ST{len(records):09d}"
    running: dict[str, int] = {}
    for record in records:
        signed = record["amount"] if record["direction"] == "credit" else -record["amount"]
        assert record["amount"] > 0
        running[record["currency"]] = running.get(record["currency"], 0) + signed
        assert record["balance_after"] == running[record["currency"]]
    assert running == ledger.balances
    days = [r["booking_date"] for r in records]
    assert days == sorted(days) and days[-1] == "2026-11-22"
    kinds = {r["type"] for r in records}
    assert {"card", "sepa", "internal", "interest"} <= kinds
    assert any(r["description"] == "Salary" for r in records)
    assert records[0]["reference"] is None and records[2]["reference"] == "TX0000000"


def test_generated_records_have_the_keys_of_booked_ones_in_the_schemas_order():
    """As a server writes them (and the client's fast path reads them fastest)."""
    spec = yaml.safe_load(OPENAPI_V1.read_text(encoding="utf-8"))
    order = list(spec["components"]["schemas"]["AccountStatementModel"]["properties"])
    records = json.loads(ledger_with(BLOCK).statement_json(*EVER, None))
    assert list(records[0]) == order  # booked
    generated = records[2:]
    assert {tuple(record) for record in generated} == {tuple(order)}
    # with a counterparty and without (interest), and text that is not ASCII
    assert {r["counterparty_name"] is None for r in generated} == {True, False}
    assert any(r["counterparty_name"] == "Amazon EU S.à r.l." for r in generated)


def test_any_period_reads_the_same_records_as_the_whole():
    ledger = ledger_with(2 * BLOCK + 5)
    whole = json.loads(ledger.statement_json(*EVER, None))
    day = dt.date(2025, 6, 1)
    part = json.loads(ledger.statement_json(day, day + dt.timedelta(days=40), None))
    expected = [r for r in whole if day.isoformat() <= r["booking_date"] <= "2025-07-11"]
    assert part == expected and len(part) > 100
    assert json.loads(ledger.statement_json(day, day, "USD")) == []
    # the balance of a day is the last record's of that day, whichever block it is in
    last = [r for r in whole if r["booking_date"] <= "2025-06-01" and r["currency"] == "EUR"]
    assert ledger.balance_at(day, "EUR") == last[-1]["balance_after"]
    assert ledger.balance_at(day, "USD") == 1_000
    assert ledger.balance_at(SINCE - dt.timedelta(days=1), "EUR") == 0


def test_bookings_after_a_history_continue_it():
    ledger = ledger_with(BLOCK)
    before = ledger.balances["EUR"]
    with pytest.raises(ValueError, match="after a booking on 2026-11-22"):
        ledger.book(Movement(dt.date(2026, 11, 1), "card", "debit", 1, "EUR", "late"))
    ledger.book(Movement(UNTIL, "card", "debit", 250, "EUR", "Coffee"))
    records = json.loads(ledger.statement_json(UNTIL, UNTIL, "EUR"))
    assert records[-1]["id"] == f"ST{BLOCK + 3:09d}"
    assert records[-1]["balance_after"] == before - 250 == ledger.balances["EUR"]


def streamed_peak(count: int) -> int:
    ledger = ledger_with(count)
    ledger.balances  # noqa: B018 - the history's sums, computed before measuring
    tracemalloc.start()
    for _chunk in ledger.statement_chunks(*EVER, None, batch=1000):
        pass
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


@pytest.mark.slow
def test_sending_a_statement_holds_one_piece_however_long_the_period():
    small, large = streamed_peak(5_000), streamed_peak(30_000)  # six times as long
    assert large < small * 1.5 and large < 4 * 1024 * 1024


def test_a_statement_is_sent_in_pieces_a_stalled_reader_holds_little_of():
    """A reader who stops reading holds the piece under way in the server's memory: 8,192
    records a piece made a few hundred such readers hold gigabytes; a piece is now under
    600 kB, and the pieces are the whole statement."""
    ledger = ledger_with(3 * BLOCK + 17)
    pieces = list(ledger.statement_chunks(*EVER, None))
    assert max(len(piece) for piece in pieces) < 600_000
    assert len(pieces) > 6  # the history's 12,305 records: more than one piece a block
    assert b"".join(pieces) == ledger.statement_json(*EVER, None)


def test_blocks_kept_for_the_next_pieces_are_the_blocks_made_anew():
    history = DemoHistory(0, SINCE, UNTIL, 20 * BLOCK, 7, 50_000_000)
    fresh = DemoHistory(0, SINCE, UNTIL, 20 * BLOCK, 7, 50_000_000)
    order = [3, 3, 0, 19, 3, *range(20), 5]  # kept, made again after being let go
    for block in order:
        assert history.movements(block) == fresh._made(block)
    assert history.movements(19) is history.movements(19)  # kept: not made twice in a row
