"""The sandbox against hostile input: a refused request answers 400 with the error body and
changes nothing, and no request can stall it."""

import base64
import json
import threading
import time
import uuid

import httpx
import pytest

from app.sandbox.banking.demo import DEMO_PERSON_ID
from tests.conftest import advance, person_body

AUTH = ("demo", "demo")
PC = {"x-partner-code": "PD"}
DE_IBAN = "DE89370400440532013000"


def unique() -> str:
    return uuid.uuid4().hex[:10]


def refused(response: httpx.Response, message: str) -> None:
    assert response.status_code == 400, response.text
    body = response.json()
    assert message in body["failure_message"], body
    assert body["detail"]["title"] and body["detail"]["error_id"]


def post_raw(admin, path, raw: bytes, request_id: str, **headers):
    return admin.post(
        path,
        content=raw,
        auth=AUTH,
        headers={"content-type": "application/json", **PC, "x-request-id": request_id, **headers},
    )


def test_a_lone_surrogate_is_refused_naming_the_field_and_changes_nothing(admin, bank):
    body = {"client_type": "PERSON", "client": person_body(external_id=unique())}
    raw = json.dumps(body).replace('"Egl\\u0117"', '"A\\ud800B"').encode()
    assert b"\\ud800" in raw
    before = len(bank.clients)
    request_id = unique()
    refused(post_raw(admin, "/v1/clients", raw, request_id), "client.first_name: is not valid")
    assert len(bank.clients) == before
    # the same key with a valid body acts once; the lists keep working
    good = post_raw(admin, "/v1/clients", json.dumps(body).encode(), request_id)
    assert good.status_code == 200
    again = post_raw(admin, "/v1/clients", json.dumps(body).encode(), request_id)
    assert again.headers["x-idempotent-replay"] == "true"
    assert len(bank.clients) == before + 1
    for version in ("v1", "v2"):
        assert admin.get(f"/{version}/clients", auth=AUTH, headers=PC).status_code == 200
    # v2, a key, and a transfer's description
    v2 = {"external_reference": "R-" + unique(), "client_type": "PERSON", "person": person_body()}
    raw = json.dumps(v2).replace('"R-', '"\\udfff-').encode()
    refused(post_raw(admin, "/v2/clients", raw, unique()), "external_reference: is not valid")
    raw = b'{"client_type": "PERSON", "\\ud83d": 1}'
    refused(post_raw(admin, "/v2/clients", raw, unique()), "a property name: is not valid")


def test_a_refused_transfer_holds_nothing_and_the_account_keeps_working(admin, bank):
    iban = next(a.id for a in bank.accounts.values() if a.client_id == DEMO_PERSON_ID)
    holds = dict(bank.accounts[iban].holds)
    transfer = {
        "id": "T-" + unique(),
        "amount": 1_000,
        "description": "Invoice \ud800",
        "recipient_name": "Hans",
        "recipient_iban": DE_IBAN,
        "recipient_country": "DE",
        "recipient_address": "Berlin",
    }
    raw = json.dumps(transfer).encode()
    path = f"/v1/accounts/{iban}/transfers/sepa"
    refused(post_raw(admin, path, raw, unique()), "description: is not valid Unicode")
    assert bank.accounts[iban].holds == holds
    listed = admin.get(path, auth=AUTH, headers=PC)
    assert listed.status_code == 200


def test_idempotency_is_keyed_on_the_user_not_the_header_spelling(admin, bank):
    encoded = base64.b64encode(b"demo:demo").decode()
    request_id = unique()
    opened = set()
    for scheme in ("Basic", "basic", "BASIC"):
        response = admin.post(
            "/v1/clients/C0000004/accounts",
            headers={**PC, "x-request-id": request_id, "authorization": f"{scheme} {encoded}"},
        )
        assert response.status_code == 200
        opened.add(response.json()["id"])
    assert len(opened) == 1
    assert sum(1 for a in bank.accounts.values() if a.client_id == "C0000004") == 1


