"""The card gateway end to end: every scenario against the sandbox through the service layer,
every rule refused with a 400 and the error body, time moved to show expiry, the reversal day
and the refund age."""

from __future__ import annotations

import datetime as dt
import logging
import re
import urllib.parse
import uuid
from collections.abc import Awaitable, Callable, Iterator
from decimal import Decimal
from typing import Any

import httpx
import pytest

from app.api import gateway as g
from app.api.errors import BadRequest, InvalidInput
from app.api.models import build
from app.core.gateway.cards import mask_card_numbers
from app.sandbox.app import SandboxSettings
from app.sandbox.gateway.records import two_years_after
from app.sandbox.server import BackgroundSandbox
from tests.conftest import advance, make_gateway, run

VISA = "4111 1111 1111 1111"
MASTERCARD = "5555555555554444"
AMEX = "378282246310005"
DISCOVER = "6011111111111117"
DECLINES = "4000000000000002"
NEEDS_3DS = "4000000000003220"
CHARGEBACK = "4000000000000259"
ADDRESS = {"address": "Gedimino pr. 1", "zip_code": "01103", "city": "Vilnius", "country": "LT"}


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    """A sandbox of this module's own: its clock is moved by days here."""
    server = BackgroundSandbox(SandboxSettings(frozen_clock=True, demo_statement_records=0))
    yield server.start()
    server.stop()


def gateway(url: str, user: str = "demo") -> g.GatewayClient:
    return make_gateway(url, user=user)


def order_body(**changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "client": {"email": "buyer@example.lt"},
        "currency": "EUR",
        "products": [{"title": "Ticket", "price": "10.00"}],
    }
    body.update(changes)
    return body


def card(number: str = VISA, **changes: Any) -> g.PaymentCreate:
    fields: dict[str, Any] = {
        "card_number": number,
        "exp_month": 12,
        "exp_year": dt.date.today().year + 3,
        "cvv": "1234" if number == AMEX else "123",
        "cardholder_name": "Egle Tester",
    }
    fields.update(changes)
    return build(g.PaymentCreate, {k: v for k, v in fields.items() if v is not None})


def with_gateway(
    url: str, work: Callable[[g.GatewayClient], Awaitable[Any]], user: str = "demo"
) -> Any:
    async def go() -> Any:
        client = gateway(url, user)
        try:
            return await work(client)
        finally:
            await client.aclose()

    return run(go())


async def paid(gw: g.GatewayClient, payment: g.PaymentCreate | None = None, /, **body: Any):
    order = await gw.create_order(build(g.OrderCreate, order_body(**body)))
    return await gw.pay(order, payment or card())


def refused(error: pytest.ExceptionInfo[BadRequest], *parts: str) -> None:
    assert error.value.status == 400
    assert error.value.error_id and error.value.title
    for part in parts:
        assert part in (error.value.failure_message or ""), error.value.failure_message


# ---------------------------------------------------------------- One-Step, taxes, declines


def test_one_step_order_is_charged_and_shows_only_the_last_four_digits(url):
    async def work(client):
        order = await client.create_order(build(g.OrderCreate, order_body()))
        assert (order.status, order.scenario, order.amount) == ("new", "one_step", Decimal("10"))
        assert order.api_do_url.endswith(f"/gateway/orders/{order.id}/do/")
        assert "/gateway/checkout/" in order.checkout_url
        assert order.checkout_script_url.endswith("sdk.js")
        done = await client.pay(order, card())
        again = await client.get_order(order.id)
        return done, again

    done, again = with_gateway(url, work)
    assert done.status == "charged"
    assert done.amount_captured == Decimal("10.00")
    assert done.card is not None and (done.card.brand, done.card.last4) == ("visa", "1111")
    assert [entry.event for entry in done.history] == ["created", "charged"]
    assert again == done


def test_taxes_are_added_on_top_of_each_line(url):
    async def work(client):
        tax = await client.create_tax(build(g.TaxCreate, {"name": "VAT", "percent": "21"}))
        assert tax.percent == Decimal("21.00")
        assert tax in await client.list_taxes()
        products = [
            {"title": "Seat", "price": "10.50", "quantity": 2, "tax": {"id": tax.id}},
            {"title": "Bag", "price": 5},
        ]
        order = await client.create_order(build(g.OrderCreate, order_body(products=products)))
        return order

    order = with_gateway(url, work)
    assert order.amount == Decimal("30.41")  # 21.00 + 4.41 tax + 5.00
    assert "taxes" in order.capabilities


def test_an_unknown_tax_is_refused(url):
    body = order_body(products=[{"title": "X", "price": 1, "tax": {"id": str(uuid.uuid4())}}])
    with pytest.raises(BadRequest) as error:
        with_gateway(url, lambda client: client.create_order(build(g.OrderCreate, body)))
    refused(error, "products.0.tax.id: tax")
    assert error.value.title == "Not found"


def test_a_declining_card_declines_the_order_and_a_3ds_card_waits_for_the_page(url):
    async def work(client):
        declined = await paid(client, card(DECLINES))
        waiting = await paid(client, card(NEEDS_3DS))
        failing = await paid(client, card(NEEDS_3DS))
        return declined, waiting, failing

    declined, waiting, failing = with_gateway(url, work)
    assert declined.status == "declined" and declined.amount_captured == 0
    assert waiting.status == "pending_3ds" and waiting.three_ds_url
    page = httpx.get(waiting.three_ds_url)
    assert page.status_code == 200 and "Authenticate" in page.text and "Fail" in page.text
    assert httpx.post(waiting.three_ds_url, data={"decision": "authenticate"}).status_code == 200
    assert httpx.post(failing.three_ds_url, data={"decision": "fail"}).status_code == 200

    async def read(client):
        return await client.get_order(waiting.id), await client.get_order(failing.id)

    authenticated, failed = with_gateway(url, read)
    assert authenticated.status == "charged" and authenticated.three_ds_url is None
    assert [e.event for e in authenticated.history][-2:] == ["three_ds_authenticated", "charged"]
    assert failed.status == "declined"
    # used once: the page is gone
    assert httpx.post(waiting.three_ds_url, data={"decision": "fail"}).status_code == 400


# ---------------------------------------------------------------- Two-Step


