"""The ledger: movements prepared whole, applied in one step, read by date and currency."""

import datetime as dt
import json

import pytest

from app.sandbox.banking.ledger import Ledger, Movement

DAY = dt.date(2026, 3, 2)


def test_a_prepared_booking_changes_nothing_until_applied():
    ledger = Ledger()
    ledger.book(Movement(DAY, "opening", "credit", 10_000, "EUR", "Opening"))
    booking = ledger.prepare(
        Movement(DAY, "sepa", "debit", 2_500, "EUR", "Rent", "Landlord", "LT12", "S1"),
        Movement(DAY, "fee", "debit", 50, "EUR", "Fee", reference="S1"),
    )
    assert ledger.balances == {"EUR": 10_000} and len(ledger.records) == 1
    assert [r["balance_after"] for r in booking.records] == [7_500, 7_450]
    booking.apply()
    assert ledger.balances == {"EUR": 7_450}
    assert [r["id"] for r in ledger.records] == ["ST000000001", "ST000000002", "ST000000003"]
    assert [json.loads(e) for e in ledger.encoded] == ledger.records


def test_a_booking_that_cannot_be_encoded_changes_nothing():
    ledger = Ledger()
    with pytest.raises(ValueError, match="after a booking"):
        ledger.book(
            Movement(DAY, "opening", "credit", 1, "EUR", "x"),
            Movement(DAY - dt.timedelta(days=1), "card", "debit", 1, "EUR", "y"),
        )
    assert ledger.records == [] and ledger.balances == {}


def test_statement_and_balances_by_date_and_currency():
    ledger = Ledger()
    ledger.book(Movement(DAY, "opening", "credit", 1_000, "EUR", "a"))
    ledger.book(Movement(DAY, "opening", "credit", 500, "USD", "b"))
    later = DAY + dt.timedelta(days=3)
    ledger.book(Movement(later, "card", "debit", 100, "EUR", "c"))
    everything = json.loads(ledger.statement_json(DAY, later, None))
    assert [r["description"] for r in everything] == ["a", "b", "c"]
    assert json.loads(ledger.statement_json(later, later, "USD")) == []
    assert ledger.balance_at(DAY, "EUR") == 1_000
    assert ledger.balance_at(later, "EUR") == 900
    assert ledger.balance_at(DAY - dt.timedelta(days=1), "EUR") == 0