@pytest.mark.parametrize("amount", [b"100.0", b"1e2", b"1E+2", b"100.5"])
def test_amounts_must_be_json_integers(admin, bank, amount):
    iban = next(a.id for a in bank.accounts.values() if a.client_id == DEMO_PERSON_ID)
    balances = dict(bank.accounts[iban].ledger.balances)
    raw = (
        b'{"id": "F-' + unique().encode() + b'", "amount": ' + amount + b', "recipient_name": "H",'
        b' "recipient_iban": "' + DE_IBAN.encode() + b'", "recipient_country": "DE",'
        b' "recipient_address": "B"}'
    )
    path = f"/v1/accounts/{iban}/transfers/sepa"
    refused(post_raw(admin, path, raw, unique()), "amount: must be a whole number")
    fee = (
        b'{"parameters": {"amount": '
        + amount
        + b', "recipient_iban": "'
        + DE_IBAN.encode()
        + b'"}}'
    )
    refused(post_raw(admin, f"{path}/fee", fee, unique()), "parameters.amount: must be a whole")
    assert bank.accounts[iban].ledger.balances == balances
    assert all(isinstance(v, int) for v in bank.accounts[iban].ledger.balances.values())


def test_a_like_pattern_cannot_stall_the_sandbox(admin, sandbox_url):
    answers = {}

    def slow_filter():
        answers["filter"] = httpx.get(
            f"{sandbox_url}/v2/clients",
            params={"filter": 'email[like]"%%%%%%%%%%%%!"', "limit": 100},
            auth=AUTH,
            headers=PC,
            timeout=30,
        )

    worker = threading.Thread(target=slow_filter)
    worker.start()
    health = httpx.get(f"{sandbox_url}/v1/healthcheck", timeout=30)
    worker.join(30)
    assert health.status_code == 200
    # answered within the 30 s the client waits: a backtracking regex takes a minute
    assert answers["filter"].status_code == 200 and answers["filter"].json() == []


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"filter": "(" * 320 + 'email[eq]"x"' + ")" * 320}, "nest at most 32 deep"),
        ({"filter": "create_date[eq]" + "9" * 5000}, "filter: at most 2000 characters"),
        ({"filter": 'email[eq]"x" and external_id[eq]' + "9" * 40}, "at most 18 digits"),
        ({"limit": "\uff11\uff10"}, "limit: must be an integer from 1 to 100"),  # full width
        ({"limit": "1_0"}, "limit: must be an integer from 1 to 100"),
        ({"offset": " 1"}, "offset: must be an integer"),
    ],
)
def test_queries_are_bounded_and_strict(admin, params, message):
    refused(admin.get("/v2/clients", params=params, auth=AUTH, headers=PC), message)


@pytest.mark.parametrize("day", ["2024-W01-1", "20240101", "2024-1-01", "２０２４-01-01"])
def test_dates_are_yyyy_mm_dd_only(admin, bank, day):
    iban = next(a.id for a in bank.accounts.values() if a.client_id == DEMO_PERSON_ID)
    path = f"/v1/clients/{DEMO_PERSON_ID}/accounts/{iban}/balance"
    refused(admin.get(path, params={"date": day}, auth=AUTH, headers=PC), "is not a date")


def test_bodies_are_bounded_in_depth_size_and_kind(admin, bank):
    before = len(bank.clients)
    deep = b"[" * 5000 + b"]" * 5000
    refused(post_raw(admin, "/v1/clients", deep, unique()), "more than 32 deep")
    nested = json.dumps({"client_type": "PERSON", "client": person_body(x={"a": [[[[[]]]]]})})
    assert post_raw(admin, "/v1/clients", nested.encode(), unique()).status_code == 400
    huge = b'{"a": "' + b"x" * (1024 * 1024 + 10) + b'"}'
    refused(post_raw(admin, "/v1/clients", huge, unique()), "larger than 1,024 KiB")
    digits = b'{"client_type": "PERSON", "client": ' + b"9" * 5000 + b"}"
    refused(post_raw(admin, "/v1/clients", digits, unique()), "not valid JSON")
    nan = b'{"client_type": "PERSON", "client": NaN}'
    refused(post_raw(admin, "/v1/clients", nan, unique()), "NaN is not a JSON number")
    body = json.dumps({"client_type": "PERSON", "client": person_body(external_id=unique())})
    as_text = post_raw(
        admin, "/v1/clients", body.encode(), unique(), **{"content-type": "text/plain"}
    )
    refused(as_text, "must be sent as application/json")
    assert len(bank.clients) == before


