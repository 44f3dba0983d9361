"""The service layer against the real sandbox on loopback: every operation."""

import datetime as dt
import json
import re
import threading
import uuid
from pathlib import Path

import httpx
import pytest

from app.api import banking as m
from app.api.banking import TransferQuery
from app.api.errors import BadRequest, RequestTimeout, ServerError, Unauthorized
from app.sandbox.banking.demo import DEMO_COMPANY_ID, DEMO_PERSON_ID
from tests.conftest import advance, company_body, make_client, person_body, run

DE_IBAN = "DE89370400440532013000"


def unique() -> str:
    return uuid.uuid4().hex[:8]


async def new_person(client, **changes):
    return await client.create_client(m.build(m.ClientCreate, {"client": person_body(**changes)}))


def test_healthcheck_and_iban_check(sandbox_url):
    async def scenario():
        client = make_client(sandbox_url)
        assert (await client.healthcheck()).result == "ok"
        data = await client.iban_check("DE89 3704 0044 0532 0130 00")
        assert (data.bic, data.bank, data.country, data.sepa) == (
            "COBADEFFXXX",
            "Commerzbank",
            "DE",
            True,
        )
        with pytest.raises(BadRequest) as caught:
            await client.iban_check("DE89370400440532013001")
        assert caught.value.title == "Invalid IBAN"
        assert "check digits" in caught.value.failure_message
        assert caught.value.error_id
        await client.aclose()

    run(scenario())


def test_401_with_wrong_password_carries_the_error_body(sandbox_url):
    async def scenario():
        client = make_client(sandbox_url, password="wrong")
        with pytest.raises(Unauthorized) as caught:
            await client.list_clients()
        assert caught.value.title == "Unauthorized"
        assert caught.value.has_error_body
        # the open operations still work without valid credentials
        assert (await client.healthcheck()).result == "ok"
        await client.aclose()

    run(scenario())


def test_v1_client_create_list_update(sandbox_url):
    async def scenario():
        client = make_client(sandbox_url)
        tag = unique()
        created = await new_person(client, email=f"{tag}@example.lt", external_id=tag)
        assert created.client.create_date == dt.date.today()
        found = await client.list_clients(filter=f'external_id[eq]"{tag}"')
        assert [c.id for c in found] == [created.id]
        updated = await client.update_client(
            created.id, m.build(m.ClientUpdate, {"client": {"last_name": "Renamed"}})
        )
        assert updated.client.last_name == "Renamed"
        assert updated.client.email == f"{tag}@example.lt"  # omitted: kept
        with pytest.raises(BadRequest, match="Client C9999999 not found"):
            await client.update_client("C9999999", m.build(m.ClientUpdate, {"client": {}}))
        await client.aclose()

    run(scenario())


def test_idempotent_replay_creates_nothing_twice(sandbox_url, bank):
    async def scenario():
        client = make_client(sandbox_url)
        body = m.build(m.ClientCreate, {"client": person_body(external_id=unique())})
        before = len(bank.clients)
        first = await client.create_client(body, request_id="replay-1-" + unique())
        request_id = client.transport.last_request_id
        again = await client.create_client(body, request_id=request_id)
        assert again == first
        assert len(bank.clients) == before + 1
        other = m.build(m.ClientCreate, {"client": person_body(external_id="different")})
        with pytest.raises(BadRequest) as caught:
            await client.create_client(other, request_id=request_id)
        assert caught.value.title == "Duplicate request"
        assert "already used for a different request" in caught.value.failure_message
        assert len(bank.clients) == before + 1
        await client.aclose()

    run(scenario())


def test_408_is_retried_with_the_same_request_id_at_the_sandbox(sandbox_url, admin):
    admin.post("/_sandbox/faults", json={"status": 408, "count": 2, "path_contains": "/v1/clients"})

    async def scenario():
        client = make_client(sandbox_url)
        created = await new_person(client, external_id=unique())
        await client.aclose()
        return created

    created = run(scenario())
    posts = [e for e in admin.get("/_sandbox/requests").json() if e["method"] == "POST"]
    assert [e["status"] for e in posts] == [408, 408, 200]
    assert len({e["request_id"] for e in posts}) == 1
    assert created.id


