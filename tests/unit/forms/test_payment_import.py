"""Each payment of a file checked before anything is sent: every reason at once, each limit
named; the transfer's id the same wherever the file is imported; the journal on disk."""

from __future__ import annotations

import io

import pytest

from app.files.pain001 import read_payment_file
from app.forms.import_journal import ImportJournal, JournalBusy, read_states
from app.forms.payment_import import DebtorAccount, check_payment, minor_amount, transfer_id_of
from tests.pain_files import payment, payment_file

DEBTOR = "LT324010000000000002"
ACCOUNTS = {DEBTOR: DebtorAccount("C0000002", DEBTOR, DEBTOR, "active", ("EUR",))}


def planned(replace: tuple[str, str] = ("", ""), **changes):
    """The first payment checked; ``replace`` edits the file's text (the library would cut a
    name to 70 characters)."""
    data = payment_file(DEBTOR, [payment(1, **changes)], validate=False)
    data = data.replace(replace[0].encode(), replace[1].encode()) if replace[0] else data
    (read,) = read_payment_file(io.BytesIO(data)).payments
    return check_payment(read, "id-1", ACCOUNTS)


def test_a_good_payment_becomes_the_sepa_transfer_the_contract_takes():
    each = planned()
    assert each.sendable and each.problem == ""
    assert each.request == {
        "id": "id-1",
        "amount": 1001,
        "recipient_name": "Hans Muster 1",
        "recipient_iban": "DE89370400440532013000",
        "recipient_country": "DE",
        "recipient_address": "Friedrichstr. 10, 10117 Berlin",
        "description": "Invoice 1",
    }


def test_without_a_postal_address_the_country_comes_from_the_iban_and_names_the_address():
    each = planned(address={})
    assert each.request["recipient_country"] == "DE"
    assert each.request["recipient_address"] == "Germany"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("12.345", "the amount 12.345 has more than 2 decimals (EUR has 2)"),
        ("-1.00", "the amount -1.00 is negative"),
        ("0.00", "the amount 0.00 is zero: at least 0.01"),
        ("21474836.48", "the amount 21474836.48 is over the most a transfer can be"),
        ("abc", "the amount 'abc' is not a decimal number like 1234.50"),
        ("1e3", "the amount '1e3' is not a decimal number like 1234.50"),
        ("NaN", "the amount 'NaN' is not a decimal number like 1234.50"),
    ],
)
def test_an_amount_the_api_cannot_take_is_said(text, said):
    assert str(minor_amount(text, "EUR")).startswith(said)


def test_every_reason_a_payment_is_refused_is_said_at_once_naming_each_limit():
    address = {"country": "ZZ", "lines": ["A" * 70, "B" * 70]}  # joined: 142 characters
    each = planned(("Hans Muster 1", "N" * 71), address=address)
    assert not each.sendable and each.request is None
    assert each.problem == (
        "the creditor's name (Cdtr/Nm), the transfer's recipient_name: at most 70 characters "
        "(71 now); the creditor's address (Cdtr/PstlAdr), the transfer's recipient_address: "
        "at most 140 characters (142 now); the creditor's country 'ZZ' is no ISO 3166 country "
        "code"
    )


def test_another_currency_or_an_account_not_the_partners_is_refused():
    other = planned(IBAN="DE89370400440532013000")
    assert other.sendable
    data = payment_file("LT000000000000000000", [payment(1)], validate=False)
    (read,) = read_payment_file(io.BytesIO(data)).payments
    assert check_payment(read, "x", ACCOUNTS).problem.startswith(
        "the debtor account LT000000000000000000 is not one of the partner's accounts"
    )
    usd = payment_file(DEBTOR, [payment(1)], validate=False).replace(b'Ccy="EUR"', b'Ccy="USD"')
    (read,) = read_payment_file(io.BytesIO(usd)).payments
    assert check_payment(read, "x", ACCOUNTS).problem == (
        "a SEPA transfer is in EUR; this payment is in USD"
    )
    disabled = {DEBTOR: DebtorAccount("C0000002", DEBTOR, DEBTOR, "disabled", ("EUR",))}
    assert check_payment(read, "x", disabled).problem.startswith(
        f"the debtor account {DEBTOR} is disabled"
    )


def test_a_creditor_iban_outside_sepa_or_invalid_is_said_in_words():
    assert planned(IBAN="BR1500000000000010932840814P2").problem == (
        "the creditor IBAN BR1500000000000010932840814P2 is of Brazil, outside SEPA"
    )
    assert planned(IBAN="DE89370400440532013001").problem.startswith(
        "Invalid IBAN DE89370400440532013001: the check digits do not match"
    )


def test_the_transfer_id_is_the_same_for_the_same_file_and_payment_only():
    first = transfer_id_of("MSG-1", DEBTOR, "E2E-1")
    assert first == transfer_id_of("MSG-1", DEBTOR, "E2E-1") and len(first) == 32
    assert first != transfer_id_of("MSG-1", DEBTOR, "E2E-2")
    assert first != transfer_id_of("MSG-2", DEBTOR, "E2E-1")
    assert first != transfer_id_of("MSG-1", "LT594010000000000001", "E2E-1")


def test_the_journal_keeps_each_step_a_torn_line_is_skipped_and_one_import_at_a_time(tmp_path):
    journal = ImportJournal(tmp_path, "MSG-1")
    with journal:
        journal.record("a", "sending")
        journal.record("a", "accepted", status="done")
        journal.record("b", "sending")
        with pytest.raises(JournalBusy), ImportJournal(tmp_path, "MSG-1"):
            pass
    with journal.path.open("a", encoding="utf-8") as handle:
        handle.write('{"key": "c", "sta')  # a crash in the middle of a line
    states = read_states(journal.path)
    assert {key: entry["state"] for key, entry in states.items()} == {
        "a": "accepted",
        "b": "sending",
    }
    with ImportJournal(tmp_path, "MSG-1") as again:  # free once the first is closed
        assert again.state("a") == "accepted" and again.state("b") == "sending"