def test_two_step_reserves_captures_once_in_part_and_releases_the_rest(url):
    async def work(client):
        held = await paid(client, skip_capture=True)
        captured = await client.capture(held.id, Decimal("4.00"), currency="EUR")
        with pytest.raises(BadRequest) as again:
            await client.capture(held.id, Decimal("1.00"), currency="EUR")
        return held, captured, again

    held, captured, again = with_gateway(url, work)
    assert held.status == "hold" and held.scenario == "two_step"
    assert held.amount_reserved == Decimal("10.00") and held.amount_captured == 0
    assert held.reserved_until - held.paid_at == dt.timedelta(days=7)
    assert captured.status == "charged" and captured.amount_captured == Decimal("4.00")
    assert captured.amount_reserved == 0
    assert [(e.event, e.amount) for e in captured.history][-2:] == [
        ("captured", Decimal("4.00")),
        ("released", Decimal("6.00")),
    ]
    refused(again, "a capture is made once")


def test_a_capture_above_the_reservation_or_below_a_cent_is_refused(url):
    async def work(client):
        held = await paid(client, skip_capture=True)
        with pytest.raises(BadRequest) as above:
            await client.capture(held.id, Decimal("10.01"), currency="EUR")
        with pytest.raises(InvalidInput) as below:
            await client.capture(held.id, Decimal("0"), currency="EUR")
        return held, above, below, await client.get_order(held.id)

    held, above, below, after = with_gateway(url, work)
    refused(above, "total: must be at least 0.01 and at most the reserved 10.00")
    assert below.value.field == "total"
    assert after == held  # a refused request changes nothing


def test_the_reservation_expires_after_seven_days(url):
    async def work(client):
        return await paid(client, skip_capture=True)

    held = with_gateway(url, work)
    advance(url, days=7)

    async def later(client):
        order = await client.get_order(held.id)
        with pytest.raises(BadRequest) as error:
            await client.capture(held.id, Decimal("1"), currency="EUR")
        return order, error

    order, error = with_gateway(url, later)
    assert order.status == "expired" and order.amount_reserved == 0
    assert order.history[-1].event == "expired"
    refused(error, "an expired order cannot be captured")


# ---------------------------------------------------------------- refunds and reversal


def test_partial_refunds_then_a_full_refund_refunds_the_rest(url):
    async def work(client):
        order = await paid(client)
        first = await client.refund(order.id, Decimal("2.50"), currency="EUR")
        with pytest.raises(BadRequest) as too_much:
            await client.refund(order.id, Decimal("7.51"), currency="EUR")
        rest = await client.refund(order.id, currency="EUR")
        with pytest.raises(BadRequest) as nothing_left:
            await client.refund(order.id, currency="EUR")
        return first, too_much, rest, nothing_left

    first, too_much, rest, nothing_left = with_gateway(url, work)
    assert first.status == "partially_refunded" and first.amount_refunded == Decimal("2.50")
    refused(too_much, "at most the 7.50 that remains captured")
    assert rest.status == "refunded" and rest.amount_refunded == Decimal("10.00")
    assert rest.history[-1].amount == Decimal("7.50")
    refused(nothing_left, "The order is refunded")


def test_a_partial_refund_below_a_cent_is_refused_by_the_sandbox_too(url):
    async def work(client):
        return await paid(client)

    order = with_gateway(url, work)
    with httpx.Client(auth=("demo", "demo")) as raw:
        answer = raw.post(
            f"{url}/gateway/orders/{order.id}/refund/",
            json={"amount": "0.001"},
            headers={"x-request-id": uuid.uuid4().hex},
        )
        zero = raw.post(
            f"{url}/gateway/orders/{order.id}/refund/",
            json={"amount": 0},
            headers={"x-request-id": uuid.uuid4().hex},
        )
    assert answer.status_code == 400
    assert answer.json()["failure_message"] == "amount: EUR amounts have 2 decimal places"
    assert zero.json()["failure_message"] == "amount: must be at least 0.01"


def test_reversal_on_the_day_of_payment_only_and_in_full(url):
    async def work(client):
        today = await paid(client)
        reversed_ = await client.reverse(today.id)
        held = await paid(client, skip_capture=True)
        reversed_hold = await client.reverse(held.id)
        partly = await paid(client)
        await client.refund(partly.id, Decimal("1"), currency="EUR")
        with pytest.raises(BadRequest) as after_refund:
            await client.reverse(partly.id)
        tomorrow = await paid(client)
        return reversed_, reversed_hold, after_refund, tomorrow

    reversed_, reversed_hold, after_refund, tomorrow = with_gateway(url, work)
    assert reversed_.status == "reversed" and reversed_.amount_captured == 0
    assert reversed_hold.status == "reversed" and reversed_hold.amount_reserved == 0
    refused(after_refund, "only in full")
    with httpx.Client(auth=("demo", "demo")) as raw:
        with_amount = raw.post(
            f"{url}/gateway/orders/{tomorrow.id}/reverse/",
            json={"amount": "1.00"},
            headers={"x-request-id": uuid.uuid4().hex},
        )
    assert with_amount.json()["failure_message"] == (
        "A reversal is only in full: send no body (no amount)"
    )
    advance(url, days=1)
    with pytest.raises(BadRequest) as next_day:
        with_gateway(url, lambda client: client.reverse(tomorrow.id))
    refused(next_day, "only on the day of payment", "refund it instead")


def test_a_refund_is_possible_for_two_years_only_to_the_calendar_day(url):
    async def work(client):
        return await paid(client), await paid(client)

    old, older = with_gateway(url, work)
    last_day = two_years_after(old.paid_at)
    # the last day, at its very end: still refundable
    end_of_day = dt.datetime.combine(last_day.date(), dt.time(23, 59, 59), dt.UTC)
    advance(url, (end_of_day - old.paid_at).total_seconds())
    refunded = with_gateway(url, lambda client: client.refund(old.id, currency="EUR"))
    assert refunded.status == "refunded"
    advance(url, 1)  # the next day
    with pytest.raises(BadRequest) as error:
        with_gateway(url, lambda client: client.refund(older.id, currency="EUR"))
    refused(error, "not older than two years", f"paid on {older.paid_at:%Y-%m-%d}")


def test_a_refund_after_a_chargeback_is_declined_naming_the_rdr(url):
    async def work(client):
        order = await paid(client, card(CHARGEBACK))
        with pytest.raises(BadRequest) as error:
            await client.refund(order.id, currency="EUR")
        return error

    error = with_gateway(url, work)
    assert error.value.title == "Refund declined"
    assert re.search(r"\(RDR RDR-[0-9A-F]{8}\)", error.value.failure_message or "")


# ---------------------------------------------------------------- Zero-Amount and saving


