"""The New transfer draft without a window: every limit, what it fills in, the fee's
parameters and the newest answer only, the request of each kind, the confirmation's text,
one transfer per draft. No QApplication: the draft is plain Python."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import uuid

import pytest

from app.api import banking as m
from app.api.errors import ServerError
from app.forms.transfer import TransferDraft
from tests.conftest import make_client, person_body

DE_IBAN = "DE89 3704 0044 0532 0130 00"
SEPA = {
    "amount": "1 234,50",
    "recipient_name": "Hans Muster",
    "recipient_iban": DE_IBAN,
    "recipient_address": "Berlin",
    "description": "Invoice 7",
}


def draft_with(values: dict[str, str], kind: str = "sepa") -> TransferDraft:
    draft = TransferDraft("client-1", "account-1", kind)  # type: ignore[arg-type]
    for key, text in values.items():
        draft.set(key, text)
    return draft


def test_the_forms_load_no_qt():
    probe = (
        "import json, sys\n"
        "import app.forms.transfer, app.forms.order\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'PySide6')))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True
    )
    assert json.loads(result.stdout) == []


@pytest.mark.parametrize(
    ("values", "key", "problem"),
    [
        ({"amount": "0"}, "amount", "From 0.01 EUR to 21,474,836.47 EUR"),
        ({"amount": "21474837"}, "amount", "From 0.01 EUR to 21,474,836.47 EUR"),
        ({"amount": "1.234,5x"}, "amount", "'1.234,5x' is not an amount: use digits"),
        ({"recipient_name": "N" * 71}, "recipient_name", "At most 70 characters (71 now)"),
        ({"description": "D" * 141}, "description", "At most 140 characters (141 now)"),
        ({"recipient_address": "A" * 141}, "recipient_address", "At most 140 characters"),
        ({"recipient_country": "XX"}, "recipient_country", "XX is not a country code: use one"),
        ({"recipient_country": "Germany"}, "recipient_country", "Enter a two-letter country code"),
        ({"ip": "1.2.3"}, "ip", "Enter an IPv4 address like 192.0.2.10"),
        ({"ip": "300.0.0.1"}, "ip", "Enter an IPv4 address like 192.0.2.10"),
        ({"id": "x" * 65}, "id", "At most 64 characters (65 now)"),
        ({"recipient_iban": "DE89 3704 0044 0532 0130 01"}, "recipient_iban", "check digits"),
        (
            {"recipient_iban": "BR15 0000 0000 0000 1093 2840 814P 2"},
            "recipient_iban",
            "An IBAN of Brazil (BR), outside the SEPA area: send it as a World transfer",
        ),
    ],
)
def test_every_limit_is_a_problem_in_the_users_words(values, key, problem):
    draft = draft_with({**SEPA, **values})
    found, _notes = draft.problems()
    assert problem in found[key]
    assert draft.fee_parameters() is None or key not in ("amount", "recipient_iban")


def test_a_whole_sepa_draft_has_no_problem_and_notes_the_bank():
    draft = draft_with(SEPA)
    found, notes = draft.problems()
    assert found == {}
    assert "Commerzbank" in notes["recipient_iban"] or notes["recipient_iban"]
    assert draft.amount() == 123450
    assert draft.value("recipient_country") == "DE"  # filled from the IBAN


def test_every_required_field_is_named_at_once_for_a_world_transfer():
    draft = draft_with({"currency": "EUX", "bic": "COBA"}, "world")
    found, _notes = draft.problems()
    assert found["currency"] == "Enter an ISO 4217 code such as EUR"
    assert found["bic"] == "A BIC has 8 or 11 letters and digits, like COBADEFFXXX"
    assert found["description"] == "Required"
    assert {"amount", "recipient_name", "recipient_account", "recipient_country"} <= set(found)
    draft.world_currencies = ["EUR", "USD"]
    draft.set("currency", "SEK")
    assert draft.problems()[0]["currency"] == "World transfers are made in EUR, USD"


def test_what_the_draft_fills_in_never_overwrites_what_the_user_typed():
    draft = TransferDraft("c", "a")
    assert draft.set("recipient_iban", DE_IBAN) == {"recipient_country": "DE"}
    assert draft.set("recipient_iban", "FR14 2004 1010 0505 0001 3M02 606") == {
        "recipient_country": "FR"  # its own earlier fill is replaced
    }
    draft.set("recipient_country", "LT")  # the user's own
    assert draft.set("recipient_iban", DE_IBAN) == {}
    assert draft.value("recipient_country") == "LT"
    world = TransferDraft("c", "a", "world")
    assert world.set("bic", "COBADEFFXXX") == {"bank": "Commerzbank", "bank_country": "DE"}


def test_the_request_of_each_kind():
    sepa = draft_with(SEPA)
    assert sepa.request() == {
        "id": sepa.value("id"),
        "amount": 123450,
        "recipient_name": "Hans Muster",
        "recipient_iban": "DE89370400440532013000",
        "recipient_country": "DE",
        "recipient_address": "Berlin",
        "description": "Invoice 7",
    }
    world = draft_with(
        {
            **SEPA,
            "currency": "usd",
            "recipient_account": "12345678",
            "recipient_country": "us",
            "bic": "CHAS US33",
            "bank_country": "US",
        },
        "world",
    )
    body = world.request()
    assert body["currency"] == "USD" and body["recipient_country"] == "US"
    assert body["beneficiary_bank"] == {"bic": "CHASUS33", "country": "US"} | (
        {"bank": body["beneficiary_bank"]["bank"]} if "bank" in body["beneficiary_bank"] else {}
    )
    assert body["priority"] == "standard" and body["charges_type"] == "sha"
    internal = draft_with({"amount": "5", "currency": "EUR", "recipient_iban": DE_IBAN}, "internal")
    assert internal.request() == {
        "id": internal.value("id"),
        "amount": 500,
        "currency": "EUR",
        "recipient_iban": "DE89370400440532013000",
    }
    internal.check(internal.request())  # the service layer's own model takes it


def test_the_confirmation_says_what_goes_out():
    draft = draft_with(SEPA)
    text = draft.summary()
    assert text.startswith("Send this SEPA transfer?\n\nRecipient: Hans Muster\n")
    assert "IBAN: DE89 3704 0044 0532 0130 00 (" in text
    assert "Amount: 1,234.50 EUR" in text
    assert "Fee: not known yet (the service applies its tariff)" in text
    assert text.endswith(f"Description: Invoice 7\nTransfer ID: {draft.value('id')}")
    assert "Charges:" not in text  # a SEPA transfer's charges are shared by rule
    draft.set("description", "")
    assert "\nDescription: (none)\n" in draft.summary()


def test_a_world_transfers_confirmation_names_its_charges():
    world = draft_with(
        {
            "amount": "100",
            "currency": "USD",
            "recipient_name": "John Doe",
            "recipient_account": "123456789",
            "recipient_country": "US",
            "recipient_address": "New York",
            "bic": "CHASUS33",
            "charges_type": "our",
            "description": "Parts",
        },
        "world",
    )
    text = world.summary()
    assert "\nCharges: our — the sender pays all\nDescription: Parts\n" in text


async def draft_of_a_new_account(banking) -> TransferDraft:
    person = await banking.create_client(
        m.build(m.ClientCreate, {"client": person_body(external_id=uuid.uuid4().hex[:8])})
    )
    account = await banking.create_account(person.id)
    return TransferDraft(person.id, account.id)


def test_the_fee_is_asked_only_for_valid_input_and_an_older_answer_is_dropped(sandbox):
    async def scenario() -> None:
        banking = make_client(sandbox.url)
        try:
            draft = await draft_of_a_new_account(banking)
            draft.set("amount", "10")
            assert draft.fee_parameters() is None  # no recipient yet
            draft.set("recipient_iban", DE_IBAN)
            parameters = draft.fee_parameters()
            assert parameters == {"amount": 1000, "recipient_iban": "DE89370400440532013000"}
            quote = await draft.ask_fee(banking, parameters)
            assert quote is not None and draft.quote is quote
            totals = draft.totals()
            assert totals is not None and totals.total.startswith("Total to be debited: ")
            assert totals.available == "Available: 10,000.00 EUR"  # a new account's
            assert totals.warning == ""
            draft.set("amount", "10000")
            draft.fee_inputs_changed()
            quote = await draft.ask_fee(banking, draft.fee_parameters() or {})
            totals = draft.totals()
            assert totals is not None
            assert totals.warning.startswith("The total is more than the available balance")

            asking = asyncio.ensure_future(draft.ask_fee(banking, parameters))
            await asyncio.sleep(0)  # the question is on its way
            draft.set("amount", "11")
            draft.fee_inputs_changed()
            assert await asking is None  # the answer for 10.00 is not taken
            assert draft.quote is None and draft.totals() is None
        finally:
            await banking.aclose()

    asyncio.run(scenario())


def test_one_draft_sends_one_transfer_whatever_the_retries(sandbox, admin):
    async def scenario() -> None:
        banking = make_client(sandbox.url)
        try:
            draft = await draft_of_a_new_account(banking)
            for key, text in SEPA.items():
                draft.set(key, text)
            request = draft.request()
            admin.post(
                "/_sandbox/faults",
                json={
                    "status": 500,
                    "count": 1,
                    "mode": "after",
                    "path_contains": "/transfers/sepa",
                },
            )
            with pytest.raises(ServerError):
                await draft.send(banking, "sepa", request)
            key = draft.action.key
            created = await draft.send(banking, "sepa", request)  # Submit again
            assert draft.action.key == key and draft.created is created
            assert draft.reason() == "This transfer was sent: New transfer starts another"
            assert draft.status_text().startswith(f"Transfer {created.id}: ")
            listed = await banking.list_sepa(draft.account_id, m.TransferQuery(limit=10))
            assert [t.id for t in listed] == [created.id]
            draft.start_new()
            assert draft.action.key != key and draft.created is None
            assert draft.value("id") != request["id"]
        finally:
            await banking.aclose()

    asyncio.run(scenario())