def test_408_after_the_action_replays_instead_of_creating_twice(sandbox_url, admin, bank):
    admin.post(
        "/_sandbox/faults",
        json={"status": 408, "count": 1, "mode": "after", "path_contains": "/v1/clients"},
    )
    before = len(bank.clients)

    async def scenario():
        client = make_client(sandbox_url)
        created = await new_person(client, external_id=unique())
        await client.aclose()
        return created

    created = run(scenario())
    assert len(bank.clients) == before + 1
    assert bank.clients[created.id].details["external_id"] == created.client.external_id


def test_408_exhausted_and_500(sandbox_url, admin):
    admin.post(
        "/_sandbox/faults", json={"status": 408, "count": 5, "path_contains": "/healthcheck"}
    )

    async def timeouts():
        client = make_client(sandbox_url)
        with pytest.raises(RequestTimeout) as caught:
            await client.healthcheck()
        await client.aclose()
        return caught.value

    error = run(timeouts())
    assert error.title == "Request timeout" and error.has_error_body
    admin.post("/_sandbox/faults", json={"status": 500, "count": 1})

    async def server_error():
        client = make_client(sandbox_url)
        with pytest.raises(ServerError) as caught:
            await client.list_clients()
        await client.aclose()
        return caught.value

    failure = run(server_error())
    assert failure.status == 500 and failure.title == "Internal error"


def test_paging_and_filters(sandbox_url):
    async def scenario():
        client = make_client(sandbox_url)
        first = await client.list_clients(limit=20)
        second = await client.list_clients(offset=20, limit=20)
        assert len(first) == 20 and len(second) == 20
        assert not {c.id for c in first} & {c.id for c in second}
        assert len(await client.list_clients()) == 20  # the documented default page size
        by_date = await client.list_clients(
            filter='create_date[lte]2000-01-01 or email[like]"anna.000@%"', limit=100
        )
        assert [c.id for c in by_date] == [DEMO_PERSON_ID]
        v2 = await client.list_clients_v2(limit=100)
        assert {c.client_type for c in v2} == {"PERSON", "COMPANY"}
        assert all(c.client_type == "PERSON" for c in await client.list_clients(limit=100))
        await client.aclose()

    run(scenario())


def test_sandbox_refuses_bad_query_with_a_clear_400(admin):
    auth = ("demo", "demo")
    headers = {"x-partner-code": "PD"}
    for params, text in [
        ({"limit": "0"}, "limit: must be an integer from 1 to 100"),
        ({"limit": "abc"}, "limit: must be an integer from 1 to 100"),
        ({"offset": "2147483648"}, "offset: must be an integer from 0 to 2147483647"),
        ({"filter": 'phone[eq]"1"'}, "'phone' cannot be filtered"),
    ]:
        response = admin.get("/v1/clients", params=params, auth=auth, headers=headers)
        assert response.status_code == 400
        assert text in response.json()["failure_message"]
    missing = admin.get("/v1/clients", auth=auth)
    assert missing.status_code == 400
    assert missing.json()["failure_message"] == "x-partner-code: the header is required"
    no_id = admin.post("/v1/clients", auth=auth, headers=headers, json={})
    assert no_id.json()["failure_message"] == (
        "x-request-id: the header is required for create and update"
    )
    long_id = admin.post(
        "/v1/clients", auth=auth, headers={**headers, "x-request-id": "r" * 65}, json={}
    )
    assert long_id.json()["failure_message"] == "x-request-id: at most 64 characters (65 now)"


