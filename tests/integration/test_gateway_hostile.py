"""The gateway under hostile input: a refused request changes nothing, retries racing each
other act once, the hosted pages take nothing they should not, and nothing grows unbounded."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from app.sandbox.app import SandboxSettings
from app.sandbox.gateway import orders as gateway_orders
from app.sandbox.gateway.state import Gateway
from app.sandbox.server import BackgroundSandbox
from tests.conftest import run

CARD = {"card_number": "4111111111111111", "exp_month": 12, "exp_year": 2099, "cvv": "123"}


@pytest.fixture(scope="module")
def server() -> Iterator[BackgroundSandbox]:
    sandbox = BackgroundSandbox(SandboxSettings(frozen_clock=True, demo_statement_records=0))
    sandbox.start()
    yield sandbox
    sandbox.stop()


@pytest.fixture
def raw(server: BackgroundSandbox) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=f"{server.url}/gateway", auth=("demo", "demo")) as client:
        yield client


def post(raw: httpx.Client, path: str, body: Any = None, key: str | None = None, **kw: Any):
    headers = {"x-request-id": key or uuid.uuid4().hex, **kw.pop("headers", {})}
    if body is None:
        return raw.post(path, headers=headers, **kw)
    return raw.post(path, json=body, headers=headers, **kw)


def new_order(raw: httpx.Client, **changes: Any) -> dict[str, Any]:
    body = {
        "client": {"email": "h@ex.lt"},
        "currency": "EUR",
        "products": [{"title": "T", "price": "10.00"}],
        **changes,
    }
    answer = post(raw, "/orders/", body)
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()
    return result


def do_path(order: dict[str, Any]) -> str:
    return order["api_do_url"].split("/gateway", 1)[1]


def orders_held(server: BackgroundSandbox) -> int:
    return len(server.state.service(Gateway).orders)


@pytest.mark.parametrize(
    "body",
    [
        b'{"client": {"email": "a\\ud800@ex.lt"}, "currency": "EUR", "products": []}',
        b'{"client": {}, "currency": "EUR", "products": [{"title": "\\udfff", "price": 1}]}',
        b'{"client": {}, "currency": "EUR", "products": [{"title": "T", "price": 1e400}]}',
        b'{"client": {}, "currency": "EUR", "products": [{"title": "T", "price": 1e-400}]}',
        b'{"client": {}, "currency": "EUR", "products": [{"title": "T", "price": "NaN"}]}',
        b'{"client": {}, "currency": "EUR", "products": '
        b'[{"title": "T", "price": 1, "quantity": 2.0}]}',
        b'{"client": {}, "currency": "EUR", "products": ' + b"[" * 40 + b"]" * 40 + b"}",
        b'{"client": {}, "currency": "XXX", "products": [{"title": "T", "price": 1}]}',
        b'{"client": {"original_client": "00000000-0000-0000-0000-000000000000"}, '
        b'"currency": "EUR", "products": [{"title": "T", "price": 1}]}',
    ],
)
def test_a_refused_order_changes_nothing(server, raw, body):
    before = orders_held(server)
    answer = post(raw, "/orders/", content=body, headers={"content-type": "application/json"})
    assert answer.status_code == 400, answer.text
    assert set(answer.json()) == {"failure_message", "detail"}
    assert orders_held(server) == before


def test_retries_racing_with_one_request_id_pay_once(server):
    async def race() -> list[httpx.Response]:
        async with httpx.AsyncClient(
            base_url=f"{server.url}/gateway", auth=("demo", "demo")
        ) as client:
            created = await client.post(
                "/orders/",
                json={
                    "client": {},
                    "currency": "EUR",
                    "products": [{"title": "T", "price": 1}],
                },
                headers={"x-request-id": uuid.uuid4().hex},
            )
            path = do_path(created.json())
            key = uuid.uuid4().hex
            return await asyncio.gather(
                *(client.post(path, json=CARD, headers={"x-request-id": key}) for _ in range(12))
            )

    answers = run(race())
    assert {a.status_code for a in answers} == {200}
    assert len({a.json()["status"] for a in answers}) == 1
    order = server.state.service(Gateway).orders[answers[0].json()["id"]]
    assert [e.event for e in order.history] == ["created", "charged"]


def test_partial_refunds_racing_never_exceed_what_was_captured(server, raw):
    order = new_order(raw)
    assert post(raw, do_path(order), CARD).json()["status"] == "charged"

    async def race() -> list[httpx.Response]:
        async with httpx.AsyncClient(
            base_url=f"{server.url}/gateway", auth=("demo", "demo")
        ) as client:
            return await asyncio.gather(
                *(
                    client.post(
                        f"/orders/{order['id']}/refund/",
                        json={"amount": "4.00"},
                        headers={"x-request-id": uuid.uuid4().hex},
                    )
                    for _ in range(6)
                )
            )

    answers = run(race())
    assert sorted(a.status_code for a in answers) == [200, 200, 400, 400, 400, 400]
    final = raw.get(f"/orders/{order['id']}/").json()
    assert final["amount_refunded"] == "8.00"


def test_3ds_decisions_racing_decide_once(server, raw):
    order = new_order(raw)
    pending = post(raw, do_path(order), {**CARD, "card_number": "4000000000003220"}).json()
    url = pending["three_ds_url"]

    async def race() -> list[httpx.Response]:
        async with httpx.AsyncClient() as browser:
            return await asyncio.gather(
                *(
                    browser.post(url, data={"decision": decision})
                    for decision in ("authenticate", "fail") * 4
                )
            )

    answers = run(race())
    assert sorted(a.status_code for a in answers) == [200] + [400] * 7
    final = raw.get(f"/orders/{order['id']}/").json()
    assert final["status"] in ("charged", "declined")
    assert len([e for e in final["history"] if e["event"].startswith("three_ds_")]) == 2


def test_the_checkout_form_needs_the_pages_token_and_takes_only_its_fields(server, raw):
    order = new_order(raw)
    token = order["checkout_url"].rstrip("/").rsplit("/", 1)[1]
    form = {"checkout_token": token, **{k: str(v) for k, v in CARD.items()}}
    url = order["api_do_url"]
    cases = {
        "no token": {k: v for k, v in form.items() if k != "checkout_token"},
        "wrong token": {**form, "checkout_token": "x" * 24},
        "unknown field": {**form, "amount": "0.01"},
        "control character": {**form, "cardholder_name": "A\x00B"},
        "bad card": {**form, "card_number": "4111111111111112"},
    }
    for name, data in cases.items():
        answer = httpx.post(url, data=data)
        assert answer.status_code == 400, name
        assert answer.headers["content-type"].startswith("text/html")
    broken = httpx.post(
        url,
        content=b"checkout_token=" + token.encode() + b"&cardholder_name=%ED%A0%80",
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert broken.status_code == 400 and "cannot be read" in broken.text
    assert "4111111111111112" not in httpx.post(url, data=cases["bad card"]).text
    assert raw.get(f"/orders/{order['id']}/").json()["status"] == "new"
    paid = httpx.post(url, data=form)
    assert paid.status_code == 200 and "Payment complete." in paid.text
    assert raw.get(f"/orders/{order['id']}/").json()["status"] == "charged"
    assert httpx.post(url, data=form).status_code == 400  # paid once


def test_the_pages_escape_what_they_show_and_send_a_strict_policy(server, raw):
    hostile = '<script>alert("x")</script>'
    order = new_order(raw, products=[{"title": hostile, "price": 1}], client={"email": "a@b.lt"})
    page = httpx.get(order["checkout_url"])
    assert page.status_code == 200
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page.text  # shown, escaped
    assert "<script>" not in page.text
    assert "default-src 'none'" in page.headers["content-security-policy"]
    token = order["checkout_url"].rstrip("/").rsplit("/", 1)[1]
    refused = httpx.post(order["api_do_url"], data={"checkout_token": token, "<b>x": "1"})
    assert refused.status_code == 400
    assert "&lt;b&gt;x: is not a field of the checkout form" in refused.text
    assert "<b>x" not in refused.text
    assert page.headers["x-content-type-options"] == "nosniff"
    wrong = httpx.get(order["checkout_url"].replace(order["id"], str(uuid.uuid4())))
    assert wrong.status_code == 400


def test_the_sandbox_holds_at_most_so_many_orders(server, raw, monkeypatch):
    monkeypatch.setattr(gateway_orders, "MAX_ORDERS", orders_held(server))
    answer = post(
        raw,
        "/orders/",
        {"client": {}, "currency": "EUR", "products": [{"title": "T", "price": 1}]},
    )
    assert answer.status_code == 400
    assert "reset it to start over" in answer.json()["failure_message"]


def test_text_that_is_not_ascii_never_makes_a_500(server, raw):
    order = new_order(raw)
    pending = post(raw, do_path(order), {**CARD, "card_number": "4000000000003220"}).json()
    base = f"{server.url}/gateway"
    checkout = order["checkout_url"].rsplit("/", 2)[0]
    three_ds = pending["three_ds_url"].rsplit("/", 2)[0]
    answers = [
        httpx.get(f"{checkout}/%C3%A9/"),
        httpx.get(f"{checkout}/%C3%A9/sdk.js"),
        httpx.get(f"{three_ds}/%C3%A9/"),
        httpx.post(f"{three_ds}/%C3%A9/", data={"decision": "fail"}),
        httpx.post(order["api_do_url"], data={"checkout_token": "é", **CARD}),
    ]
    assert [a.status_code for a in answers] == [400] * 5
    for user, password in (("nobody", "é"), ("demo", "é")):
        denied = httpx.get(
            f"{base}/orders/",
            headers={
                "authorization": "Basic "
                + __import__("base64").b64encode(f"{user}:{password}".encode()).decode()
            },
        )
        assert denied.status_code == 401


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"card_number": "４１１１１１１１１１１１１１１１"}, "card_number"),
        ({"card_number": "٣٧٨٢٨٢٢٤٦٣١٠٠٠٥", "cvv": "123"}, "card_number"),
        ({"card_number": "378282246310005", "cvv": "123\n"}, "cvv"),
        ({"card_number": "411111111117"}, "card_number"),  # 12 digits, passes Luhn
    ],
)
def test_card_data_is_ascii_digits_exactly(server, raw, changes, field):
    order = new_order(raw)
    answer = post(raw, do_path(order), {**CARD, **changes})
    assert answer.status_code == 400
    assert answer.json()["failure_message"].startswith(f"{field}:")
    assert raw.get(f"/orders/{order['id']}/").json()["status"] == "new"


@pytest.mark.parametrize(
    "client",
    [
        {"email": "a@b.co\n"},
        {"state": "CA\n"},
        {"zip_code": "00000\n"},
    ],
)
def test_a_final_line_break_does_not_pass_a_pattern(raw, client):
    body = {"client": client, "currency": "EUR", "products": [{"title": "T", "price": 1}]}
    assert post(raw, "/orders/", body).status_code == 400
    assert post(raw, "/orders/", {**body, "client": {}, "language": "en\n"}).status_code == 400
    assert post(raw, "/taxes/", {"name": "VAT", "percent": "10\n"}).status_code == 400


def test_the_answers_addresses_never_come_from_the_host_header(server, raw):
    order = post(
        raw,
        "/orders/",
        {"client": {}, "currency": "EUR", "products": [{"title": "T", "price": 1}]},
        headers={"host": "evil.example"},
    ).json()
    for name in ("checkout_url", "checkout_script_url", "api_do_url"):
        assert order[name].startswith(f"{server.url}/gateway/"), order[name]
    script = httpx.get(order["checkout_script_url"], headers={"host": "evil.example"}).text
    assert "evil.example" not in script


def test_the_journal_and_error_bodies_mask_card_data_and_page_tokens(server, raw):
    httpx.delete(f"{server.url}/_sandbox/requests")
    order = new_order(raw)
    token = order["checkout_url"].rstrip("/").rsplit("/", 1)[1]
    httpx.get(order["checkout_url"])
    raw.get("/orders/", params={"filter": 'id[eq]"cvv=123"'})
    unknown = raw.get("/orders/4111111111111111/")
    post(raw, "/orders/", {"client": {}}, key="4111111111111111")
    raw.get("/orders/", headers={"x-partner-code": "5555555555554444"})
    journal = httpx.get(f"{server.url}/_sandbox/requests").text
    assert "4111111111111111" not in unknown.text
    assert "************1111" in unknown.json()["failure_message"]
    for secret in ("4111111111111111", "5555555555554444", token, "cvv=123"):
        assert secret not in journal
    assert "cvv=***" in journal


def test_a_masked_card_cannot_be_saved_again(server, raw):
    customer = post(raw, "/clients/", {"email": "s@ex.lt"}).json()["id"]
    who = {"email": "s@ex.lt", "original_client": customer}
    first = new_order(raw, client=who, setup_future_use="recurring")
    assert post(raw, do_path(first), CARD).json()["status"] == "charged"
    again = new_order(raw, client=who, setup_future_use="automatic")
    answer = post(
        raw,
        do_path(again),
        {"card_number": "************1111", "exp_month": "**", "exp_year": "**"},
    )
    assert answer.status_code == 400
    assert "saving needs the card itself" in answer.json()["failure_message"]
    # an order that uses the saved card offers only it on the checkout page
    follow = new_order(raw, client=who)
    page = httpx.get(follow["checkout_url"]).text
    assert "•••• 1111" in page and "name=card_number" not in page


def test_refund_bodies_empty_and_braces_are_one_request_and_null_is_refused(server, raw):
    order = new_order(raw)
    post(raw, do_path(order), CARD)
    key = uuid.uuid4().hex
    first = post(raw, f"/orders/{order['id']}/refund/", key=key)
    again = post(raw, f"/orders/{order['id']}/refund/", {}, key=key)
    assert first.status_code == again.status_code == 200
    assert again.headers["x-idempotent-replay"] == "true"
    other = new_order(raw)
    post(raw, do_path(other), CARD)
    null = post(
        raw,
        f"/orders/{other['id']}/refund/",
        content=b"null",
        headers={"content-type": "application/json"},
    )
    assert null.status_code == 400
    assert null.json()["failure_message"] == "The body must be a JSON object"
    assert raw.get(f"/orders/{other['id']}/").json()["status"] == "charged"


@pytest.mark.parametrize("text", ["A\u0085B", "A\u202eB", "A\u2066B", "A\x9bB"])
def test_c1_controls_and_direction_overrides_are_refused(raw, text):
    body = {"client": {}, "currency": "EUR", "products": [{"title": text, "price": 1}]}
    answer = post(raw, "/orders/", body)
    assert answer.status_code == 400
    assert "control character" in answer.json()["failure_message"]


def test_an_error_body_never_carries_a_lone_surrogate(raw):
    answer = post(
        raw,
        "/orders/",
        content=b'{"client": {"\\udfff": 1}, "currency": "EUR"}',
        headers={"content-type": "application/json"},
    )
    assert answer.status_code == 400
    message = answer.json()["failure_message"]
    assert not any("\ud800" <= ch <= "\udfff" for ch in message)
    assert "\\udfff" in message


def test_a_3ds_form_sends_one_decision_and_an_unanswered_3ds_declines(server, raw):
    order = new_order(raw)
    pending = post(raw, do_path(order), {**CARD, "card_number": "4000000000003220"}).json()
    both = httpx.post(
        pending["three_ds_url"],
        content=b"decision=authenticate&decision=fail",
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert both.status_code == 400
    assert raw.get(f"/orders/{order['id']}/").json()["status"] == "pending_3ds"
    httpx.post(f"{server.url}/_sandbox/clock", json={"advance_seconds": 15 * 60}).raise_for_status()
    after = raw.get(f"/orders/{order['id']}/").json()
    assert after["status"] == "declined" and after["three_ds_url"] is None
    assert after["history"][-1]["message"].startswith("3DS authentication was not completed")
    assert httpx.post(pending["three_ds_url"], data={"decision": "authenticate"}).status_code == 400