def test_zero_amount_needs_saving_and_moves_no_money(url):
    with pytest.raises(InvalidInput) as local:
        build(g.OrderCreate, order_body(products=None, payment_system="AUTH"))
    assert "setup_future_use or force_save_method" in str(local.value)
    with httpx.Client(auth=("demo", "demo")) as raw:
        answer = raw.post(
            f"{url}/gateway/orders/",
            json={"client": {"email": "a@example.lt"}, "currency": "EUR"},
            headers={"x-request-id": uuid.uuid4().hex},
        )
    assert answer.status_code == 400
    assert "setup_future_use or force_save_method" in answer.json()["failure_message"]

    async def work(client):
        customer = await client.create_customer(build(g.CustomerCreate, {"email": "z@ex.lt"}))
        body = order_body(
            products=None,
            payment_system="AUTH",
            setup_future_use="automatic",
            client={"email": "z@ex.lt", "original_client": customer.id},
        )
        order = await client.create_order(build(g.OrderCreate, body))
        verified = await client.pay(order, card(MASTERCARD))
        return order, verified, await client.get_customer(customer.id)

    order, verified, customer = with_gateway(url, work)
    assert order.scenario == "zero_amount" and order.amount == 0
    assert order.capabilities == ["payment_method_saving"]
    assert verified.status == "verified" and verified.amount_captured == 0
    assert verified.cof_trace_id
    (saved,) = customer.cards
    assert (saved.brand, saved.last4, saved.scenario) == ("mastercard", "4444", "automatic")


def test_service_side_saving_then_a_recurring_charge(url):
    async def work(client):
        customer = await client.create_customer(build(g.CustomerCreate, {"email": "r@ex.lt"}))
        who = {"email": "r@ex.lt", "original_client": customer.id}
        first = await client.create_order(
            build(
                g.OrderCreate,
                order_body(client=who, setup_future_use="recurring", force_save_method=True),
            )
        )
        saved = await client.pay(first, card())
        again = await client.create_order(
            build(g.OrderCreate, order_body(client=who, products=[{"title": "M", "price": 9}]))
        )
        charged = await client.charge(again.id)
        with pytest.raises(BadRequest) as twice:
            await client.charge(again.id)
        return saved, again, charged, twice

    saved, again, charged, twice = with_gateway(url, work)
    assert saved.status == "charged" and saved.cof_trace_id
    assert "card_saved" in [e.event for e in saved.history]
    assert again.capabilities == ["recurring"]  # the card's registration applies
    assert charged.status == "charged" and charged.amount_captured == Decimal("9.00")
    assert charged.cof_trace_id == saved.cof_trace_id
    assert charged.card is not None and charged.card.last4 == "1111"
    refused(twice, "The order is charged")


def test_a_saved_cards_registration_is_never_an_id_the_card_masking_would_hide(url, monkeypatch):
    from app.sandbox.gateway import payments

    made = payments.secrets.token_hex
    asked: list[int | None] = []

    def token_hex(count: int | None = None) -> str:
        asked.append(count)
        first = count == 8 and asked.count(8) == 1
        return "5589168499054230" if first else made(count)  # passes the Luhn check

    monkeypatch.setattr(payments.secrets, "token_hex", token_hex)

    async def work(client):
        customer = await client.create_customer(build(g.CustomerCreate, {"email": "m@ex.lt"}))
        who = {"email": "m@ex.lt", "original_client": customer.id}
        body = order_body(client=who, setup_future_use="recurring", force_save_method=True)
        return await client.pay(await client.create_order(build(g.OrderCreate, body)), card())

    saved = with_gateway(url, work)
    assert asked.count(8) == 2  # the first was made again
    assert saved.cof_trace_id.startswith("COF") and "5589168499054230" not in saved.cof_trace_id
    assert mask_card_numbers(saved.cof_trace_id) == saved.cof_trace_id


def test_service_side_one_click_pays_with_the_masked_saved_card(url):
    async def work(client):
        customer = await client.create_customer(build(g.CustomerCreate, {"email": "o@ex.lt"}))
        who = {"email": "o@ex.lt", "original_client": customer.id}
        first = await client.create_order(
            build(g.OrderCreate, order_body(client=who, setup_future_use="one-click"))
        )
        await client.pay(first, card(AMEX))
        later = await client.create_order(
            build(g.OrderCreate, order_body(client=who, use_scenario="one-click"))
        )
        with pytest.raises(BadRequest) as no_charge:
            await client.charge(later.id)
        masked = card("************0005", exp_month="**", exp_year="****", cvv=None)
        with pytest.raises(BadRequest) as no_cvv:
            await client.pay(later, masked)
        with pytest.raises(BadRequest) as new_card:
            await client.pay(later, card())
        typed = card("************0005", exp_month="**", exp_year="****", cvv="1234")
        return later, no_charge, no_cvv, new_card, await client.pay(later, typed)

    later, no_charge, no_cvv, new_card, done = with_gateway(url, work)
    assert later.capabilities == ["one_click"]
    refused(no_charge, "One-Click order needs the cardholder")
    refused(no_cvv, "cvv: is required for a One-Click payment through the API")
    refused(new_card, "this order uses the customer's saved card (registered for one-click)")
    assert done.status == "charged" and done.card.brand == "amex"


def test_merchant_side_one_click_with_cof_trace_id(url):
    async def work(client):
        first = await client.create_order(
            build(g.OrderCreate, order_body(setup_future_use="one-click"))
        )
        registered = await client.pay(first, card(saved_by_merchant=True, scenario="one-click"))
        follow = await client.create_order(
            build(g.OrderCreate, order_body(use_scenario="one-click"))
        )
        trace = registered.cof_trace_id
        problems = {}
        for name, payment in {
            "no cvv": card(
                saved_by_merchant=True, scenario="one-click", cof_trace_id=trace, cvv=None
            ),
            "no trace": card(saved_by_merchant=True, scenario="one-click"),
            "wrong scenario": card(
                saved_by_merchant=True, scenario="recurring", cof_trace_id=trace
            ),
            "other card": card(
                MASTERCARD, saved_by_merchant=True, scenario="one-click", cof_trace_id=trace
            ),
            "not merchant side": card(scenario="one-click", cof_trace_id=trace),
        }.items():
            with pytest.raises(BadRequest) as error:
                await client.pay(follow, payment)
            problems[name] = error.value.failure_message
        done = await client.pay(
            follow, card(saved_by_merchant=True, scenario="one-click", cof_trace_id=trace)
        )
        return registered, problems, done

    registered, problems, done = with_gateway(url, work)
    assert registered.status == "charged" and registered.cof_trace_id
    assert problems == {
        "no cvv": "cvv: is required (only MOTO orders and saved cards pay without it)",
        "no trace": "cof_trace_id: is required for a merchant-side follow-up payment",
        "wrong scenario": "scenario: must match the setup_future_use of the registration "
        "(one-click)",
        "other card": "card_number: is not the card registered under cof_trace_id",
        "not merchant side": "saved_by_merchant: a follow-up payment with a full card number is "
        "merchant-side: send saved_by_merchant true with scenario and cof_trace_id",
    }
    assert done.status == "charged" and done.cof_trace_id == registered.cof_trace_id


