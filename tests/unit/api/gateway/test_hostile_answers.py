"""A hostile gateway's answers leave the client within its bounds: amounts and percents read
from bounded text only, four digits of a card and no more, moments within the years every
date sum stays inside, a Date header far off ignored, and ids that would name another path
never sent. Each refusal names the field and the request ID; none is a traceback."""

from __future__ import annotations

import datetime as dt
from typing import Any

import httpx
import pytest

from app.api import gateway as g
from app.api.errors import InvalidInput, ResponseValidationError
from app.api.http import RetryPolicy
from app.api.profile import Profile
from tests.conftest import run
from tests.gateway_helpers import BASE, ORDER, ORDER_ID, order_with


def client_answering(content: bytes, headers: dict[str, str] | None = None) -> g.GatewayClient:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=content, headers=headers or {})

    profile = Profile(base_url=BASE, user="u", password="p", partner_code="")
    transport = g.gateway_transport(
        profile, retry=RetryPolicy(attempts=1), transport=httpx.MockTransport(answer)
    )
    return g.GatewayClient(transport)


def refusal_of(content: bytes) -> str:
    async def go() -> str:
        client = client_answering(content)
        try:
            with pytest.raises(ResponseValidationError) as caught:
                await client.get_order(ORDER_ID)
        finally:
            await client.aclose()
        return str(caught.value)

    return run(go())


def test_the_order_as_documented_is_read():
    import json

    async def go() -> g.Order:
        client = client_answering(json.dumps(ORDER).encode())
        try:
            return await client.get_order(ORDER_ID)
        finally:
            await client.aclose()

    order = run(go())
    assert str(order.amount) == "1.00" and order.card is not None and order.card.last4 == "1111"


@pytest.mark.parametrize(
    ("field", "raw", "named"),
    [
        ("amount", '"1E+999999999"', "amount"),
        ("amount", "1E+999999999", "amount"),
        ("amount", "1e400", "amount"),
        ("amount", '"1E+9999999999999999999"', "amount"),
        ("amount", '"12345678901234.00"', "amount"),  # 14 digits before the point
        ("amount", '"1.00000"', "amount"),  # 5 after it
        ("amount", '"-1.00"', "amount"),
        ("amount", "10.5", "amount"),  # a float
        ("amount", '"NaN"', "amount"),
        ("amount_refunded", '"1' + "0" * 5000 + '"', "amount_refunded"),
        ("history__0__amount", '"1E+999999999"', "history.0.amount"),
        ("card__last4", '"4111111111111111"', "card.last4"),
        ("card__last4", '"\\u001b[2J1111"', "card.last4"),
        ("card__last4", '"11a1"', "card.last4"),
        ("created_at", '"0001-01-01T00:00:00+01:00"', "created_at"),
        ("created_at", '"9999-12-31T23:00:00-05:00"', "created_at"),
        ("paid_at", '"9999-12-31T23:59:59Z"', "paid_at"),
        ("reserved_until", '"0001-01-01T00:00:00Z"', "reserved_until"),
        ("created_at", '"2026-11-24T23:04:26"', "created_at"),  # no time zone
        ("history__0__at", '"0001-01-01T00:00:00+14:00"', "history.0.at"),
    ],
)
def test_a_value_past_the_contracts_bounds_is_an_unexpected_answer_naming_it(field, raw, named):
    import json

    marker = "__HOSTILE__"
    text = json.dumps(order_with(**{field: marker})).replace(f'"{marker}"', raw)
    message = refusal_of(text.encode())
    assert message.startswith(
        f"The answer to GET /orders/{ORDER_ID}/ does not fit the contract: {named}: "
    )
    assert message.endswith(")") and "(x-request-id " in message
    assert len(message) < 400  # the value is never quoted whole
    assert "4111111111111111" not in message and "\x1b" not in message


def test_a_tax_percent_is_read_from_bounded_text_only():
    async def go(percent: str) -> Any:
        body = f'[{{"id": "t", "name": "VAT", "percent": {percent}}}]'.encode()
        client = client_answering(body)
        try:
            return await client.list_taxes()
        except ResponseValidationError as exc:
            return exc
        finally:
            await client.aclose()

    assert str(run(go('"21.00"'))[0].percent) == "21.00"
    for hostile in ('"1E+999999999"', '"101.00"', '"21.001"', "21.5", '"-1"'):
        refused = run(go(hostile))
        assert isinstance(refused, ResponseValidationError), hostile
        assert "0.percent: " in str(refused)


@pytest.mark.parametrize(
    ("date", "taken"),
    [
        ("Fri, 31 Dec 9999 23:59:59 GMT", False),
        ("Fri, 31 Dec 9999 23:59:59 -1400", False),
        ("Sat, 01 Jan 10000 00:00:00 GMT", False),
        ("not a date", False),
        ("Mon, 01 Jan 0001 00:00:00 +0100", True),  # RFC 5322 reads a year 01 as 2001
        ("Tue, 01 Jan 2999 00:00:00 GMT", True),  # the sandbox's clock may be moved that far
    ],
)
def test_a_date_header_far_off_is_not_taken_and_none_makes_a_date_sum_overflow(date, taken):
    import json

    async def go() -> dt.datetime:
        client = client_answering(json.dumps(ORDER).encode(), {"Date": date})
        try:
            await client.get_order(ORDER_ID)
            return client.transport.server_now()
        finally:
            await client.aclose()

    now = run(go())
    assert (abs(now - dt.datetime.now(dt.UTC)) > dt.timedelta(days=1)) == taken
    assert now + dt.timedelta(days=3 * 366) > now  # the sums the desk makes with it


@pytest.mark.parametrize("order_id", [".", "..", "%2e", "%2E%2e", ".%2e", "%252e%252e"])
def test_an_id_that_would_name_another_path_is_never_sent(order_id):
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json=[])

    async def go() -> InvalidInput:
        profile = Profile(base_url=BASE, user="u", password="p", partner_code="")
        client = g.GatewayClient(
            g.gateway_transport(profile, transport=httpx.MockTransport(answer))
        )
        try:
            with pytest.raises(InvalidInput) as caught:
                await client.get_order(order_id)
            return caught.value
        finally:
            await client.aclose()

    refused = run(go())
    assert refused.field == "order id"
    assert refused.problem == f"{order_id!r} cannot be an ID: it would name another path"
    assert sent == []