def test_v2_companies_and_partial_update_semantics(sandbox_url, admin):
    async def scenario():
        client = make_client(sandbox_url)
        created = await client.create_client_v2(
            m.build(
                m.ClientV2Create,
                {
                    "external_reference": "REG-" + unique(),
                    "client_type": "COMPANY",
                    "company": company_body(vat_number="LT1"),
                },
            )
        )
        assert (created.kind, created.status) == ("corporate", "inprogress")
        company = created.company
        assert company is not None and company.site_info is not None
        # omitted keeps, explicit null clears, {} changes nothing
        same = await client.update_client_v2(
            created.id, m.build(m.ClientV2Update, {"client_type": "COMPANY", "company": {}})
        )
        assert same.company == company
        cleared = await client.update_client_v2(
            created.id,
            m.build(
                m.ClientV2Update,
                {"client_type": "COMPANY", "company": {"vat_number": None, "name": "Renamed UAB"}},
            ),
        )
        assert cleared.company.vat_number is None
        assert cleared.company.name == "Renamed UAB"
        assert cleared.company.email == company.email
        codes = await client.nace_codes()
        assert any(c.code == "62.01" for c in codes)
        await client.aclose()
        return created.id

    client_id = run(scenario())
    auth, headers = ("demo", "demo"), {"x-partner-code": "PD"}
    for body, text in [
        (
            {"client_type": "COMPANY", "company": {"site_info": {}}},
            "company.site_info: is read-only and cannot be sent",
        ),
        (
            {"client_type": "COMPANY", "company": {}, "status": "done"},
            "status: is read-only and cannot be sent",
        ),
        (
            {"client_type": "COMPANY", "company": {"email": None}},
            "company.email: is required and cannot be cleared with null",
        ),
        (
            {"client_type": "COMPANY", "company": {"nace_code": "99.99"}},
            "company.nace_code: 99.99 is not an allowed NACE code",
        ),
        (
            {"client_type": "PERSON", "person": {}},
            f"client_type: client {client_id} is a COMPANY, not a PERSON",
        ),
    ]:
        response = admin.put(
            f"/v2/clients/{client_id}",
            json=body,
            auth=auth,
            headers={**headers, "x-request-id": unique()},
        )
        assert response.status_code == 400, body
        assert response.json()["failure_message"] == text


def test_accounts_operations_change_what_the_account_allows(sandbox_url):
    async def scenario():
        client = make_client(sandbox_url)
        person = await new_person(client, external_id=unique())
        account = await client.create_account(person.id)
        assert (account.type, account.status, account.iban, account.bic) == (
            "payment",
            "active",
            account.id,
            "AGBLLT2XXXX",
        )
        assert [a.id for a in await client.list_accounts(person.id)] == [account.id]
        assert await client.get_account(person.id, account.id) == account
        balances = {b.currency: b.balance for b in await client.get_balance(person.id, account.id)}
        assert balances["EUR"] == 1_000_000 and balances["JPY"] == 1_000_000
        assert (
            await client.account_operation(person.id, account.id, "disable")
        ).result == "disabled"
        sepa = m.build(
            m.SepaTransferCreate,
            {
                "id": "S-" + unique(),
                "amount": 100,
                "recipient_name": "Hans",
                "recipient_iban": DE_IBAN,
                "recipient_country": "DE",
                "recipient_address": "Berlin",
            },
        )
        with pytest.raises(BadRequest, match="is disabled: it cannot send transfers"):
            await client.create_sepa(account.id, sepa)
        with pytest.raises(BadRequest, match="is disabled: cannot disable it"):
            await client.account_operation(person.id, account.id, "disable")
        assert (await client.account_operation(person.id, account.id, "enable")).result == "active"
        with pytest.raises(BadRequest, match="still holds money"):
            await client.account_operation(person.id, account.id, "close")
        with pytest.raises(BadRequest, match="not found"):
            await client.get_account(DEMO_COMPANY_ID, account.id)
        await client.aclose()

    run(scenario())