def test_merchant_side_recurring_follow_up_needs_no_cvv(url):
    async def work(client):
        first = await client.create_order(
            build(g.OrderCreate, order_body(setup_future_use="recurring"))
        )
        registered = await client.pay(first, card(saved_by_merchant=True))
        follow = await client.create_order(
            build(g.OrderCreate, order_body(use_scenario="recurring"))
        )
        return await client.pay(
            follow,
            card(
                saved_by_merchant=True,
                scenario="recurring",
                cof_trace_id=registered.cof_trace_id,
                cvv=None,
            ),
        )

    assert with_gateway(url, work).status == "charged"


def test_the_payment_scenario_must_match_the_registration(url):
    async def work(client):
        order = await client.create_order(
            build(g.OrderCreate, order_body(setup_future_use="recurring"))
        )
        with pytest.raises(BadRequest) as error:
            await client.pay(order, card(saved_by_merchant=True, scenario="one-click"))
        return error

    refused(with_gateway(url, work), "scenario: must match the setup_future_use")


# ---------------------------------------------------------------- MOTO, AVS, card checks


def test_moto_pays_without_cvv_and_other_orders_need_it(url):
    async def work(client):
        moto = await paid(client, card(cvv=None), is_moto=True)
        with pytest.raises(BadRequest) as error:
            await paid(client, card(cvv=None))
        with pytest.raises(BadRequest) as short:
            await paid(client, card(AMEX, cvv="123"))
        return moto, error, short

    moto, error, short = with_gateway(url, work)
    assert moto.status == "charged" and moto.capabilities == ["moto"]
    refused(error, "cvv: is required")
    refused(short, "cvv: this card's security code has 4 digits")


def test_avs_merchant_needs_the_billing_address_and_gets_the_avs_result(url):
    async def work(client):
        with pytest.raises(BadRequest) as missing:
            await client.create_order(build(g.OrderCreate, order_body()))
        results = {}
        for zip_code, number in (
            ("01103", VISA),
            ("00000", MASTERCARD),
            ("99999", AMEX),
            ("01103", DISCOVER),
        ):
            who = {"email": "avs@ex.lt", **ADDRESS, "zip_code": zip_code}
            order = await paid(client, card(number), client=who)
            results[(zip_code, number)] = order.avs_status
            assert order.capabilities == ["avs"]
        return missing, results

    missing, results = with_gateway(url, work, user="demo-avs")
    refused(missing, "client.address: is required: AVS is enabled for this merchant")
    assert missing.value.title == "AVS"
    codes = {key: (s.code, s.raw_code, s.description) for key, s in results.items()}
    assert codes == {
        ("01103", VISA): ("MATCH", "Y", "Address and ZIP code match"),
        ("00000", MASTERCARD): ("ADDRESS_MATCH", "A", "Address matches, ZIP code does not"),
        ("99999", AMEX): ("NO_MATCH", "N", "Neither address nor ZIP code match"),
        ("01103", DISCOVER): ("NOT_SUPPORTED", None, "AVS not supported"),
    }


def test_custom_avs_runs_when_the_payment_asks_for_it(url):
    async def work(client):
        plain = await paid(client)
        custom = await paid(client, card(avs=True), client={"email": "c@ex.lt", **ADDRESS})
        return plain, custom

    plain, custom = with_gateway(url, work)
    assert plain.avs_status is None
    assert custom.avs_status is not None and custom.avs_status.code == "MATCH"
    assert custom.capabilities == ["avs"]  # and so the matrix applies to it

    async def refund(client):
        with pytest.raises(BadRequest) as error:
            await client.refund(custom.id, currency="EUR")
        return error

    refused(with_gateway(url, refund), "Full Refund and AVS cannot be combined")


def test_card_checks(url):
    async def work(client):
        order = await client.create_order(build(g.OrderCreate, order_body()))
        messages = {}
        for name, body in {
            "luhn": {"card_number": "4111111111111112", "exp_month": 1, "exp_year": 2099},
            "expired": {"card_number": VISA, "exp_month": 1, "exp_year": 2020, "cvv": "123"},
            "month": {"card_number": VISA, "exp_month": 13, "exp_year": 2099, "cvv": "123"},
            "masked without saved card": {
                "card_number": "************1111",
                "exp_month": "**",
                "exp_year": "**",
            },
            "bad ip": {
                "card_number": VISA,
                "exp_month": 1,
                "exp_year": 2099,
                "cvv": "123",
                "ip_address": "999.1.1.1",
            },
        }.items():
            async with httpx.AsyncClient(auth=("demo", "demo")) as raw:
                answer = await raw.post(
                    order.api_do_url, json=body, headers={"x-request-id": uuid.uuid4().hex}
                )
            assert answer.status_code == 400, name
            messages[name] = answer.json()["failure_message"]
        return order, messages, await client.get_order(order.id)

    order, messages, after = with_gateway(url, work)
    assert messages["luhn"] == "card_number: is not a valid card number (it fails the Luhn check)"
    assert messages["expired"] == "exp_year: the card expired in 01/2020"
    assert messages["month"].startswith("exp_month:")
    assert messages["masked without saved card"].startswith(
        "card_number: a masked number pays only an order that uses a saved card"
    )
    assert messages["bad ip"] == "ip_address: is not an IPv4 or IPv6 address"
    assert after == order
    with pytest.raises(InvalidInput) as local:
        card("4111111111111112")
    assert local.value.field == "card_number"
    assert "4111111111111112" not in str(local.value)


def test_a_paid_order_takes_no_second_payment(url):
    async def work(client):
        order = await paid(client)
        with pytest.raises(BadRequest) as error:
            await client.pay(order, card(MASTERCARD))
        return error

    refused(with_gateway(url, work), "The order is charged: it takes no payment")


# ---------------------------------------------------------------- capabilities