@pytest.mark.parametrize(
    ("control", "message"),
    [
        (b'{"count": 1e999}', "count: must be a whole number from 0 to 1000"),
        (b'{"count": 2.0}', "count: must be a whole number"),
        (b'{"path_contains": 5}', "path_contains: must be text"),
        (b'{"status": 199}', "status: must be a whole number from 200 to 599"),
        (b'{"status": 600}', "status: must be a whole number from 200 to 599"),
        (b'{"method": "G E T"}', "method: an HTTP method, such as GET or POST"),
        (b'{"path": ""}', "path: must be text of 1 to 200 characters"),
        (b'{"body": 5}', "body: a JSON object or array (sent as JSON), or text"),
        (b'{"mode": "sometimes"}', "mode: must be before, after or delay"),
        (b'{"mode": "delay"}', "delay_ms: from 1 to 30000 with mode delay"),
        (b'{"nonsense": 1}', "nonsense: is not a known property"),
        (b"[1]", "must be a JSON object"),
    ],
)
def test_control_calls_are_checked_like_any_other(admin, control, message):
    response = admin.post(
        "/_sandbox/faults", content=control, headers={"content-type": "application/json"}
    )
    refused(response, message)
    # nothing was switched on: later requests are answered as usual
    assert admin.get("/v1/healthcheck").status_code == 200
    assert admin.get("/v2/clients", auth=AUTH, headers=PC).status_code == 200


def test_the_clock_control_moves_time_and_refuses_bad_bodies(admin, sandbox_url):
    refused(admin.post("/_sandbox/clock", json={"advance_seconds": -1}), "advance_seconds")
    refused(admin.post("/_sandbox/clock", json={"advance_days": 1.5}), "advance_days")
    refused(admin.post("/_sandbox/clock", json={}), "Send one of")
    before = admin.get("/_sandbox/clock").json()
    after = advance(sandbox_url, 1)
    assert before["frozen"] and after["now"] > before["now"]


def test_a_delay_fault_slows_the_matching_answer_only(admin, bank):
    iban = next(a.id for a in bank.accounts.values() if a.client_id == DEMO_PERSON_ID)
    admin.post(
        "/_sandbox/faults",
        json={"mode": "delay", "delay_ms": 600, "count": 1, "path_contains": "/fee"},
    )
    assert admin.get("/v1/healthcheck").status_code == 200
    assert admin.get("/_sandbox/faults").json()["faults"][0]["remaining"] == 1  # not this one
    started = time.perf_counter()
    fee = admin.post(
        f"/v1/accounts/{iban}/transfers/internal/fee",
        json={"parameters": {"amount": 100, "currency": "EUR"}},
        auth=AUTH,
        headers=PC,
    )
    assert fee.status_code == 200 and time.perf_counter() - started >= 0.6  # it was slowed
    assert admin.get("/_sandbox/faults").json() == {"faults": []}
    assert admin.delete("/_sandbox/faults").json() == {"faults": []}


# ---------------------------------------------------------------- from the attack run


def test_a_body_of_many_values_is_refused_at_once_without_stalling(admin, sandbox_url):
    company = {
        "external_reference": "R-" + unique(),
        "client_type": "COMPANY",
        "company": {"name": "Many", "documents": [{}] * 250_000},
    }
    answers = {}

    def send():
        answers["big"] = post_raw(admin, "/v2/clients", json.dumps(company).encode(), unique())

    worker = threading.Thread(target=send)
    worker.start()
    health = httpx.get(f"{sandbox_url}/v1/healthcheck", timeout=30)
    worker.join(30)
    assert health.status_code == 200
    # refused for its size: the walk stopped at the limit, before any item was checked
    refused(answers["big"], "The body holds more than 10,000 values")