def test_transfers_move_balances_and_settle(sandbox_url):
    async def scenario():
        client = make_client(sandbox_url)
        person = await new_person(client, external_id=unique())
        account = await client.create_account(person.id)
        other = await client.create_account(person.id)
        quote = await client.sepa_fee(
            account.id, m.SepaFeeParameters(amount=10_000, recipient_iban=DE_IBAN)
        )
        assert quote.fee.amount == 50 and quote.parameters["priority"] == "standard"
        sepa = await client.create_sepa(
            account.id,
            m.build(
                m.SepaTransferCreate,
                {
                    "id": "S1",
                    "amount": 10_000,
                    "recipient_name": "Hans",
                    "recipient_iban": DE_IBAN,
                    "recipient_country": "DE",
                    "recipient_address": "Berlin",
                },
            ),
        )
        assert sepa.status == "inprogress" and sepa.fee.amount == 50
        assert sepa.beneficiary_bank.bic == "COBADEFFXXX"
        eur = (await client.get_balance(person.id, account.id, currency="EUR"))[0]
        assert (eur.balance, eur.available) == (1_000_000, 1_000_000 - 10_050)
        rejected = await client.create_world(
            account.id,
            m.build(
                m.WorldTransferCreate,
                {
                    "id": "W1",
                    "amount": 50_000,
                    "currency": "USD",
                    "charges_type": "sha",
                    "description": "Invoice 7",
                    "recipient_name": "REJECT Corp",
                    "recipient_account": "12345",
                    "recipient_country": "US",
                    "recipient_address": "NY",
                    "beneficiary_bank": {"bic": "CHASUS33", "country": "US"},
                },
            ),
        )
        assert rejected.fee.amount == 1000  # 10 USD minimum
        internal = await client.create_internal(
            account.id,
            m.build(
                m.InternalTransferCreate,
                {
                    "id": "I1",
                    "amount": 700,
                    "currency": "GBP",
                    "recipient_iban": other.id,
                    "description": "ignored between own accounts",
                },
            ),
        )
        assert internal.status == "done" and internal.description is None
        assert (await client.list_sepa(account.id))[0].status == "inprogress"
        advance(sandbox_url, 2)  # the settle delay
        assert (await client.list_sepa(account.id, TransferQuery(id="S1")))[0].status == "done"
        assert (await client.list_world(account.id))[0].status == "error"
        balances = {b.currency: b for b in await client.get_balance(person.id, account.id)}
        assert balances["EUR"].balance == 1_000_000 - 10_050
        assert balances["USD"].balance == balances["USD"].available == 1_000_000
        assert balances["GBP"].balance == 1_000_000 - 700
        received = await client.get_balance(person.id, other.id, currency="GBP")
        assert received[0].balance == 1_000_700
        with pytest.raises(BadRequest, match="a transfer S1 already exists"):
            await client.create_sepa(
                account.id,
                m.build(
                    m.SepaTransferCreate,
                    {
                        "id": "S1",
                        "amount": 1,
                        "recipient_name": "H",
                        "recipient_iban": DE_IBAN,
                        "recipient_country": "DE",
                        "recipient_address": "B",
                    },
                ),
            )
        with pytest.raises(BadRequest, match="Insufficient funds"):
            await client.create_internal(
                account.id,
                m.build(
                    m.InternalTransferCreate,
                    {
                        "id": "I2",
                        "amount": 2_000_000,
                        "currency": "GBP",
                        "recipient_iban": other.id,
                    },
                ),
            )
        today = dt.date.today()
        statement = await client.get_statement(person.id, account.id, today, today, currency="EUR")
        assert [(r["type"], r["direction"], r["amount"]) for r in statement] == [
            ("opening", "credit", 1_000_000),
            ("sepa", "debit", 10_000),
            ("fee", "debit", 50),
        ]
        assert statement[-1]["balance_after"] == 1_000_000 - 10_050
        assert await client.list_internal(other.id) == []
        assert (await client.world_currencies(account.id)).currencies[0] == "EUR"
        quote = await client.world_fee(
            account.id,
            m.WorldFeeParameters(
                amount=1_000, currency="JPY", charges_type="our", priority="urgent"
            ),
        )
        assert quote.fee.amount == 10 + 20 + 15  # 10 JPY minimum, exponent 0
        assert (
            await client.internal_fee(account.id, m.InternalFeeParameters(amount=5, currency="EUR"))
        ).fee.amount == 0
        filtered = await client.list_sepa(
            account.id, TransferQuery(filter=f"processing_date[eq]{today}")
        )
        assert [t.id for t in filtered] == ["S1"]
        await client.aclose()

    run(scenario())


def test_attachment_upload_and_replay(sandbox_url, bank):
    async def scenario():
        client = make_client(sandbox_url)
        metadata = m.AttachmentMetadata(
            document_type="license", country="LT", issued_at=dt.date(2020, 1, 1)
        )
        first = await client.create_attachment(
            metadata, b"%PDF-1.4 scan", filename="l.pdf", request_id="att-" + unique()
        )
        assert first.metadata == {
            "document_type": "license",
            "country": "LT",
            "issued_at": "2020-01-01",
        }
        assert first.expired_at.endswith("Z") and len(first.expired_at) == 20
        count = len(bank.attachments)
        again = await client.create_attachment(
            metadata,
            b"%PDF-1.4 scan",
            filename="l.pdf",
            request_id=client.transport.last_request_id,
        )
        assert again == first and len(bank.attachments) == count
        await client.aclose()

    run(scenario())