def test_account_funding_needs_the_client_and_the_recipient(url):
    recipient = {
        "first_name": "Jonas",
        "last_name": "Jonaitis",
        "birth_date": "1990-01-31",
        "city": "Kaunas",
        "account_type": "wallet",
        "account_number": "W-1",
        "country": "LT",
        "recipient_address": "Laisvės al. 1",
        "same_as_client": False,
    }
    who = {"email": "af@ex.lt", "first_name": "Eg", "last_name": "Le", **ADDRESS, "state": "CA"}

    async def work(client):
        funded = await paid(client, client=who, recipient_client=recipient)
        return funded

    funded = with_gateway(url, work)
    assert funded.status == "charged" and funded.capabilities == ["account_funding"]
    with pytest.raises(InvalidInput) as no_address:
        build(
            g.OrderCreate,
            order_body(client={"email": "a@b.lt"}, recipient_client=recipient),
        )
    assert "Client: first name: is required for Account Funding" in str(no_address.value)
    assert no_address.value.field == "client.first_name"
    with httpx.Client(auth=("demo", "demo")) as raw:
        answers = [
            raw.post(
                f"{url}/gateway/orders/",
                json=order_body(**body),
                headers={"x-request-id": uuid.uuid4().hex},
            ).json()["failure_message"]
            for body in (
                {"client": {"email": "a@b.lt"}, "recipient_client": recipient},
                {
                    "client": who,
                    "recipient_client": {k: v for k, v in recipient.items() if k != "city"},
                },
                {"client": who, "recipient_client": recipient, "skip_capture": True},
            )
        ]
    assert answers == [
        "client.first_name: is required for Account Funding",
        "recipient_client.city: is required",
        "Two-Step and Account Funding cannot be combined",
    ]


def test_account_funding_with_a_us_card_needs_the_client_state(url):
    recipient = {
        "first_name": "J",
        "last_name": "J",
        "birth_date": "1990-01-31",
        "city": "K",
        "account_type": "wallet",
        "account_number": "W-1",
        "country": "LT",
        "recipient_address": "L",
        "same_as_client": True,
    }
    who = {"email": "af@ex.lt", "first_name": "Eg", "last_name": "Le", **ADDRESS}

    async def work(client):
        with pytest.raises(BadRequest) as error:
            await paid(client, client=who, recipient_client=recipient)
        return error

    refused(with_gateway(url, work), "client.state: is required for Account Funding")


def test_travel_data_one_member_with_digit_dates(url):
    airline = {
        "airline_addendum": {
            "ticket_number": "0742100000001",
            "passenger_name": "EGLE TESTER",
            "n_legs": 1,
            "carrier_name": "Air Baltic",
            "ticket_issue_date": "261120",
            "legs": [
                {
                    "departure_airport": "VNO",
                    "carrier_code": "BT",
                    "destination_airport": "RIX",
                    "departure_date": "20261201",
                    "service_class": "Y",
                    "trip_number": "BT342",
                }
            ],
        }
    }

    async def work(client):
        return await paid(client, travel_data=airline)

    order = with_gateway(url, work)
    assert order.capabilities == ["travel_data"] and order.status == "charged"
    lodging = {"booking_number": "B1", "checkin_date": "20261201", "checkout_date": "20261203"}
    cases = {
        "two members": {**airline, "lodging": lodging},
        "bad date": {"lodging": {**lodging, "checkin_date": "20261301"}},
        "backwards": {"lodging": {**lodging, "checkout_date": "20261130"}},
        "legs": {"airline_addendum": {**airline["airline_addendum"], "n_legs": 2}},
        "short date": {"lodging": {**lodging, "checkin_date": "261201"}},
    }
    with httpx.Client(auth=("demo", "demo")) as raw:
        answers = {
            name: raw.post(
                f"{url}/gateway/orders/",
                json=order_body(travel_data=travel),
                headers={"x-request-id": uuid.uuid4().hex},
            ).json()["failure_message"]
            for name, travel in cases.items()
        }
    assert answers["two members"].startswith("travel_data:")
    assert answers["bad date"] == (
        "travel_data.lodging.checkin_date: '20261301' is not a date yyyymmdd"
    )
    assert answers["backwards"] == ("travel_data.lodging.checkout_date: is before checkin_date")
    assert answers["legs"] == "travel_data.airline_addendum.n_legs: is 2, but 1 legs are sent"
    assert (
        answers["short date"] == "travel_data.lodging.checkin_date: must be the pattern ^[0-9]{8}$"
    )
    for travel in cases.values():
        with pytest.raises(InvalidInput):
            build(g.OrderCreate, order_body(travel_data=travel))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"payment_system": "QCASH", "is_moto": True}, "QCash and MOTO cannot be combined"),
        (
            {"setup_future_use": "recurring", "use_scenario": "one-click"},
            "One-Click and Payment Method Saving cannot be combined",
        ),
        (
            {
                "setup_future_use": "recurring",
                "travel_data": {
                    "lodging": {
                        "booking_number": "B",
                        "checkin_date": "20260101",
                        "checkout_date": "20260102",
                    }
                },
            },
            "Travel Data goes with Payment Method Saving only when saved as one-click or automatic",
        ),
        (
            {"payment_system": "SDWO_FUNDING", "sdwo_merchant_id": "M-1"},
            "SDWO Funding and SDWO Purchase cannot be combined",
        ),
        ({"use_scenario": "recurring", "is_moto": True}, "Recurring and MOTO cannot be combined"),
        # the matrix comes before the data: the saved card of a customer the gateway does
        # not know, or a price too fine, is not what is refused first
        (
            {
                "use_scenario": "recurring",
                "is_moto": True,
                "client": {"email": "moto@ex.lt", "original_client": str(uuid.UUID(int=7))},
            },
            "Recurring and MOTO cannot be combined",
        ),
        (
            {"payment_system": "QCASH", "is_moto": True, "products": [{"title": "X", "price": 0}]},
            "QCash and MOTO cannot be combined",
        ),
        (
            {
                "products": None,
                "payment_system": "AUTH",
                "force_save_method": True,
                "skip_capture": True,
            },
            "Two-Step and Zero-Amount cannot be combined",
        ),
    ],
)
def test_an_incompatible_combination_is_a_400_naming_both(url, changes, message):
    with pytest.raises(InvalidInput) as local:
        build(g.OrderCreate, order_body(**changes))
    assert message in str(local.value)
    with httpx.Client(auth=("demo", "demo")) as raw:
        answer = raw.post(
            f"{url}/gateway/orders/",
            json={k: v for k, v in order_body(**changes).items() if v is not None},
            headers={"x-request-id": uuid.uuid4().hex},
        )
    assert answer.status_code == 400
    assert answer.json()["failure_message"] == message
    assert answer.json()["detail"]["title"] == "Incompatible combination"


