"""The gateway's request models: card data kept secret, the contract checked before sending."""

import logging
from decimal import Decimal

import httpx
import pytest

from app.api import gateway as g
from app.api.errors import BadRequest, InvalidInput
from app.api.http import Exchange, RetryPolicy
from app.api.models import build
from app.api.profile import Profile
from app.core import redaction
from tests.conftest import run

CARD = {"card_number": "4111 1111 1111 1111", "exp_month": 12, "exp_year": 2099, "cvv": "123"}


def test_card_data_is_secret_except_in_the_request_body(caplog):
    payment = build(g.PaymentCreate, CARD)
    for text in (repr(payment), str(payment), str(payment.model_dump())):
        assert "4111" not in text and "123'" not in text
    logging.getLogger("partner_desk.test").info("payment %s", payment)
    assert "4111111111111111" not in caplog.text
    assert payment.body() == {
        "card_number": "4111111111111111",
        "exp_month": 12,
        "exp_year": 2099,
        "cvv": "123",
    }


@pytest.mark.parametrize(
    ("changes", "field", "problem"),
    [
        ({"card_number": "4111111111111112"}, "card_number", "fails the Luhn check"),
        ({"card_number": "41111"}, "card_number", "13 to 19 digits"),
        ({"card_number": "xxxx"}, "card_number", "last four digits"),
        ({"exp_month": 13}, "exp_month", ""),
        ({"exp_month": "**"}, "", "a masked expiry goes only with a saved card"),
        ({"cvv": "12"}, "cvv", "3 or 4 digits"),
        ({"ip_address": "1.2.3"}, "ip_address", "is not an IPv4 or IPv6 address"),
        ({"scenario": "weekly"}, "scenario", ""),
    ],
)
def test_payment_checks_name_the_field(changes, field, problem):
    with pytest.raises(InvalidInput) as error:
        build(g.PaymentCreate, {**CARD, **changes})
    assert error.value.field.startswith(field)
    assert problem in str(error.value)
    assert "4111111111111112" not in str(error.value)


def test_a_masked_saved_card_is_accepted_with_a_masked_expiry():
    payment = build(
        g.PaymentCreate, {"card_number": "************1111", "exp_month": "**", "exp_year": "**"}
    )
    assert payment.masked and payment.body()["card_number"] == "************1111"


def test_order_amounts_take_the_currencys_exponent_and_never_a_float():
    order = build(
        g.OrderCreate,
        {"client": {}, "currency": "EUR", "products": [{"title": "T", "price": "10.5"}]},
    )
    assert order.body()["products"][0]["price"] == "10.50"
    for price, message in ((10.5, "never a float"), ("10.505", "2 decimal places")):
        with pytest.raises(InvalidInput) as error:
            build(
                g.OrderCreate,
                {"client": {}, "currency": "EUR", "products": [{"title": "T", "price": price}]},
            )
        assert message in str(error.value)


def test_tax_percent_has_at_most_two_decimals():
    assert build(g.TaxCreate, {"name": "VAT", "percent": "21.5"}).body() == {
        "name": "VAT",
        "percent": "21.5",
    }
    with pytest.raises(InvalidInput):
        build(g.TaxCreate, {"name": "VAT", "percent": "21.555"})
    with pytest.raises(InvalidInput):
        build(g.TaxCreate, {"name": "VAT", "percent": 101})


def test_the_request_log_and_the_log_never_show_a_card_number(caplog):
    redaction.install()  # as the app does at its start
    caplog.set_level(logging.INFO)
    seen: list[Exchange] = []

    def answer(request: httpx.Request) -> httpx.Response:
        body = {"failure_message": "no", "detail": {"error_id": "e", "title": "Not found"}}
        return httpx.Response(400, json=body)

    async def go() -> None:
        profile = Profile(base_url="https://gw.example", user="u", password="p", partner_code="")
        client = g.GatewayClient(
            g.gateway_transport(
                profile,
                retry=RetryPolicy(attempts=1),
                transport=httpx.MockTransport(answer),
            )
        )
        client.transport.add_listener(seen.append)
        with pytest.raises(BadRequest):
            await client.get_order("4111111111111111")
        with pytest.raises(BadRequest):
            await client.get_order("abc4111111111111111xyz")  # letters protect nothing
        await client.aclose()

    run(go())
    assert seen and "4111111111111111" not in seen[0].path
    assert seen[0].path.endswith("************1111/")
    assert seen[1].path.endswith("/orders/abc************1111xyz/")
    assert "4111111111111111" not in caplog.text


def test_capture_and_refund_amounts_are_checked_before_sending():
    async def go() -> list[str]:
        profile = Profile(base_url="https://gw.example", user="u", password="p", partner_code="")
        sent: list[str] = []

        def answer(request: httpx.Request) -> httpx.Response:
            sent.append(request.content.decode())
            return httpx.Response(500)

        client = g.GatewayClient(
            g.gateway_transport(profile, transport=httpx.MockTransport(answer))
        )
        for call in (
            client.capture("o", Decimal("0.001"), currency="EUR"),
            client.refund("o", Decimal("0"), currency="EUR"),
            client.capture("o", Decimal("1.5"), currency="JPY"),
        ):
            with pytest.raises(InvalidInput):
                await call
        await client.aclose()
        return sent

    assert run(go()) == []