@pytest.mark.parametrize(
    ("control", "message"),
    [
        (b'{"status": 408.0}', "status: must be a whole number from 200 to 599"),
        (b'{"status": 4.08e2}', "status: must be a whole number from 200 to 599"),
        (b"null", "must be a JSON object"),
        (b'{"count": true}', "count: must be a whole number"),
    ],
)
def test_a_control_call_with_a_number_of_the_wrong_kind_changes_nothing(admin, control, message):
    response = admin.post(
        "/_sandbox/faults", content=control, headers={"content-type": "application/json"}
    )
    refused(response, message)
    assert admin.post("/_sandbox/faults", json={"count": 0}).json() == {"faults": []}
    assert admin.get("/v1/healthcheck").status_code == 200


def test_the_clock_stops_before_the_year_3000(admin):
    refused(admin.post("/_sandbox/clock", json={"advance_days": 3660 * 100}), "advance_days")
    for _ in range(3):  # ten years at a time is fine
        assert admin.post("/_sandbox/clock", json={"advance_seconds": 0}).status_code == 200
    before = admin.get("/_sandbox/clock").json()["now"]
    big = {"advance_seconds": 3660 * 86400}
    answers = [admin.post("/_sandbox/clock", json=big) for _ in range(100)]
    last = answers[-1]
    refused(last, "The clock would pass 2999-12-31")
    assert admin.get("/v1/healthcheck").status_code == 200
    admin.post("/_sandbox/reset")  # the other tests' clock
    assert admin.get("/_sandbox/clock").json()["now"][:4] == before[:4]


def multipart(parts: list[tuple[str, bytes, str | None]]) -> tuple[bytes, str]:
    boundary = "x" + unique()
    body = b""
    for name, data, filename in parts:
        disposition = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename else "")
        body += f"--{boundary}\r\nContent-Disposition: {disposition}\r\n\r\n".encode()
        body += data + b"\r\n"
    body += f"--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


@pytest.mark.parametrize(
    ("parts", "message"),
    [
        ([("metadata", b'{"document_type": "passport", "additional": "\xff"}', None),
          ("file", b"scan", "a.pdf")], "The body is not UTF-8 text"),
        ([("metadata", b'{"document_type": "passport"}', None),
          ("metadata", b'{"document_type": "id_card"}', None),
          ("file", b"scan", "a.pdf")], "metadata: is sent more than once"),
        ([("metadata", b'{"document_type": "passport"}', None),
          ("file", b"scan", None)], "file: must be a file part"),
        ([("metadata", b'{"document_type": "passport"}', None),
          ("file", b"scan", "a.pdf"), ("extra", b"1", None)], "extra: is not a part"),
    ],
)  # fmt: skip
def test_an_attachment_is_read_as_sent_and_refused_when_odd(admin, bank, parts, message):
    before = len(bank.attachments)
    body, content_type = multipart(parts)
    response = admin.post(
        "/v1/attachments",
        content=body,
        auth=AUTH,
        headers={**PC, "x-request-id": unique(), "content-type": content_type},
    )
    refused(response, message)
    assert len(bank.attachments) == before


def test_version_1_does_not_update_a_company(admin, bank):
    before = dict(bank.clients["C0000002"].details)
    response = admin.put(
        "/v1/clients/C0000002", json={}, auth=AUTH, headers={**PC, "x-request-id": unique()}
    )
    refused(response, "is a company, which version 1 does not know")
    assert bank.clients["C0000002"].details == before


def test_text_is_utf_8_without_control_characters(admin, bank):
    before = len(bank.clients)
    body = {"client_type": "PERSON", "client": person_body(first_name="Ona\x00")}
    refused(post_raw(admin, "/v1/clients", json.dumps(body).encode(), unique()), "control")
    utf16 = json.dumps({"client_type": "PERSON", "client": person_body()}).encode("utf-16")
    refused(post_raw(admin, "/v1/clients", utf16, unique()), "The body is not UTF-8 text")
    assert len(bank.clients) == before


def test_an_empty_body_and_an_empty_object_are_the_same_account_opening(admin, bank):
    key = unique()
    path = "/v1/clients/C0000005/accounts"
    first = admin.post(path, auth=AUTH, headers={**PC, "x-request-id": key})
    again = post_raw(admin, path, b"{}", key)
    assert first.status_code == again.status_code == 200
    assert again.headers["x-idempotent-replay"] == "true"
    assert sum(1 for a in bank.accounts.values() if a.client_id == "C0000005") == 1


