"""Fault cases of the transport, with httpx.MockTransport."""

import json

import httpx
import pytest

from app.api import banking as m
from app.api.banking.transport import banking_transport
from app.api.errors import (
    ApiConnectionError,
    ApiTimeoutError,
    BadRequest,
    InvalidInput,
    RequestTimeout,
    ResponseValidationError,
    ServerError,
    Unauthorized,
    UnexpectedStatus,
)
from app.api.http import RetryPolicy
from app.api.profile import Profile
from tests.certificates import make_ca
from tests.conftest import make_client, run

ERROR = {"failure_message": "Bad things", "detail": {"error_id": "E-1", "title": "Oops"}}


def recording(responses):
    """A MockTransport answering from a list (callables raise), recording every request."""
    seen: list[httpx.Request] = []
    answers = list(responses)

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    return httpx.MockTransport(handler), seen


def ok_client(n=1):
    return httpx.Response(
        200,
        json={
            "id": f"C{n}",
            "client_type": "PERSON",
            "client": {
                "first_name": "A",
                "last_name": "B",
                "birth_date": "1990-01-01",
                "email": "a@b.lt",
                "contact_mobile_number": "+37060000000",
                "ip": "10.0.0.1",
                "address": {"street": "s", "city": "c", "postal_code": "1", "country": "LT"},
                "tax_id": {"number": "1", "country": "LT"},
            },
        },
    )


def person():
    from tests.conftest import person_body

    return m.build(m.ClientCreate, {"client": person_body()})


def test_secured_call_carries_credentials_partner_code_and_request_id():
    transport, seen = recording([ok_client()])
    client = make_client("https://bank.example", transport=transport)
    run(client.create_client(person(), request_id="action-1"))
    request = seen[0]
    assert request.url == "https://bank.example/v1/clients"
    assert request.headers["x-partner-code"] == "PD-TEST"
    assert request.headers["x-request-id"] == "action-1"
    assert request.headers["authorization"] == "Basic ZGVtbzpkZW1v"
    assert json.loads(request.content)["client"]["email"] == "egle.tester1@example.lt"
    assert "create_date" not in json.loads(request.content)["client"]


def test_open_operations_send_no_credentials_and_no_partner_code():
    transport, seen = recording([httpx.Response(200, json={"result": "ok"})])
    run(make_client("https://bank.example", transport=transport).healthcheck())
    assert "authorization" not in seen[0].headers
    assert "x-partner-code" not in seen[0].headers
    assert len(seen[0].headers["x-request-id"]) <= 64


def test_every_action_gets_a_fresh_request_id():
    transport, seen = recording([ok_client(1), ok_client(2)])
    client = make_client("https://bank.example", transport=transport)
    run(client.create_client(person()))
    run(client.create_client(person()))
    ids = [r.headers["x-request-id"] for r in seen]
    assert ids[0] != ids[1]
    assert all(0 < len(i) <= 64 for i in ids)


def test_408_is_retried_with_the_same_request_id_and_body():
    transport, seen = recording([httpx.Response(408, json=ERROR), ok_client()])
    client = make_client("https://bank.example", transport=transport)
    result = run(client.create_client(person()))
    assert result.id == "C1"
    assert len(seen) == 2
    assert seen[0].headers["x-request-id"] == seen[1].headers["x-request-id"]
    assert seen[0].content == seen[1].content


def test_408_exhausted_raises_request_timeout_with_the_body():
    transport, seen = recording([httpx.Response(408, json=ERROR)] * 3)
    client = make_client("https://bank.example", transport=transport)
    with pytest.raises(RequestTimeout) as caught:
        run(client.create_client(person(), request_id="keep-me"))
    assert len(seen) == 3
    assert {r.headers["x-request-id"] for r in seen} == {"keep-me"}
    assert caught.value.error_id == "E-1"
    assert caught.value.request_id == "keep-me"


def test_connection_errors_are_retried_then_typed():
    failure = httpx.ConnectError("refused")
    transport, seen = recording([failure, failure, failure])
    with pytest.raises(ApiConnectionError, match="Cannot reach"):
        run(make_client("https://bank.example", transport=transport).healthcheck())
    assert len(seen) == 3
    transport, seen = recording([httpx.ReadTimeout("slow"), ok_client()])
    assert (
        run(make_client("https://bank.example", transport=transport).create_client(person())).id
        == "C1"
    )
    assert seen[0].headers["x-request-id"] == seen[1].headers["x-request-id"]


def test_read_timeouts_exhausted_are_timeout_errors():
    transport, _ = recording([httpx.ReadTimeout("slow")] * 3)
    with pytest.raises(ApiTimeoutError):
        run(make_client("https://bank.example", transport=transport).healthcheck())


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (400, BadRequest),
        (401, Unauthorized),
        (500, ServerError),
        (503, ServerError),
        (404, UnexpectedStatus),
        (429, UnexpectedStatus),
    ],
)
def test_status_maps_to_typed_error_with_error_body(status, kind):
    transport, seen = recording([httpx.Response(status, json=ERROR)])
    with pytest.raises(kind) as caught:
        run(make_client("https://bank.example", transport=transport).list_clients())
    error = caught.value
    assert (error.status, error.failure_message, error.error_id, error.title) == (
        status,
        "Bad things",
        "E-1",
        "Oops",
    )
    assert error.has_error_body
    assert len(seen) == 1  # only 408 and connection errors are retried