def test_pairs_where_the_rows_disagree_are_allowed(url):
    # PMS lists MO, MO does not list PMS: a card taken by phone can be saved
    async def work(client):
        return await paid(
            client,
            card(cvv=None, saved_by_merchant=True),
            is_moto=True,
            setup_future_use="recurring",
        )

    order = with_gateway(url, work)
    assert order.status == "charged"
    assert sorted(order.capabilities) == ["moto", "payment_method_saving"]


def test_a_refund_of_an_avs_order_is_refused_by_the_matrix(url):
    async def work(client):
        order = await paid(client, client={"email": "a@ex.lt", **ADDRESS})
        with pytest.raises(BadRequest) as error:
            await client.refund(order.id, currency="EUR")
        return error

    error = with_gateway(url, work, user="demo-avs")
    refused(error, "Full Refund and AVS cannot be combined")


def test_derived_capabilities_of_the_order_fields(url):
    async def work(client):
        order = await client.create_order(
            build(
                g.OrderCreate,
                order_body(
                    dynamic_descriptor="SHOP*TICKET",
                    service_location={"city": "Vilnius", "country": "LT", "region": "VL"},
                    payment_system="QCASH",
                    skip_capture=True,
                ),
            )
        )
        sdwo = await client.create_order(build(g.OrderCreate, order_body(sdwo_merchant_id="W-9")))
        funding = await client.create_order(
            build(g.OrderCreate, order_body(payment_system="SDWO_FUNDING"))
        )
        return order, sdwo, funding

    order, sdwo, funding = with_gateway(url, work)
    assert order.scenario == "two_step"
    assert order.capabilities == ["dynamic_descriptor", "service_location", "qcash"]
    assert sdwo.capabilities == ["sdwo_purchase"]
    assert funding.capabilities == ["sdwo_funding"]


# ---------------------------------------------------------------- plumbing


def test_idempotency_replays_the_same_body_and_refuses_another(url):
    key = uuid.uuid4().hex
    with httpx.Client(auth=("demo", "demo")) as raw:
        first = raw.post(f"{url}/gateway/orders/", json=order_body(), headers={"x-request-id": key})
        again = raw.post(f"{url}/gateway/orders/", json=order_body(), headers={"x-request-id": key})
        other = raw.post(
            f"{url}/gateway/orders/", json=order_body(currency="USD"), headers={"x-request-id": key}
        )
        missing = raw.post(f"{url}/gateway/orders/", json=order_body())
    assert first.status_code == again.status_code == 200
    assert again.json()["id"] == first.json()["id"]
    assert again.headers["x-idempotent-replay"] == "true"
    assert other.status_code == 400 and other.json()["detail"]["title"] == "Duplicate request"
    assert missing.json()["failure_message"] == (
        "x-request-id: the header is required for create and update"
    )


def test_amounts_are_decimals_never_floats(url):
    with httpx.Client(auth=("demo", "demo")) as raw:

        def create(price: Any, currency: str = "EUR") -> httpx.Response:
            body = order_body(products=[{"title": "T", "price": price}], currency=currency)
            return raw.post(
                f"{url}/gateway/orders/", json=body, headers={"x-request-id": uuid.uuid4().hex}
            )

        assert create(10.5).json()["amount"] == "10.50"
        assert create("10.50").json()["amount"] == "10.50"
        assert create(1000, "JPY").json()["amount"] == "1000"
        assert create("10.505").json()["failure_message"] == (
            "products.0.price: EUR amounts have 2 decimal places"
        )
        assert create("1.5", "JPY").json()["failure_message"] == (
            "products.0.price: JPY amounts have no decimals"
        )
        assert create("0.00").json()["failure_message"] == "products.0.price: must be at least 0.01"
    with pytest.raises(InvalidInput) as floats:
        build(g.Product, {"title": "T", "price": 10.5})
    assert floats.value.field == "price"


def test_the_gateway_needs_credentials_and_keeps_merchants_apart(url):
    async def work(client):
        return await client.create_order(build(g.OrderCreate, order_body()))

    order = with_gateway(url, work)
    answer = httpx.get(f"{url}/gateway/orders/{order.id}/")
    assert answer.status_code == 401
    assert answer.json()["detail"]["title"] == "Unauthorized"
    other = httpx.get(f"{url}/gateway/orders/{order.id}/", auth=("demo-avs", "demo"))
    assert other.status_code == 400 and other.json()["detail"]["title"] == "Not found"


def test_the_order_list_filters_and_pages(url):
    async def work(client):
        marker = f"list-{uuid.uuid4().hex[:8]}@example.lt"
        made = [
            await client.create_order(build(g.OrderCreate, order_body(client={"email": marker})))
            for _ in range(3)
        ]
        await client.pay(made[0], card())
        mine = await client.list_orders(filter=f'client_email[eq]"{marker}"')
        charged = await client.list_orders(
            filter=f'client_email[eq]"{marker}" and status[eq]"charged"'
        )
        second_page = await client.list_orders(
            offset=1, limit=1, filter=f'client_email[eq]"{marker}"'
        )
        return made, mine, charged, second_page

    made, mine, charged, second_page = with_gateway(url, work)
    assert [o.id for o in mine] == [o.id for o in reversed(made)]  # newest first
    assert [o.id for o in charged] == [made[0].id]
    assert [o.id for o in second_page] == [made[1].id]


def test_a_customer_shows_only_masked_cards(url):
    async def work(client):
        customer = await client.create_customer(build(g.CustomerCreate, {"email": "m@ex.lt"}))
        order = await client.create_order(
            build(
                g.OrderCreate,
                order_body(
                    client={"email": "m@ex.lt", "original_client": customer.id},
                    setup_future_use="automatic",
                ),
            )
        )
        await client.pay(order, card())
        return customer

    customer = with_gateway(url, work)
    answer = httpx.get(f"{url}/gateway/clients/{customer.id}/", auth=("demo", "demo"))
    assert answer.status_code == 200
    assert "4111111111111111" not in answer.text
    assert answer.json()["cards"][0]["last4"] == "1111"


