"""The bank's transitions, driven by an injected clock: accounts, holds and settlement, each
change all-or-nothing."""

import datetime as dt

import pytest

from app.sandbox.banking.state import TRANSITIONS, Bank
from app.sandbox.clock import Clock, Scheduler
from app.sandbox.errors import Refusal

START = dt.datetime(2026, 2, 10, 12, 0, tzinfo=dt.UTC)
DE_IBAN = "DE89370400440532013000"


@pytest.fixture
def bank():
    clock = Clock(frozen_at=START)
    return Bank(Scheduler(clock), settle_seconds=2, review_seconds=5)


def person(bank, reviewed=False):
    details = {"first_name": "Ona", "last_name": "Test", "email": "ona@example.lt"}
    pending = bank.new_client("PERSON", details, "REF-1", reviewed=reviewed)
    assert pending.value.id not in bank.clients  # prepared, not yet there
    pending.commit()
    return pending.value


def account(bank, client):
    pending = bank.open_account(client)
    pending.commit()
    return pending.value


def move(bank, seconds):
    bank.scheduler.clock.advance(dt.timedelta(seconds=seconds))
    return bank.scheduler.run_due()


def test_a_new_client_is_reviewed_after_the_delay(bank):
    client = person(bank)
    assert client.status == "inprogress"
    move(bank, 4.9)
    assert client.status == "inprogress"
    move(bank, 0.1)
    assert client.status == "done"


@pytest.mark.parametrize(
    ("status", "operation", "after"),
    [
        ("active", "disable", "disabled"),
        ("disabled", "enable", "active"),
        ("active", "enable", None),
        ("disabled", "disable", None),
        ("closed", "enable", None),
        ("closed", "close", None),
    ],
)
def test_account_transitions(bank, status, operation, after):
    opened = account(bank, person(bank, reviewed=True))
    opened.status = status
    assert TRANSITIONS.get((operation, status)) == after
    if after is None:
        with pytest.raises(Refusal, match=f"is {status}: cannot {operation} it"):
            bank.operate(opened, operation)
        assert opened.status == status
    else:
        pending = bank.operate(opened, operation)
        assert opened.status == status  # not before the commit
        pending.commit()
        assert opened.status == after


def test_closing_needs_every_balance_at_zero(bank):
    opened = account(bank, person(bank, reviewed=True))
    with pytest.raises(Refusal, match=r"still holds money \(10,000.00 CHF, 10,000.00 EUR, "):
        bank.operate(opened, "close")


def sepa(transfer_id, amount, name="Hans"):
    return {
        "id": transfer_id,
        "amount": amount,
        "recipient_name": name,
        "recipient_iban": DE_IBAN,
        "recipient_country": "DE",
        "recipient_address": "Berlin",
    }


def test_a_transfer_holds_then_settles_amount_and_fee_at_once(bank):
    source = account(bank, person(bank, reviewed=True))
    pending = bank.create_sepa(source, sepa("S1", 10_000))
    assert source.available("EUR") == 1_000_000  # nothing held before the commit
    pending.commit()
    assert source.available("EUR") == 1_000_000 - 10_050
    assert source.ledger.balances["EUR"] == 1_000_000
    move(bank, 1.9)
    assert pending.value.status == "inprogress"
    move(bank, 0.1)
    assert pending.value.status == "done"
    assert pending.value.body["processing_date"] == "2026-02-10T12:00:02Z"
    assert source.holds["EUR"] == 0
    assert source.ledger.balances["EUR"] == 1_000_000 - 10_050
    assert [r["type"] for r in source.ledger.records[-2:]] == ["sepa", "fee"]


def test_a_rejected_transfer_releases_its_hold_and_books_nothing(bank):
    source = account(bank, person(bank, reviewed=True))
    bank.create_sepa(source, sepa("S2", 10_000, name="REJECT me")).commit()
    records = len(source.ledger.records)
    move(bank, 2)
    assert bank.transfers[-1].status == "error"
    assert source.holds["EUR"] == 0 and len(source.ledger.records) == records


def test_a_refused_transfer_changes_nothing(bank):
    source = account(bank, person(bank, reviewed=True))
    with pytest.raises(Refusal, match="Insufficient funds"):
        bank.create_sepa(source, sepa("S3", 2_000_000))
    with pytest.raises(Refusal, match="outside the SEPA area"):
        bank.create_sepa(
            source, {**sepa("S4", 1), "recipient_iban": "BR1500000000000010932840814P2"}
        )
    assert bank.transfers == [] and not any(source.holds.values())
    assert len(bank.scheduler) == 0


def test_an_internal_transfer_books_both_accounts_at_once(bank):
    owner = person(bank, reviewed=True)
    source, target = account(bank, owner), account(bank, owner)
    body = {"id": "I1", "amount": 700, "currency": "GBP", "recipient_iban": target.id}
    pending = bank.create_internal(source, body)
    assert target.ledger.balances["GBP"] == 1_000_000  # not before the commit
    pending.commit()
    assert pending.value.status == "done"
    assert source.ledger.balances["GBP"] == 1_000_000 - 700
    assert target.ledger.balances["GBP"] == 1_000_000 + 700
    with pytest.raises(Refusal, match="already exists"):
        bank.create_internal(source, body)


def test_each_store_refuses_one_more_when_full_and_nothing_changes(bank, monkeypatch):
    from app.sandbox.banking import state

    ona = person(bank, reviewed=True)
    source = account(bank, ona)
    monkeypatch.setattr(state, "MAX_CLIENTS", len(bank.clients))
    monkeypatch.setattr(state, "MAX_ACCOUNTS", len(bank.accounts))
    monkeypatch.setattr(state, "MAX_TRANSFERS", len(bank.transfers))
    monkeypatch.setattr(state, "MAX_ATTACHMENTS", len(bank.attachments))
    attempts = {
        "clients": lambda: bank.new_client("PERSON", {"first_name": "A"}, None),
        "accounts": lambda: bank.open_account(ona),
        "transfers": lambda: bank.create_internal(
            source, {"id": "T1", "amount": 100, "currency": "EUR", "recipient_iban": source.id}
        ),
        "attachments": lambda: bank.add_attachment({"document_type": "license"}, b"scan"),
    }
    for what, attempt in attempts.items():
        with pytest.raises(Refusal, match=rf"holds its most {what} \(\d+\): reset it"):
            attempt()
    assert (len(bank.clients), len(bank.accounts)) == (1, 1)
    assert bank.transfers == [] and bank.attachments == {}
    monkeypatch.setattr(state, "MAX_CLIENTS", 2)  # room again: the number was not used up
    assert bank.new_client("PERSON", {"first_name": "B"}, None).value.id == "C0000002"


def test_an_attachment_id_is_never_one_the_card_masking_would_hide(bank, monkeypatch):
    import uuid

    from app.sandbox.banking import state

    card_shaped, plain = "5589168499054230b0d2a119881db3be", "abcdef12345678900000000000000000"
    made = iter([uuid.UUID(card_shaped), uuid.UUID(plain)])
    monkeypatch.setattr(state.uuid, "uuid4", lambda: next(made))
    attachment = bank.add_attachment({"document_type": "license"}, b"scan").value
    assert attachment["id"] == "ATABCDEF1234567890"