@pytest.mark.parametrize(
    "response",
    [
        httpx.Response(
            502, text="<html><body>Bad gateway</body></html>", headers={"content-type": "text/html"}
        ),
        httpx.Response(500, content=b"{not json"),
        httpx.Response(400, json={"message": "other shape"}),
        httpx.Response(400, content=b""),
    ],
)
def test_error_without_the_error_body_is_still_typed(response):
    transport, _ = recording([response])
    with pytest.raises((ServerError, BadRequest)) as caught:
        run(make_client("https://bank.example", transport=transport).list_clients())
    assert not caught.value.has_error_body
    assert caught.value.status == response.status_code


def test_an_error_body_holding_a_lone_surrogate_keeps_its_message():
    body = (
        b'{"failure_message": "IBAN \\ud800 is not valid", '
        b'"detail": {"error_id": "E-\\udfff", "title": "Invalid \\ud83d\\ude00 input"}}'
    )
    transport, _ = recording([httpx.Response(400, content=body)])
    with pytest.raises(BadRequest) as caught:
        run(make_client("https://bank.example", transport=transport).list_clients())
    error = caught.value
    assert (error.failure_message, error.error_id, error.title) == (
        "IBAN \ufffd is not valid",
        "E-\ufffd",
        "Invalid \U0001f600 input",  # a pair of escapes is one character, as JSON means
    )
    assert str(error) == "IBAN \ufffd is not valid"


@pytest.mark.parametrize(
    "body",
    [
        b'{"message": "\\ud800"}',  # JSON, but not the error body
        b'{"failure_message": "\\ud800", "detail": {"error_id": "E-1"}}',  # no title
        b'{"failure_message": "\\ud800", "detail": ' + b"[" * 5000 + b"]" * 5000 + b"}",
        b'{"failure_message": "\\ud800" broken',
    ],
)
def test_a_lone_surrogate_in_what_is_no_error_body_leaves_the_status_and_request_id(body):
    transport, _ = recording([httpx.Response(400, content=body)])
    with pytest.raises(BadRequest) as caught:
        run(make_client("https://bank.example", transport=transport).list_clients())
    assert not caught.value.has_error_body
    assert str(caught.value).startswith("HTTP 400 Bad Request (x-request-id ")


def test_success_with_invalid_json_or_wrong_shape_is_a_response_validation_error():
    transport, _ = recording([httpx.Response(200, content=b"<html>")])
    with pytest.raises(ResponseValidationError, match="does not fit the contract"):
        run(make_client("https://bank.example", transport=transport).healthcheck())
    transport, _ = recording([httpx.Response(200, json={"unexpected": 1})])
    with pytest.raises(ResponseValidationError, match="result"):
        run(make_client("https://bank.example", transport=transport).healthcheck())


def test_bad_input_is_refused_before_sending():
    transport, seen = recording([])
    client = make_client("https://bank.example", transport=transport)
    with pytest.raises(InvalidInput, match="^limit: must be from 1 to 100$"):
        run(client.list_clients(limit=101))
    with pytest.raises(InvalidInput, match="^offset"):
        run(client.list_clients(offset=-1))
    with pytest.raises(InvalidInput, match="^filter: .*position"):
        run(client.list_clients(filter='email[eq]"x'))
    with pytest.raises(InvalidInput, match="'phone' cannot be filtered"):
        run(client.list_clients(filter='phone[eq]"x"'))
    with pytest.raises(InvalidInput, match="^clientId: at most 64"):
        run(client.list_accounts("x" * 65))
    with pytest.raises(InvalidInput, match="^x-request-id: at most 64 characters"):
        run(client.create_client(person(), request_id="r" * 65))
    assert seen == []


def test_tls_verification_cannot_be_turned_off():
    with pytest.raises(ValueError, match="TLS verification"):
        banking_transport(Profile("https://bank.example", "u", "p", "PC", verify=False))


def test_password_never_in_profile_repr():
    profile = Profile("https://bank.example", "user", "s3cret", "PC")
    assert "s3cret" not in repr(profile)


def test_exchanges_are_reported_without_credentials():
    transport, _ = recording(
        [httpx.Response(408, json=ERROR), httpx.Response(200, json={"result": "ok"})]
    )
    client = make_client("https://bank.example", transport=transport)
    seen = []
    client.transport.add_listener(seen.append)
    run(client.healthcheck())
    assert [(e.method, e.path, e.status, e.attempt) for e in seen] == [
        ("GET", "/v1/healthcheck", 408, 1),
        ("GET", "/v1/healthcheck", 200, 2),
    ]
    assert seen[0].request_id == seen[1].request_id
    assert "demo" not in repr(seen)