def test_a_full_store_refuses_one_more_client_and_changes_nothing(admin, bank, monkeypatch):
    from app.sandbox.banking import state

    held = len(bank.clients)
    monkeypatch.setattr(state, "MAX_CLIENTS", held)
    body = {"client_type": "PERSON", "client": person_body(external_id=unique())}
    answer = post_raw(admin, "/v1/clients", json.dumps(body).encode(), unique())
    refused(answer, f"The sandbox holds its most clients ({held:,}): reset it to start over")
    assert answer.json()["detail"]["title"] == "Operation not allowed"
    assert len(bank.clients) == held


def test_a_query_parameter_given_twice_is_refused_naming_it(admin):
    accounts = admin.get(f"/v1/clients/{DEMO_PERSON_ID}/accounts", auth=AUTH, headers=PC).json()
    path = f"/v1/clients/{DEMO_PERSON_ID}/accounts/{accounts[0]['id']}/statement"
    twice = "?date_from=2024-01-01&date_to=2024-01-31&date_from=2025-01-01"
    refused(
        admin.get(path + twice, auth=AUTH, headers=PC), "date_from: given 2 times; give it once"
    )
    listed = admin.get("/v1/clients?limit=5&limit=500", auth=AUTH, headers=PC)
    refused(listed, "limit: given 2 times; give it once")
    once = admin.get(path + "?date_from=2024-01-01&date_to=2024-01-31", auth=AUTH, headers=PC)
    assert once.status_code == 200


def test_head_of_a_statement_makes_none_of_its_records(admin, monkeypatch):
    from app.sandbox.banking import history

    made = []
    encoded = history.DemoHistory.encoded

    def counted(self, low, high, currency):
        made.append(high - low)
        return encoded(self, low, high, currency)

    monkeypatch.setattr(history.DemoHistory, "encoded", counted)
    accounts = admin.get(f"/v1/clients/{DEMO_PERSON_ID}/accounts", auth=AUTH, headers=PC).json()
    path = f"/v1/clients/{DEMO_PERSON_ID}/accounts/{accounts[1]['id']}/statement"
    query = "?date_from=2000-01-01&date_to=2999-12-31"
    head = admin.head(path + query, auth=AUTH, headers=PC)
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-type"] == "application/json"
    assert "content-length" not in head.headers
    # the next request on the same connection is served after the HEAD is wholly done
    assert admin.get("/v1/healthcheck").status_code == 200
    assert made == []
    day = admin.get(path + "?date_from=2025-06-01&date_to=2025-06-01", auth=AUTH, headers=PC)
    assert day.status_code == 200 and len(day.json()) > 100 and made  # a GET makes them


def test_a_key_header_given_twice_or_a_query_not_utf8_is_refused(admin, bank):
    before = len(bank.clients)
    body = {"client_type": "PERSON", "client": person_body(external_id=unique())}
    twice = admin.post(
        "/v1/clients",
        json=body,
        auth=AUTH,
        headers=[("x-partner-code", "PD"), ("x-request-id", "dupA"), ("x-request-id", "dupB")],
    )
    refused(twice, "the x-request-id header: given 2 times; give it once")
    partner_twice = admin.get(
        "/v1/clients", auth=AUTH, headers=[("x-partner-code", "A"), ("x-partner-code", "B")]
    )
    refused(partner_twice, "the x-partner-code header: given 2 times; give it once")
    auth_twice = admin.get(
        "/v1/clients",
        headers=[*PC.items(), ("authorization", "Basic eDp5"), ("authorization", "Basic eDp5")],
    )
    refused(auth_twice, "the authorization header: given 2 times; give it once")  # not "***"
    assert len(bank.clients) == before
    for query in ("id=%FF", 'filter=email[eq]"%ED%A0%80"'):
        answer = admin.get(f"/v1/clients?{query}", auth=AUTH, headers=PC)
        refused(answer, "The query is not valid UTF-8")
    for path in ("/v1/clients/%FF", "/v1/clients/%ED%A0%80"):  # not "Client \ufffd not found"
        refused(admin.get(path, auth=AUTH, headers=PC), "The path is not valid UTF-8")
    valid = admin.get("/v1/clients?filter=email[eq]%22%C3%A9%40x.lt%22", auth=AUTH, headers=PC)
    assert valid.status_code == 200  # UTF-8 that is valid passes


