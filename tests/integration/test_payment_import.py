"""A pain.001 file imported into the sandbox over loopback: each payment sent once, whether
the file is imported again, the import was killed after a call went out, or an answer was
lost — and what cannot be sent refused with its reason, nothing sent for it."""

from __future__ import annotations

import io
import uuid

import pytest

from app.api import banking as m
from app.api.banking import TransferQuery
from app.files.pain001 import read_payment_file
from app.forms.import_journal import ImportJournal, read_states
from app.forms.payment_import import plan_import, run_import
from tests.conftest import make_client, person_body, run
from tests.pain_files import payment, payment_file


@pytest.fixture
def debtor(sandbox_url) -> tuple[str, str]:
    """A fresh client's account (10,000.00 EUR): (client, IBAN)."""

    async def create():
        client = make_client(sandbox_url)
        body = {"client": person_body(external_id=uuid.uuid4().hex[:8])}
        person = await client.create_client(m.build(m.ClientCreate, body))
        account = await client.create_account(person.id)
        await client.aclose()
        return person.id, account.iban

    return run(create())


async def import_file(url, data, folder, *, dry_run=False, transport=None, known=True):
    """The plan (knowing what earlier imports did, unless ``known`` is false: then only the
    sending finds it out), and the counts of sending it (None with dry_run)."""
    payment_file_ = read_payment_file(io.BytesIO(data))
    client = make_client(url, transport=transport)
    journal_path = ImportJournal(folder, payment_file_.message_id).path
    try:
        plan = await plan_import(
            client, payment_file_, known=read_states(journal_path) if known else None
        )
        if dry_run:
            return plan, None
        with ImportJournal(folder, payment_file_.message_id) as journal:
            counts = await run_import(client, plan, journal)
        return plan, counts
    finally:
        await client.aclose()


def transfers_of(url, iban) -> list:
    async def listed():
        client = make_client(url)
        try:
            return await client.list_sepa(iban, TransferQuery(limit=100))
        finally:
            await client.aclose()

    return run(listed())


def creates(admin, iban) -> list[dict]:
    return [
        entry
        for entry in admin.get("/_sandbox/requests").json()
        if entry["method"] == "POST"
        and entry["path"] == f"/v1/accounts/{iban}/transfers/sepa"
        and entry["status"] == 200
    ]


def test_a_file_imported_twice_sends_each_payment_once(sandbox_url, debtor, admin, tmp_path):
    _client_id, iban = debtor
    rows = [payment(n) for n in range(1, 6)]
    rows.append(payment(6, IBAN="BR1500000000000010932840814P2"))  # outside SEPA
    data = payment_file(iban, rows, validate=False)
    plan, counts = run(import_file(sandbox_url, data, tmp_path))
    assert [each.fee for each in plan.sendable()] == [50] * 5
    (refused,) = plan.refused_before()
    assert refused.payment.number == 6 and "outside SEPA" in refused.problem
    assert (counts.sent, counts.accepted, counts.refused, counts.unknown) == (5, 5, 0, 0)
    (total,) = plan.totals()
    assert (total.iban, total.payments, total.amount, total.fees) == (iban, 5, 5015, 250)
    again, counts = run(import_file(sandbox_url, data, tmp_path))
    assert (counts.sent, counts.earlier) == (0, 5)
    sent = transfers_of(sandbox_url, iban)
    assert sorted(each.id for each in sent) == sorted(each.transfer_id for each in plan.sendable())
    assert len(creates(admin, iban)) == 5
    outcomes = again.outcomes()
    assert [each.outcome for each in outcomes] == ["accepted"] * 5 + ["refused"]
    assert outcomes[5].reason == refused.problem


def test_an_import_killed_after_a_call_went_out_resumes_without_a_second_transfer(
    sandbox_url, debtor, admin, tmp_path
):
    _client_id, iban = debtor
    data = payment_file(iban, [payment(n) for n in range(1, 4)])
    plan, _ = run(import_file(sandbox_url, data, tmp_path, dry_run=True))
    second = plan.sendable()[1]

    async def went_out_then_killed():
        """What a killed import left: its step on disk, its call carried out."""
        client = make_client(sandbox_url)
        body = m.build(m.SepaTransferCreate, second.request)
        await client.create_sepa(iban, body, request_id=second.transfer_id)
        await client.aclose()
        with ImportJournal(tmp_path, plan.file.message_id) as journal:
            journal.record(second.transfer_id, "sending", account=iban)

    run(went_out_then_killed())
    admin.delete("/_sandbox/requests")
    resumed, counts = run(import_file(sandbox_url, data, tmp_path))
    assert (counts.accepted, counts.refused, counts.unknown) == (3, 0, 0)
    assert resumed.sendable()[1].reason == "accepted before: found by its id"
    assert len(creates(admin, iban)) == 2  # the first and the third: the second was found
    assert len(transfers_of(sandbox_url, iban)) == 3