def test_a_statement_of_100000_records_adds_up(sandbox_url):
    # how fast it is served is measured by make bench (statement_100k), not here
    async def scenario():
        client = make_client(sandbox_url)
        account = (await client.list_accounts(DEMO_PERSON_ID))[0]
        records = await client.get_statement(
            DEMO_PERSON_ID, account.id, dt.date(2000, 1, 1), dt.date(2100, 12, 31)
        )
        await client.aclose()
        return records

    records = run(scenario())
    assert len(records) >= 100_000
    # the balances in the statement add up
    running = 0
    for record in records:
        if record["currency"] == "EUR":
            amount = record["amount"]
            running += amount if record["direction"] == "credit" else -amount
            assert record["balance_after"] == running


def test_raw_requests_get_the_error_body_for_every_refusal(admin):
    auth, headers = ("demo", "demo"), {"x-partner-code": "PD", "x-request-id": unique()}
    cases = [
        admin.post("/v1/clients", content=b"{bad json", auth=auth, headers=headers),
        admin.post(
            "/v1/clients",
            json={"client_type": "PERSON", "client": person_body(create_date="2020-01-01")},
            auth=auth,
            headers={**headers, "x-request-id": unique()},
        ),
        admin.get(
            "/v1/clients/C0000001/accounts/X/statement",
            params={"date_from": "2024-01-02", "date_to": "2024-01-01"},
            auth=auth,
            headers=headers,
        ),
        admin.get("/v1/service/iban/XX00"),
    ]
    ids = set()
    for response in cases:
        assert response.status_code == 400
        body = response.json()
        assert set(body) == {"failure_message", "detail"}
        assert set(body["detail"]) == {"error_id", "title"}
        ids.add(body["detail"]["error_id"])
    assert len(ids) == len(cases)
    assert (
        cases[1].json()["failure_message"] == "client.create_date: is read-only and cannot be sent"
    )


def test_client_review_status_moves_on(sandbox_url, bank):
    async def scenario():
        client = make_client(sandbox_url)
        created = await client.create_client_v2(
            m.build(
                m.ClientV2Create,
                {
                    "external_reference": "R-" + unique(),
                    "client_type": "PERSON",
                    "person": person_body(external_id=unique()),
                },
            )
        )
        assert created.status == "inprogress"
        by_id = f'external_id[eq]"{created.person.external_id}"'
        assert (await client.list_clients_v2(filter=by_id))[0].status == "inprogress"
        advance(sandbox_url, 4.9)
        assert (await client.list_clients_v2(filter=by_id))[0].status == "inprogress"
        advance(sandbox_url, 0.1)  # the review takes 5 seconds, on the sandbox's clock
        listed = await client.list_clients_v2(filter=by_id)
        await client.aclose()
        return listed

    listed = run(scenario())
    assert listed[0].status == "done"


def test_unknown_path_is_a_404_with_the_error_body(admin):
    response = admin.get("/v1/nothing")
    assert response.status_code == 404
    assert response.json()["detail"]["title"] == "Not found"
    assert isinstance(response, httpx.Response)


def test_the_readme_minimal_bodies_are_accepted(admin):
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    person, company = (
        json.loads(block) for block in re.findall(r"```json\n(.*?)```", readme, re.S)
    )
    auth, headers = ("demo", "demo"), {"x-partner-code": "PD"}
    created = admin.post(
        "/v1/clients", json=person, auth=auth, headers={**headers, "x-request-id": unique()}
    )
    assert created.status_code == 200, created.text
    created = admin.post(
        "/v2/clients", json=company, auth=auth, headers={**headers, "x-request-id": unique()}
    )
    assert created.status_code == 200, created.text
    assert created.json()["kind"] == "corporate"