@pytest.mark.parametrize(
    "forged",
    [
        "https://evil.example/gateway/orders/{id}/do/",  # another host
        "{base}/../evil/do/",  # the same host, another path: dot segments
        "{base}/orders/{id}/do/../../../evil/do/",
        "{base}/%2e%2e/evil/do/",  # percent-encoded dot segments
        "{base}/orders/{id}/%2E%2E/%2e%2E/evil/do/",
        "{base}/orders/{other}/do/",  # another order's address
        "{base}/orders/{id}/do/?then=https://evil.example",
        "{base}/orders/{id}/do/#x",
        "{base}/orders/{id}/capture/",  # not the payment address
    ],
)
def test_card_data_goes_only_to_the_orders_own_payment_address(url, forged):
    async def create(client):
        return await client.create_order(build(g.OrderCreate, order_body()))

    order = with_gateway(url, create)
    address = forged.format(base=f"{url}/gateway", id=order.id, other=uuid.uuid4())
    httpx.delete(f"{url}/_sandbox/requests")

    async def pay(client):
        with pytest.raises(InvalidInput) as error:
            await client.pay(order.model_copy(update={"api_do_url": address}), card())
        return error

    error = with_gateway(url, pay)
    assert error.value.field == "api_do_url"
    assert "card data goes only there" in str(error.value)
    assert httpx.get(f"{url}/_sandbox/requests").json() == []  # nothing was sent anywhere


def test_no_full_card_number_in_any_log_record_or_the_journal(url, caplog):
    numbers = [VISA, MASTERCARD, AMEX, NEEDS_3DS, DECLINES, "4111111111111112"]
    caplog.set_level(logging.DEBUG)

    async def work(client):
        for number in numbers[:-1]:
            await paid(client, card(number))
        order = await client.create_order(build(g.OrderCreate, order_body()))
        with pytest.raises(BadRequest):
            await client.pay(order, card(VISA, exp_year=2020))
        # a hostile body that quotes a card number where no card number belongs
        async with httpx.AsyncClient(auth=("demo", "demo")) as raw:
            await raw.post(
                order.api_do_url,
                json={"card_number": numbers[-1], "exp_month": 1, "exp_year": 2099, "cvv": "123"},
                headers={"x-request-id": uuid.uuid4().hex},
            )
            await raw.get(f"{url}/gateway/orders/", params={"filter": f'id[eq]"{VISA}"'})
            await raw.get(f"{url}/gateway/orders/{MASTERCARD.replace(' ', '')}/")

    with_gateway(url, work)
    journal = httpx.get(f"{url}/_sandbox/requests").text
    logged = "\n".join(
        f"{record.getMessage()} {record.exc_text or ''}" for record in caplog.records
    )
    assert logged  # the transport logs each exchange
    for number in numbers:
        plain = number.replace(" ", "")
        for text in (journal, logged):
            decoded = urllib.parse.unquote_plus(text)
            assert plain not in re.sub(r"[ .+\t-]", "", decoded)
    assert "*" * 12 + "4444" in journal  # masked, not dropped


def test_a_merchant_side_follow_up_needs_no_use_scenario_on_its_order(url):
    async def work(client):
        first = await client.create_order(
            build(g.OrderCreate, order_body(setup_future_use="recurring"))
        )
        trace = (await client.pay(first, card(saved_by_merchant=True))).cof_trace_id
        plain = await client.create_order(build(g.OrderCreate, order_body()))
        with pytest.raises(BadRequest) as no_trace:
            await client.pay(plain, card(saved_by_merchant=True, scenario="recurring"))
        with pytest.raises(BadRequest) as custom_avs:
            await client.pay(
                plain,
                card(
                    saved_by_merchant=True,
                    scenario="recurring",
                    cof_trace_id=trace,
                    cvv=None,
                    avs=True,
                ),
            )
        done = await client.pay(
            plain,
            card(saved_by_merchant=True, scenario="recurring", cof_trace_id=trace, cvv=None),
        )
        return no_trace, custom_avs, done, trace

    no_trace, custom_avs, done, trace = with_gateway(url, work)
    refused(no_trace, "a merchant-side follow-up payment sends cof_trace_id and scenario")
    refused(custom_avs, "Recurring and AVS cannot be combined")
    assert done.status == "charged" and done.capabilities == ["recurring"]
    assert done.cof_trace_id == trace


def test_recurring_number_goes_only_with_a_recurring_order(url):
    async def work(client):
        customer = await client.create_customer(build(g.CustomerCreate, {"email": "n@ex.lt"}))
        who = {"email": "n@ex.lt", "original_client": customer.id}
        first = await client.create_order(
            build(g.OrderCreate, order_body(client=who, setup_future_use="recurring"))
        )
        await client.pay(first, card())
        by_card = await client.create_order(
            build(g.OrderCreate, order_body(client=who, recurring_number="R-1"))
        )
        by_use = await client.create_order(
            build(g.OrderCreate, order_body(use_scenario="recurring", recurring_number="R-2"))
        )
        return by_card, by_use

    by_card, by_use = with_gateway(url, work)
    assert by_card.capabilities == by_use.capabilities == ["recurring"]
    body = order_body(setup_future_use="one-click", recurring_number="R-3")
    with pytest.raises(InvalidInput) as local:
        build(g.OrderCreate, body)
    assert local.value.field == "recurring_number"
    with httpx.Client(auth=("demo", "demo")) as raw:
        answer = raw.post(
            f"{url}/gateway/orders/", json=body, headers={"x-request-id": uuid.uuid4().hex}
        )
    assert answer.json()["failure_message"].startswith(
        "recurring_number: goes only with a recurring order"
    )


def test_the_avs_merchant_needs_the_zip_code_too_and_may_verify_with_zero_amount(url):
    async def work(client):
        with pytest.raises(BadRequest) as no_zip:
            await client.create_order(
                build(
                    g.OrderCreate,
                    order_body(client={"email": "a@ex.lt", "address": "Gedimino pr. 1"}),
                )
            )
        customer = await client.create_customer(build(g.CustomerCreate, {"email": "z@ex.lt"}))
        verify = await client.create_order(
            build(
                g.OrderCreate,
                order_body(
                    products=None,
                    payment_system="AUTH",
                    setup_future_use="automatic",
                    client={"email": "z@ex.lt", "original_client": customer.id, **ADDRESS},
                ),
            )
        )
        return no_zip, await client.pay(verify, card())

    no_zip, verified = with_gateway(url, work, user="demo-avs")
    refused(no_zip, "client.zip_code: is required: AVS is enabled")
    # ZA lists AVS, AVS does not list ZA: the pair is allowed
    assert verified.status == "verified" and verified.scenario == "zero_amount"
    assert sorted(verified.capabilities) == ["avs", "payment_method_saving"]
    assert verified.avs_status is not None and verified.avs_status.code == "MATCH"