@pytest.mark.parametrize("mode", ["before", "after"])
def test_a_lost_answer_leaves_the_outcome_unknown_and_the_next_import_settles_it_once(
    sandbox_url, debtor, admin, tmp_path, mode
):
    _client_id, iban = debtor
    data = payment_file(iban, [payment(1), payment(2)])
    path = f"/v1/accounts/{iban}/transfers/sepa"
    # the first create answers 500 (before: not carried out; after: carried out), which is
    # not retried: the outcome is not known
    admin.post(
        "/_sandbox/faults",
        json={"status": 500, "count": 1, "mode": mode, "method": "POST", "path": path},
    )
    plan, counts = run(import_file(sandbox_url, data, tmp_path))
    assert (counts.accepted, counts.unknown) == (1, 1)
    first = plan.sendable()[0]
    assert first.outcome == "unknown" and first.reason.startswith("no answer that tells")
    admin.delete("/_sandbox/faults")
    _again, counts = run(import_file(sandbox_url, data, tmp_path))
    assert (counts.accepted, counts.unknown, counts.earlier) == (1, 0, 1)
    sent = transfers_of(sandbox_url, iban)
    assert sorted(each.id for each in sent) == sorted(each.transfer_id for each in plan.sendable())


def test_a_refusal_by_the_api_is_kept_with_its_words_and_tried_again_next_time(
    sandbox_url, debtor, tmp_path
):
    _client_id, iban = debtor
    data = payment_file(iban, [payment(1, amount=999_999_00)])  # more than the account holds
    plan, counts = run(import_file(sandbox_url, data, tmp_path))
    assert (counts.sent, counts.refused) == (1, 1)
    assert plan.payments[0].reason.startswith("Insufficient funds")
    _again, counts = run(import_file(sandbox_url, data, tmp_path))
    assert counts.refused == 1 and counts.earlier == 0  # asked again, refused again
    assert transfers_of(sandbox_url, iban) == []


def test_a_lost_connection_stops_the_import_and_the_next_one_resumes_there(
    sandbox_url, debtor, tmp_path
):
    import httpx

    class CutAfterFirstCreate(httpx.AsyncBaseTransport):
        """The network, lost after the first transfer was created."""

        def __init__(self) -> None:
            self.real = httpx.AsyncHTTPTransport()
            self.creates = 0

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            if request.method == "POST" and request.url.path.endswith("/transfers/sepa"):
                self.creates += 1
                if self.creates > 1:
                    raise httpx.ConnectError("the network is gone", request=request)
            return await self.real.handle_async_request(request)

        async def aclose(self) -> None:
            await self.real.aclose()

    _client_id, iban = debtor
    data = payment_file(iban, [payment(n) for n in range(1, 4)])
    plan, counts = run(import_file(sandbox_url, data, tmp_path, transport=CutAfterFirstCreate()))
    assert counts.stopped == "the connection was lost at payment 2"
    assert [each.outcome for each in plan.payments] == ["accepted", "unknown", "not sent"]
    assert len(transfers_of(sandbox_url, iban)) == 1
    _again, counts = run(import_file(sandbox_url, data, tmp_path))
    assert (counts.accepted, counts.earlier, counts.stopped) == (2, 1, "")
    sent = transfers_of(sandbox_url, iban)
    assert sorted(each.id for each in sent) == sorted(each.transfer_id for each in plan.sendable())


def test_a_corrected_file_sends_only_what_is_new_and_never_a_payment_twice(
    sandbox_url, debtor, tmp_path
):
    """The customer's file again, with one payment added at the top (no EndToEndIds given),
    and one other payment's amount changed under an EndToEndId already used."""
    _client_id, iban = debtor
    rows = [payment(n, endtoend_id="NOTPROVIDED") for n in (1, 2, 3)]
    rows.append(payment(4))
    first = payment_file(iban, rows)
    plan, counts = run(import_file(sandbox_url, first, tmp_path))
    assert counts.accepted == 4
    message_id = plan.file.message_id
    changed = [payment(9, endtoend_id="NOTPROVIDED"), *rows[:3], payment(4, amount=5555)]
    corrected = payment_file(iban, changed, message_id=message_id)
    sending_finds_it, counts = run(import_file(sandbox_url, corrected, tmp_path, known=False))
    assert (counts.accepted, counts.earlier, counts.checked_out) == (1, 3, 1)
    assert sending_finds_it.payments[4].problem.startswith("an earlier import of this file")
    again, counts = run(import_file(sandbox_url, corrected, tmp_path))
    assert again.file.message_id == message_id
    assert (counts.accepted, counts.earlier, counts.checked_out) == (0, 4, 1)
    outcomes = [each.outcome for each in again.outcomes()]
    assert outcomes == ["accepted", "accepted", "accepted", "accepted", "refused"]
    assert again.payments[4].problem.startswith(
        "an earlier import of this file sent other values under this EndToEndId (10.04 EUR to "
    )
    sent = transfers_of(sandbox_url, iban)
    assert len(sent) == 5 and len({each.id for each in sent}) == 5
    assert sorted(each.amount for each in sent) == [1001, 1002, 1003, 1004, 1009]