def test_a_path_with_control_characters_is_quoted_without_them(admin):
    """A NUL or a terminal's escape in a path is not echoed in the 404 or 405 that names
    it (a client printing the message would have the terminal obey it)."""
    missing = admin.get("/v1/%00abc%1B%5B2J", auth=AUTH, headers=PC)
    assert missing.status_code == 404
    assert missing.json()["failure_message"] == "No operation at GET /v1/?abc?[2J"
    broken = admin.get("/v1/health%0D%0Acheck%09", auth=AUTH, headers=PC)  # not "healthcheck"
    assert broken.json()["failure_message"] == "No operation at GET /v1/health??check?"
    wrong_method = admin.delete("/v1/clients%1B", auth=AUTH, headers=PC)
    assert wrong_method.status_code in (404, 405)
    message = wrong_method.json()["failure_message"]
    assert message.endswith("/v1/clients?") and message.isprintable()
    long = admin.get("/v1/" + "x" * 5_000, auth=AUTH, headers=PC)
    assert long.status_code == 404 and len(long.json()["failure_message"]) < 300


@pytest.mark.parametrize("charset", ["latin-1", "utf-16", '"iso-8859-1"'])
def test_a_json_body_in_another_charset_is_refused(admin, bank, charset):
    before = len(bank.clients)
    body = {"client_type": "PERSON", "client": person_body(external_id=unique())}
    answer = post_raw(
        admin,
        "/v1/clients",
        json.dumps(body).encode(),
        unique(),
        **{"content-type": f"application/json; charset={charset}"},
    )
    refused(answer, "Content-Type: charset")
    assert "JSON is sent as utf-8" in answer.json()["failure_message"]
    assert len(bank.clients) == before
    fine = post_raw(
        admin,
        "/v1/clients",
        json.dumps(body).encode(),
        unique(),
        **{"content-type": "application/json; charset=UTF-8"},
    )
    assert fine.status_code == 200


def test_any_fault_on_demand_by_method_and_path_glob_with_a_body_and_a_count(admin):
    """Any status, any body (JSON or text as it is), a delay, a count, by method and glob; the
    journal keeps each error answer's body."""
    body = {"failure_message": "Name is not allowed", "detail": {"error_id": "E-1", "title": "T"}}
    admin.post(
        "/_sandbox/faults",
        json={"status": 400, "method": "post", "path": "/v*/clients", "body": body, "count": 2},
    )
    listed = admin.get("/v2/clients", auth=("demo", "demo"), headers={"x-partner-code": "p"})
    assert listed.status_code == 200  # a GET: another method
    for _ in range(2):
        answer = post_raw(admin, "/v1/clients", b"{}", unique())
        assert answer.status_code == 400 and answer.json() == body
    assert admin.get("/_sandbox/faults").json() == {"faults": []}  # both taken
    journal = admin.get("/_sandbox/requests").json()
    refused = [line for line in journal if line["status"] == 400]
    assert [line["body"] for line in refused[-2:]] == [body, body]
    assert "body" not in next(line for line in journal if line["method"] == "GET")

    admin.post("/_sandbox/faults", json={"status": 503, "path": "/v1/healthcheck", "body": "{oops"})
    answer = admin.get("/v1/healthcheck")
    assert answer.status_code == 503 and answer.content == b"{oops"  # text as it is
    assert admin.get("/_sandbox/requests").json()[-1]["body"] == "{oops"
    admin.post("/_sandbox/faults", json={"status": 418, "path": "/v1/healthcheck"})
    teapot = admin.get("/v1/healthcheck")
    assert teapot.status_code == 418
    assert teapot.json()["detail"]["title"] == "I'm a Teapot"  # the service's error body
