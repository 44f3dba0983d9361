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
from app.sandbox.gateway import state as gateway_state
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
    monkeypatch.setattr(gateway_state, "MAX_ORDERS", orders_held(server))
    answer = post(
        raw,
        "/orders/",
        {"client": {}, "currency": "EUR", "products": [{"title": "T", "price": 1}]},
    )
    assert answer.status_code == 400
    assert "reset it to start over" in answer.json()["failure_message"]
