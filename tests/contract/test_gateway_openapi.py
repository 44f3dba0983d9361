"""The gateway requests the client builds and the answers the sandbox gives fit gateway.yaml."""

import datetime as dt
import re
from decimal import Decimal

import httpx
import pytest
import yaml
from openapi_core import OpenAPI

from app.api import gateway as g
from app.api.errors import ApiError
from app.api.models import build
from app.core.resources import OPENAPI_GATEWAY
from tests.conftest import make_gateway, run
from tests.contract.test_openapi import SERVER, OpenApiRequest, OpenApiResponse, Recorder

YEAR = dt.date.today().year + 3


def _card(number: str = "4111111111111111", **changes):
    return build(
        g.PaymentCreate,
        {"card_number": number, "exp_month": 12, "exp_year": YEAR, "cvv": "123", **changes},
    )


@pytest.fixture(scope="module")
def exchanges(sandbox):
    """Every gateway operation, successes and refusals, recorded on the wire."""
    recorder = Recorder()
    client = make_gateway(sandbox.url, transport=recorder)
    wrong = make_gateway(sandbox.url, password="wrong", transport=recorder)

    async def expect_error(coroutine):
        try:
            await coroutine
        except ApiError:
            return
        raise AssertionError("expected a refusal")

    async def scenario():
        customer = await client.create_customer(build(g.CustomerCreate, {"email": "c@ex.lt"}))
        tax = await client.create_tax(build(g.TaxCreate, {"name": "VAT", "percent": "21"}))
        await client.list_taxes()
        who = {"email": "c@ex.lt", "original_client": customer.id}
        saving = await client.create_order(
            build(
                g.OrderCreate,
                {
                    "client": who,
                    "currency": "EUR",
                    "products": [
                        {"title": "Seat", "price": "10.50", "quantity": 2, "tax": {"id": tax.id}}
                    ],
                    "setup_future_use": "recurring",
                    "force_save_method": True,
                    "language": "lt",
                    "dynamic_descriptor": "SHOP*SEAT",
                },
            )
        )
        await client.pay(saving, _card(ip_address="192.0.2.1", cardholder_name="E T"))
        await client.get_customer(customer.id)
        recurring = await client.create_order(
            build(
                g.OrderCreate,
                {"client": who, "currency": "EUR", "products": [{"title": "M", "price": 9}]},
            )
        )
        charged = await client.charge(recurring.id)
        await client.refund(charged.id, Decimal("1.00"), currency="EUR")
        await client.refund(charged.id, currency="EUR")
        held = await client.create_order(
            build(
                g.OrderCreate,
                {
                    "client": {"email": "h@ex.lt"},
                    "currency": "EUR",
                    "products": [{"title": "Room", "price": "100"}],
                    "skip_capture": True,
                    "travel_data": {
                        "lodging": {
                            "booking_number": "B1",
                            "checkin_date": "20261201",
                            "checkout_date": "20261203",
                        }
                    },
                },
            )
        )
        three_ds = await client.pay(held, _card("4000000000003220"))
        by_page = await client.create_order(
            build(
                g.OrderCreate,
                {
                    "client": {"email": "p@ex.lt"},
                    "currency": "EUR",
                    "products": [{"title": "P", "price": 1}],
                },
            )
        )
        async with httpx.AsyncClient(transport=recorder) as browser:
            await browser.get(three_ds.checkout_url)
            await browser.get(three_ds.checkout_script_url)
            await browser.get(three_ds.three_ds_url)
            await browser.post(three_ds.three_ds_url, data={"decision": "authenticate"})
            token = by_page.checkout_url.rstrip("/").rsplit("/", 1)[1]
            await browser.post(
                by_page.api_do_url,
                data={
                    "checkout_token": token,
                    "card_number": "4111 1111 1111 1111",
                    "exp_month": "12",
                    "exp_year": str(YEAR),
                    "cvv": "123",
                },
            )
        await client.capture(held.id, Decimal("60"), currency="EUR")
        await expect_error(client.capture(held.id, Decimal("1"), currency="EUR"))
        other = await client.create_order(
            build(
                g.OrderCreate,
                {
                    "client": {"email": "o@ex.lt"},
                    "currency": "JPY",
                    "products": [{"title": "T", "price": 500}],
                    "is_moto": True,
                },
            )
        )
        await client.pay(other, _card(cvv=None))
        await client.reverse(other.id)
        await client.get_order(other.id)
        await client.list_orders(limit=5, filter='status[eq]"reversed"')
        await expect_error(client.get_order("00000000-0000-0000-0000-000000000000"))
        await expect_error(wrong.list_orders())
        for each in (client, wrong):
            await each.aclose()

    run(scenario())
    return recorder.exchanges


@pytest.fixture(scope="module")
def spec():
    return OpenAPI.from_file_path(str(OPENAPI_GATEWAY))


def _adapted(request: httpx.Request) -> OpenApiRequest:
    adapted = OpenApiRequest(request)
    adapted.host_url = f"{SERVER}/gateway"
    return adapted


def test_the_document_is_valid_openapi_31(spec):
    assert spec.spec["openapi"] == "3.1.0"
    assert spec.spec["servers"][0]["url"].endswith("/gateway")


def test_every_operation_was_exercised(exchanges):
    seen = {
        (r.method.lower(), r.url.path, r.headers.get("content-type", "").split(";")[0])
        for r, _ in exchanges
    }
    paths = yaml.safe_load(OPENAPI_GATEWAY.read_text(encoding="utf-8"))["paths"]
    for path, operations in paths.items():
        # a path template matches one segment per parameter, nothing more
        pattern = re.compile(
            "/gateway"
            + re.sub(r"\{[^}]+\}", "[^/]+", re.escape(path).replace("\\{", "{").replace("\\}", "}"))
            + "$"
        )
        for method, operation in operations.items():
            bodies = list(operation.get("requestBody", {}).get("content", {})) or [""]
            for media in bodies:
                assert any(
                    m == method and pattern.match(p) and (not media or kind == media)
                    for m, p, kind in seen
                ), (method, path, media)


def test_requests_fit_the_document(exchanges, spec):
    for request, _ in exchanges:
        spec.validate_request(_adapted(request))


def test_responses_fit_the_document(exchanges, spec):
    statuses = set()
    for request, response in exchanges:
        statuses.add(response.status_code)
        spec.validate_response(_adapted(request), OpenApiResponse(response))
    assert {200, 400, 401} <= statuses