def test_a_call_given_up_before_its_answer_is_reported_as_cancelled():
    import asyncio

    async def never_answers(request: httpx.Request) -> httpx.Response:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    client = make_client("https://bank.example", transport=httpx.MockTransport(never_answers))
    seen = []
    client.transport.add_listener(seen.append)

    async def give_up() -> None:
        call = asyncio.ensure_future(client.healthcheck())
        while not client.transport.last_request_id:  # the call is on its way
            await asyncio.sleep(0)
        await asyncio.sleep(0.01)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        await client.aclose()

    run(give_up())
    assert [(e.method, e.path, e.status, e.cancelled) for e in seen] == [
        ("GET", "/v1/healthcheck", None, True)
    ]
    assert seen[0].request_id == client.transport.last_request_id


def test_retry_policy_backs_off_exponentially_with_jitter(monkeypatch):
    import random

    policy = RetryPolicy(backoff=0.5, max_backoff=1.5)
    monkeypatch.setattr(random, "uniform", lambda low, high: high)
    assert [policy.delay(i) for i in range(4)] == [0.5, 1.0, 1.5, 1.5]
    monkeypatch.setattr(random, "uniform", lambda low, high: low)
    assert [policy.delay(i) for i in range(4)] == [0.25, 0.5, 0.75, 0.75]  # never below half
    monkeypatch.undo()
    waits = {policy.delay(0) for _ in range(50)}
    assert len(waits) > 1 and all(0.25 <= wait <= 0.5 for wait in waits)  # spread out


def statement_of(content: bytes):
    import datetime as dt

    transport, _ = recording([httpx.Response(200, content=content)])
    client = make_client("https://bank.example", transport=transport)

    async def read():
        return await client.get_statement("C1", "A1", dt.date(2024, 1, 1), dt.date(2024, 1, 2))

    return run(read())


RECORD = (
    b'{"id": "S1", "booking_date": "2024-01-01", "type": "card", "direction": "debit", '
    b'"amount": 5, "currency": "EUR", "description": "a}, {b", "balance_after": 7}'
)


def test_statement_records_are_validated_even_with_braces_in_strings():
    records = statement_of(b"[" + b", ".join([RECORD] * 2000) + b"]")
    assert len(records) == 2000
    assert records[0]["description"] == "a}, {b"
    assert records[0]["amount"] == 5


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"[" + RECORD, "not a JSON array: the array ended early"),
        (b"[" + RECORD + b', {"tags": [1], "x', "not a JSON array: the array ended early"),
        (
            b"[" + RECORD + b"] trailing ",
            "not a JSON array: data follows the array's end: b'trailing'",
        ),
        (b"[" + RECORD + b"]{}", "not a JSON array: data follows the array's end: b'{}'"),
        (b"[" + b", ".join([RECORD] * 3000) + b"] x", "data follows the array's end: b'x'"),
        (b'{"oops": 1}', "not a JSON array: expected a JSON array"),
        (
            b"[" + RECORD.replace(b'"amount": 5', b'"amount": "five"') + b"]",
            "does not fit the contract: 0.amount",
        ),
        (b"[" + RECORD + b", {broken]", "does not fit the contract"),
    ],
)
def test_bad_statement_answers_are_response_validation_errors(content, message):
    with pytest.raises(ResponseValidationError, match=message):
        statement_of(content)


def test_a_ca_bundle_adds_to_the_system_cas_and_verification_stays_on(tmp_path):
    bundle = tmp_path / "ca.pem"
    make_ca(bundle, "Test CA")
    transport = banking_transport(
        Profile("https://bank.example", "u", "p", "PC", verify=str(bundle))
    )
    context = transport._client._transport._pool._ssl_context
    assert context.verify_mode.name == "CERT_REQUIRED"
    assert context.check_hostname
    subjects = [
        dict(x[0] for x in ca["subject"]).get("commonName") for ca in context.get_ca_certs()
    ]
    assert "Test CA" in subjects
    assert len(subjects) > 1  # the system's CAs too
    with pytest.raises(InvalidInput, match="^CA bundle: cannot use"):
        banking_transport(
            Profile("https://bank.example", "u", "p", "PC", verify=str(tmp_path / "none"))
        )


@pytest.mark.parametrize(
    "base",
    [
        "https://bank.example",
        "https://bank.example/",
        "https://bank.example/v1",
        "https://bank.example/v2/",
    ],
)
def test_base_url_with_or_without_the_version_prefix(base):
    transport, seen = recording([httpx.Response(200, json={"result": "ok"})])
    run(make_client(base, transport=transport).healthcheck())
    assert str(seen[0].url) == "https://bank.example/v1/healthcheck"


@pytest.mark.parametrize("client_id", ["abc <b>x</b>", "a b", "a\tb", "x\ud800", "../v2"])
def test_ids_that_would_break_the_path_are_refused_before_sending(client_id):
    transport, seen = recording([])
    client = make_client("https://bank.example", transport=transport)
    with pytest.raises(InvalidInput, match="^clientId: has a space, a slash"):
        run(client.list_accounts(client_id))
    assert seen == []
