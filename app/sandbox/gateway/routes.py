"""The card gateway's routes under /gateway. Each handler checks the request in full and
returns its answer with the change to commit (see app.sandbox.http); the hosted pages for the
cardholder's browser are in app.sandbox.gateway.pages."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from app.core.limits import ORDER_FILTER_FIELDS, Bound
from app.core.resources import OPENAPI_GATEWAY
from app.sandbox.errors import Refusal
from app.sandbox.gateway import pages
from app.sandbox.gateway.pages import gateway_base
from app.sandbox.gateway.records import MERCHANTS, Merchant, Order
from app.sandbox.gateway.state import Gateway
from app.sandbox.http import Call, Operation, Outcome, endpoint
from app.sandbox.schemas import validate

ID = Bound(1, 64)

READ = Operation(partner_code=False)
CREATE = Operation(partner_code=False, idempotent=True, body="json")
ACT = Operation(partner_code=False, idempotent=True, body="none")
ACT_OPTIONAL_BODY = Operation(partner_code=False, idempotent=True, body="optional")


def _gateway(call: Call) -> Gateway:
    return call.service(Gateway)


def _merchant(call: Call) -> Merchant:
    assert call.user is not None
    return MERCHANTS[call.user]


def _order(call: Call) -> Order:
    return _gateway(call).order(_merchant(call).name, call.path("order_id", ID))


def _answer(call: Call, order: Order) -> dict[str, Any]:
    return order.view(gateway_base(call.request))


def _changed(call: Call, pending: Any) -> Outcome:
    return Outcome(_answer(call, pending.value), pending.commit)


# ---------------------------------------------------------------- customers and taxes


def create_customer(call: Call) -> Outcome:
    validate(OPENAPI_GATEWAY, "CustomerRequest", call.body)
    pending = _gateway(call).create_customer(_merchant(call).name, call.body["email"])
    return Outcome({"id": pending.value.id}, pending.commit)


def get_customer(call: Call) -> Outcome:
    customer = _gateway(call).customer(_merchant(call).name, call.path("client_id", ID))
    return Outcome(customer.view())


def create_tax(call: Call) -> Outcome:
    validate(OPENAPI_GATEWAY, "TaxRequest", call.body)
    pending = _gateway(call).create_tax(
        _merchant(call).name, call.body["name"], call.body["percent"]
    )
    return Outcome(pending.value.view(), pending.commit)


def list_taxes(call: Call) -> Outcome:
    return Outcome([tax.view() for tax in _gateway(call).merchant_taxes(_merchant(call).name)])


# ---------------------------------------------------------------- orders


def create_order(call: Call) -> Outcome:
    validate(OPENAPI_GATEWAY, "OrderRequest", call.body)
    return _changed(call, _gateway(call).create_order(_merchant(call), call.body))


def list_orders(call: Call) -> Outcome:
    offset, limit = call.paging()
    node = call.filter(ORDER_FILTER_FIELDS)
    found = _gateway(call).list_orders(_merchant(call).name, node, offset, limit)
    return Outcome([_answer(call, order) for order in found])


def get_order(call: Call) -> Outcome:
    return Outcome(_answer(call, _order(call)))


def pay(call: Call) -> Outcome:
    validate(OPENAPI_GATEWAY, "PaymentRequest", call.body)
    pending = _gateway(call).pay(_merchant(call), _order(call), call.body, from_checkout=False)
    return _changed(call, pending)


def charge(call: Call) -> Outcome:
    return _changed(call, _gateway(call).charge(_merchant(call), _order(call)))


def capture(call: Call) -> Outcome:
    validate(OPENAPI_GATEWAY, "CaptureRequest", call.body)
    return _changed(call, _gateway(call).capture(_order(call), call.body["total"]))


def refund(call: Call) -> Outcome:
    body = call.body
    amount = None
    if body not in (None, {}):
        validate(OPENAPI_GATEWAY, "RefundRequest", body)
        amount = body["amount"]
    return _changed(call, _gateway(call).refund(_order(call), amount))


def reverse(call: Call) -> Outcome:
    if call.body not in (None, {}):
        raise Refusal("A reversal is only in full: send no body (no amount)")
    return _changed(call, _gateway(call).reverse(_order(call)))


_pay_json = endpoint(CREATE, pay)


async def payment_address(request: Request) -> Response:
    """api_do_url: the merchant's JSON payment request, or the hosted checkout's form."""
    media = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media == "application/x-www-form-urlencoded":
        return await pages.checkout_submit(request)
    return await _pay_json(request)


ROUTES = [
    Route("/clients/", endpoint(CREATE, create_customer), methods=["POST"]),
    Route("/clients/{client_id}/", endpoint(READ, get_customer), methods=["GET"]),
    Route("/taxes/", endpoint(CREATE, create_tax), methods=["POST"]),
    Route("/taxes/", endpoint(READ, list_taxes), methods=["GET"]),
    Route("/orders/", endpoint(CREATE, create_order), methods=["POST"]),
    Route("/orders/", endpoint(READ, list_orders), methods=["GET"]),
    Route("/orders/{order_id}/", endpoint(READ, get_order), methods=["GET"]),
    Route("/orders/{order_id}/do/", payment_address, methods=["POST"]),
    Route("/orders/{order_id}/charge/", endpoint(ACT, charge), methods=["POST"]),
    Route("/orders/{order_id}/capture/", endpoint(CREATE, capture), methods=["POST"]),
    Route("/orders/{order_id}/refund/", endpoint(ACT_OPTIONAL_BODY, refund), methods=["POST"]),
    Route("/orders/{order_id}/reverse/", endpoint(ACT_OPTIONAL_BODY, reverse), methods=["POST"]),
    *pages.ROUTES,
]