def test_statement_streams_in_batches_equal_to_the_whole(sandbox_url):
    async def scenario():
        client = make_client(sandbox_url)
        account = (await client.list_accounts(DEMO_PERSON_ID))[0]
        start, end = dt.date(2000, 1, 1), dt.date(2100, 12, 31)
        sizes, columns = [], m.StatementColumns()
        async for added in client.iter_statement(
            DEMO_PERSON_ID, account.id, start, end, into=columns
        ):
            sizes.append(added)
        streamed = [columns.record(row) for row in range(len(columns))]
        whole = await client.get_statement(DEMO_PERSON_ID, account.id, start, end)
        # stopping early closes the connection and leaves the client usable
        async for _added in client.iter_statement(
            DEMO_PERSON_ID, account.id, start, end, into=m.StatementColumns()
        ):
            break
        assert (await client.healthcheck()).result == "ok"
        await client.aclose()
        return sizes, streamed, whole

    sizes, streamed, whole = run(scenario())
    assert streamed == whole
    assert len(streamed) >= 100_000
    assert len(sizes) > 10  # pieces of about 256 KiB


def test_an_empty_update_body_changes_nothing(admin, bank):
    auth, headers = ("demo", "demo"), {"x-partner-code": "PD"}
    before = dict(bank.clients["C0000003"].details)
    for version in ("v1", "v2"):
        response = admin.put(
            f"/{version}/clients/C0000003",
            json={},
            auth=auth,
            headers={**headers, "x-request-id": unique()},
        )
        assert response.status_code == 200, response.text
    assert response.json()["id"] == "C0000003"
    assert bank.clients["C0000003"].details == before


def busy_statement(bank) -> tuple[str, object]:
    """The busy demo account's address and its generated history."""
    account = [a for a in bank.accounts.values() if a.client_id == DEMO_PERSON_ID][1]
    url = f"/v1/clients/{DEMO_PERSON_ID}/accounts/{account.id}/statement"
    return url, account.ledger.segments[-1]


def test_a_long_statement_lets_other_requests_through_and_stops_when_its_reader_goes(
    sandbox_url, bank, monkeypatch
):
    from app.sandbox import http

    url, history = busy_statement(bank)
    made = []
    encoded = history.encoded
    monkeypatch.setattr(history, "encoded", lambda *a: made.append(1) or encoded(*a))
    ended = threading.Event()  # the answer's pieces stopped being made, whatever the cause
    paced = http._paced

    async def watched(chunks, making):
        try:
            async for chunk in paced(chunks, making):
                yield chunk
        finally:
            ended.set()

    monkeypatch.setattr(http, "_paced", watched)
    params = {"date_from": "2000-01-01", "date_to": "2100-12-31"}
    headers = {"x-partner-code": "PD"}
    with httpx.Client(base_url=sandbox_url, auth=("demo", "demo"), timeout=30) as reader:
        with reader.stream("GET", url, params=params, headers=headers) as answer:
            chunks = answer.iter_raw()
            next(chunks)
            # another connection is served while the statement is still being made
            assert reader.get("/v1/healthcheck").status_code == 200
            assert not ended.is_set()
            for _ in range(20):
                next(chunks)
        # the reader is gone after a few pieces of 123: the rest is never made
        assert ended.wait(30)
    assert len(made) < 60


def test_a_statement_is_read_in_pieces_larger_than_httpcores_64_kib(sandbox_url):
    async def scenario():
        client = make_client(sandbox_url)
        account = (await client.list_accounts(DEMO_PERSON_ID))[0]
        path = f"/v1/clients/{DEMO_PERSON_ID}/accounts/{account.id}/statement"
        params = {"date_from": "2000-01-01", "date_to": "2100-12-31"}
        stream = await client.transport.stream("GET", path, params=params)
        sizes = [len(chunk) async for chunk in stream.chunks()]
        await client.aclose()
        return sizes

    sizes = run(scenario())
    assert max(sizes) > 64 * 1024  # the read size set in app.api.http.transport (READ_BYTES)
    assert max(sizes) <= 256 * 1024


def test_each_client_reads_whole_pages_and_stops_at_the_bound_or_the_end(sandbox_url):
    async def scenario() -> tuple[list[str], list[str], list[str]]:
        client = make_client(sandbox_url)
        try:
            first = [c.id async for c in client.each_client_v2(at_most=3)]
            every = [c.id async for c in client.each_client_v2(at_most=100_000)]
            listed = [c.id for c in await client.list_clients_v2(offset=0, limit=100)]
        finally:
            await client.aclose()
        return first, every, listed

    first, every, listed = run(scenario())
    assert first == listed[:3]
    assert every[:100] == listed and len(every) == len(set(every))  # each once, in order