def test_an_account_funding_order_can_be_refunded(url):
    # FR lists AF, AF does not list FR: the pair is allowed
    recipient = {
        "first_name": "J",
        "last_name": "J",
        "birth_date": "1990-01-31",
        "city": "K",
        "account_type": "wallet",
        "account_number": "W-1",
        "country": "LT",
        "recipient_address": "L",
        "same_as_client": False,
    }
    who = {"email": "af@ex.lt", "first_name": "E", "last_name": "T", **ADDRESS, "state": "CA"}

    async def work(client):
        order = await paid(client, client=who, recipient_client=recipient)
        partly = await client.refund(order.id, Decimal("1"), currency="EUR")
        return partly

    assert with_gateway(url, work).status == "partially_refunded"


def test_a_capture_below_a_cent_is_refused_by_the_sandbox(url):
    async def work(client):
        return await paid(client, skip_capture=True)

    held = with_gateway(url, work)
    with httpx.Client(auth=("demo", "demo")) as raw:
        answers = [
            raw.post(
                f"{url}/gateway/orders/{held.id}/capture/",
                json={"total": total},
                headers={"x-request-id": uuid.uuid4().hex},
            ).json()["failure_message"]
            for total in ("0.00", "0.001", "10.01")
        ]
    assert answers == [
        "total: must be at least 0.01 and at most the reserved 10.00",
        "total: EUR amounts have 2 decimal places",
        "total: must be at least 0.01 and at most the reserved 10.00",
    ]


@pytest.mark.parametrize(
    "travel",
    [
        {
            "car_rental": {
                "booking_number": "C1",
                "pickup_date": "20261201",
                "return_date": "20261205",
            }
        },
        {
            "cruise": {
                "booking_number": "S1",
                "departure_date": "20261201",
                "return_date": "20261215",
            }
        },
        {
            "ground_transportation": {
                "booking_number": "G1",
                "departure_date": "20261201",
                "return_date": "20261201",
            }
        },
    ],
)
def test_each_travel_member_is_accepted(url, travel):
    async def work(client):
        return await paid(client, travel_data=travel)

    order = with_gateway(url, work)
    assert order.status == "charged" and order.capabilities == ["travel_data"]


def test_the_hosted_checkout_pays_with_a_saved_card(url):
    async def work(client):
        customer = await client.create_customer(build(g.CustomerCreate, {"email": "k@ex.lt"}))
        who = {"email": "k@ex.lt", "original_client": customer.id}
        first = await client.create_order(
            build(g.OrderCreate, order_body(client=who, setup_future_use="one-click"))
        )
        await client.pay(first, card(MASTERCARD))
        later = await client.create_order(
            build(g.OrderCreate, order_body(client=who, use_scenario="one-click"))
        )
        return later, await client.get_customer(customer.id)

    later, customer = with_gateway(url, work)
    page = httpx.get(later.checkout_url)
    assert "mastercard •••• 4444" in page.text and "5555555555554444" not in page.text
    token = later.checkout_url.rstrip("/").rsplit("/", 1)[1]
    answer = httpx.post(
        later.api_do_url,
        data={"checkout_token": token, "saved_card": customer.cards[0].token},
    )
    assert answer.status_code == 200 and "Payment complete." in answer.text
    done = with_gateway(url, lambda client: client.get_order(later.id))
    assert done.status == "charged" and done.card.last4 == "4444"


def test_a_rule_over_several_fields_names_the_field_it_blames():
    cases = {
        "products.0.price": order_body(products=[{"title": "T", "price": "1.001"}]),
        "is_moto": order_body(payment_system="QCASH", is_moto=True),
        "products": order_body(products=None),
        "client.first_name": order_body(
            recipient_client={
                "first_name": "J",
                "last_name": "J",
                "birth_date": "1990-01-31",
                "city": "K",
                "account_type": "w",
                "account_number": "1",
                "country": "LT",
                "recipient_address": "L",
                "same_as_client": False,
            }
        ),
    }
    for field, body in cases.items():
        with pytest.raises(InvalidInput) as error:
            build(g.OrderCreate, body)
        assert error.value.field == field, error.value


@pytest.mark.parametrize(
    ("page", "address", "opened"),
    [
        ("checkout", "{own}", True),
        ("checkout", "https://checkout.gateway.example/pay/abc", True),  # a hosted page
        ("checkout", "http://{host}/other/page", True),  # this gateway is reached over http
        ("checkout", "file:///etc/passwd", False),
        ("checkout", "javascript:alert(document.cookie)", False),
        ("3-D Secure", "smb://attacker.example/share/invoice.exe", False),
        ("3-D Secure", "ms-settings:privacy", False),
        ("3-D Secure", "https:///no-host", False),
        ("3-D Secure", "https://acs.example/\x1b[2J", False),
        ("checkout", "https://pay.example@evil.example/", False),  # opens evil.example
        ("checkout", "https://pay.example%2f@evil/", False),
        ("checkout", "https://[::1]:8443/pay", True),
        # no browser opens these: they ended in the box saying there was no browser
        ("checkout", " https://pay.example/", False),
        ("checkout", "https://pay example/", False),
        ("checkout", "https://a..b/", False),
        ("checkout", "https://-a-/", False),
        ("checkout", "https://pay.example:99999/", False),
    ],
)
def test_only_a_web_page_is_given_to_the_browser(url, page, address, opened):
    """The order's checkout and 3-D Secure pages are opened in the system browser: a file,
    a share, a script or a settings page would be opened with whatever handles it."""

    async def create(client):
        return await client.create_order(build(g.OrderCreate, order_body()))

    order = with_gateway(url, create)
    address = address.format(own=order.checkout_url, host=url.split("://", 1)[1])
    field = "checkout_url" if page == "checkout" else "three_ds_url"
    changed = order.model_copy(update={field: address})

    async def asked(client):
        return client.browser_address(changed, page)

    if opened:
        assert with_gateway(url, asked) == address
        return
    with pytest.raises(InvalidInput) as refused:
        with_gateway(url, asked)
    assert refused.value.field == field
    assert str(refused.value).endswith(": it was not opened")
    assert "\x1b" not in str(refused.value)


def test_an_order_without_a_3ds_page_has_none_to_open(url):
    async def create(client):
        order = await client.create_order(build(g.OrderCreate, order_body()))
        with pytest.raises(InvalidInput, match="has no 3-D Secure page"):
            client.browser_address(order.model_copy(update={"three_ds_url": None}), "3-D Secure")

    with_gateway(url, create)
