"""The gateway's pages for the cardholder's browser: the hosted checkout (a card form posting
to the order's api_do_url), its embedding script, and the 3DS step with "Authenticate" and
"Fail". They carry an unguessable token in their path instead of credentials; every value they
show is escaped, and a refused form changes nothing."""

from __future__ import annotations

import html
import secrets
import time
import urllib.parse
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from app.core.gateway.amounts import format_amount
from app.core.gateway.cards import ascii_digits
from app.core.gateway.matrix import NAMES
from app.sandbox.body import checked_text, read_capped
from app.sandbox.errors import Refusal
from app.sandbox.gateway.records import MERCHANTS, Order
from app.sandbox.gateway.state import Gateway
from app.sandbox.http import SandboxState

FORM_BYTES = 16 * 1024
FORM_FIELDS = frozenset(
    {
        "checkout_token",
        "cardholder_name",
        "card_number",
        "exp_month",
        "exp_year",
        "cvv",
        "saved_card",
    }
)
_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
}
_STYLE = """
body{font-family:system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem;color:#222}
h1{font-size:1.3rem} .amount{font-size:1.6rem;margin:.5rem 0 1rem}
label{display:block;margin:.6rem 0 .2rem} input{width:100%;padding:.4rem;box-sizing:border-box}
.row{display:flex;gap:.6rem} .row>div{flex:1} button{margin-top:1rem;padding:.5rem 1.2rem}
.error{background:#fde8e8;border:1px solid #c33;padding:.5rem;margin:1rem 0}
.note{color:#555;font-size:.85rem;margin-top:1.5rem}
"""


def gateway_base(request: Request) -> str:
    """The gateway's address (checkout, 3DS and api_do_url hang under it), from the socket the
    request came in on — never from its Host header, which the caller writes."""
    host, port = request.scope.get("server") or ("127.0.0.1", 8080)
    if ":" in host:
        host = f"[{host}]"
    return f"{request.url.scheme}://{host}:{port}/gateway"


def same_secret(given: str, expected: str) -> bool:
    """A constant-time comparison that takes any text (compare_digest refuses non-ASCII str)."""
    return secrets.compare_digest(given.encode("utf-8", "replace"), expected.encode())


def _page(title: str, body: str, status: int = 200) -> Response:
    document = (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head>"
        f"<body>{body}</body></html>"
    )
    return Response(document, status_code=status, media_type="text/html", headers=_HEADERS)


def _state(request: Request) -> SandboxState:
    state: SandboxState = request.app.state.sandbox
    return state


def _token_order(request: Request, token_name: str) -> Order:
    """The order a page's path names, when its token is the order's."""
    order_id = str(request.path_params["order_id"])
    token = str(request.path_params["token"])
    order = _state(request).service(Gateway).orders.get(order_id[:64])
    expected = getattr(order, token_name, None) if order is not None else None
    if order is None or not expected or not same_secret(token, expected):
        raise Refusal("This payment page does not exist or is no longer valid", title="Not found")
    return order


def _amount_line(order: Order) -> str:
    if order.amount == 0:
        return "Card verification, no charge"
    return f"{format_amount(order.amount, order.currency)} {order.currency}"


_CARD_FIELDS = (
    "<label for=cardholder_name>Cardholder</label>"
    "<input id=cardholder_name name=cardholder_name autocomplete=cc-name maxlength=100>"
    "<label for=card_number>Card number</label>"
    "<input id=card_number name=card_number inputmode=numeric autocomplete=cc-number "
    "maxlength=23>"
    "<div class=row><div><label for=exp_month>Month</label>"
    "<input id=exp_month name=exp_month inputmode=numeric maxlength=2 "
    "autocomplete=cc-exp-month></div>"
    "<div><label for=exp_year>Year</label>"
    "<input id=exp_year name=exp_year inputmode=numeric maxlength=4 "
    "autocomplete=cc-exp-year></div>"
    "<div><label for=cvv>CVV</label>"
    "<input id=cvv name=cvv inputmode=numeric maxlength=4 autocomplete=cc-csc></div></div>"
)


def _checkout_body(order: Order, saved: list[dict[str, Any]], error: str | None) -> str:
    gateway_base = "/gateway"
    parts = [
        f"<h1>Pay {html.escape(MERCHANTS[order.merchant].name)}</h1>",
        f"<div class=amount>{html.escape(_amount_line(order))}</div>",
        f"<div>{html.escape(NAMES[order.scenario])} order {html.escape(order.id)}</div>",
    ]
    lines = []
    for product in order.request.get("products") or []:
        quantity = product.get("quantity", 1)
        title = f"{quantity} × {product['title']}" if quantity != 1 else product["title"]
        lines.append(f"<li>{html.escape(str(title))}</li>")
    if lines:
        parts.append(f"<ul>{''.join(lines)}</ul>")
    if error:
        parts.append(f"<div class=error role=alert>{html.escape(error)}</div>")
    if order.status != "new":
        parts.append(f"<p>This order is <b>{html.escape(order.status)}</b>: nothing to pay.</p>")
        return "".join(parts)
    action = f"{gateway_base}/orders/{urllib.parse.quote(order.id)}/do/"
    token = html.escape(order.checkout_token)
    form = [f'<form method=post action="{html.escape(action)}">']
    form.append(f'<input type=hidden name=checkout_token value="{token}">')
    if saved:
        # an order that uses a saved card is paid with one of them, never a new card
        form.append("<fieldset><legend>Saved card</legend>")
        for index, card in enumerate(saved):
            value = html.escape(card["token"])
            text = html.escape(f"{card['brand']} •••• {card['last4']}")
            checked = " checked" if index == 0 else ""
            form.append(
                f'<label><input type=radio name=saved_card value="{value}"{checked}> {text}</label>'
            )
        form.append("</fieldset>")
    else:
        form.append(_CARD_FIELDS)
    label = "Save card" if order.amount == 0 else f"Pay {_amount_line(order)}"
    form.append(f"<button type=submit>{html.escape(label)}</button></form>")
    parts.extend(form)
    parts.append(
        "<p class=note>Sandbox test cards (any future expiry): 4111 1111 1111 1111, "
        "5555 5555 5555 4444 and 3782 822463 10005 approve; 4000 0000 0000 0002 declines; "
        "4000 0000 0000 3220 asks for 3DS; 4000 0000 0000 0259 approves, then gets a "
        "chargeback; 6011 1111 1111 1117 approves without AVS.</p>"
    )
    return "".join(parts)


PageHandler = Callable[[Request, SandboxState], Awaitable[Response]]


def page(handler: PageHandler) -> Callable[[Request], Awaitable[Response]]:
    """A cardholder's page, as endpoint() is an operation: a refusal is a page saying why
    (400), and every request is in the journal (without the page's token)."""

    async def respond(request: Request) -> Response:
        started = time.perf_counter()
        state = _state(request)
        try:
            response = await handler(request, state)
        except Refusal as refusal:
            response = _page(refusal.title, f"<h1>{html.escape(refusal.message)}</h1>", 400)
        state.journal.record(state.clock.now(), request, response.status_code, started)
        return response

    return respond


@page
async def checkout_page(request: Request, state: SandboxState) -> Response:
    state.scheduler.run_due()
    order = _token_order(request, "checkout_token")
    return _page("Checkout", _checkout_body_for(state, order))


def _checkout_body_for(state: SandboxState, order: Order, error: str | None = None) -> str:
    gateway = state.service(Gateway)
    cards: list[dict[str, Any]] = []
    if order.customer_id is not None and order.follow_up:
        owner = gateway.customers.get(order.customer_id)
        if owner is not None:
            cards = [
                card.view()
                for card in owner.cards
                if order.chosen_card is None or card.token == order.chosen_card
            ]
    return _checkout_body(order, cards, error)


def _form(raw: bytes) -> dict[str, str]:
    try:
        text = raw.decode("utf-8")
        pairs = urllib.parse.parse_qsl(
            text,
            keep_blank_values=True,
            strict_parsing=bool(text),
            max_num_fields=20,
            errors="strict",  # percent-encoded bytes that are not UTF-8 are refused
        )
    except (UnicodeDecodeError, ValueError):
        raise Refusal("The form cannot be read") from None
    fields: dict[str, str] = {}
    for name, value in pairs:
        if name not in FORM_FIELDS:
            raise Refusal(f"{name[:40]}: is not a field of the checkout form")
        if name in fields:
            raise Refusal(f"{name}: is sent more than once")
        fields[name] = checked_text(value, name)
    return fields


def _payment_body(state: SandboxState, order: Order, fields: dict[str, str]) -> dict[str, Any]:
    body: dict[str, Any] = {}
    saved_token = fields.get("saved_card", "")
    if saved_token:
        owner = state.service(Gateway).customers.get(order.customer_id or "")
        card = next((c for c in owner.cards if c.token == saved_token), None) if owner else None
        if card is None:
            raise Refusal("saved_card: is not a saved card of this order's customer")
        return {"card_number": f"************{card.last4}", "exp_month": "**", "exp_year": "****"}
    for name in ("cardholder_name", "card_number", "exp_month", "exp_year", "cvv"):
        value = fields.get(name, "").strip()
        if value:
            body[name] = value
    for name, label in (
        ("card_number", "Card number"),
        ("exp_month", "Month"),
        ("exp_year", "Year"),
    ):
        if name not in body:
            raise Refusal(f"{label}: is required")
    for name in ("exp_month", "exp_year"):
        if not ascii_digits(body[name]) or len(body[name]) > 4:
            raise Refusal(f"{name}: must be digits")
    if "cvv" in body and (not ascii_digits(body["cvv"]) or len(body["cvv"]) > 4):
        raise Refusal("cvv: must be 3 or 4 digits")
    if len(body.get("cardholder_name", "")) > 100:
        raise Refusal("cardholder_name: at most 100 characters")
    if len(body["card_number"]) > 32:
        raise Refusal("card_number: must be 13 to 19 digits 0-9 (spaces allowed)")
    return body


@page
async def checkout_submit(request: Request, state: SandboxState) -> Response:
    """The hosted checkout's form at api_do_url: paid as the order's merchant, all or nothing."""
    order: Order | None = None
    try:
        raw = await read_capped(request, FORM_BYTES)
        fields = _form(raw)
        order_id = str(request.path_params["order_id"])[:64]
        order = state.service(Gateway).orders.get(order_id)
        expected = order.checkout_token if order is not None else ""
        if order is None or not same_secret(fields.get("checkout_token", ""), expected):
            order = None
            raise Refusal(
                "This payment page does not exist or is no longer valid", title="Not found"
            )
        # nothing awaits from here to the commit: one atomic step
        state.scheduler.run_due()
        order = state.service(Gateway).orders[order.id]
        body = _payment_body(state, order, fields)
        pending = state.service(Gateway).pay(
            MERCHANTS[order.merchant], order, body, from_checkout=True
        )
        pending.commit()
        paid = pending.value
        if paid.status == "pending_3ds":
            response: Response = RedirectResponse(
                f"/gateway/3ds/{paid.id}/{paid.three_ds_token}/", status_code=303
            )
        else:
            response = _page("Payment", _result_body(paid))
    except Refusal as refusal:
        if order is None:
            raise
        # the order is known: its form again, saying what to correct
        response = _page("Checkout", _checkout_body_for(state, order, refusal.message), 400)
    return response


def _result_body(order: Order) -> str:
    messages = {
        "charged": "Payment complete.",
        "hold": "Payment authorised: the amount is reserved.",
        "verified": "Card verified and saved.",
        "declined": "The payment was declined.",
    }
    text = messages.get(order.status, f"The order is {order.status}.")
    return (
        f"<h1>{html.escape(text)}</h1><p>{html.escape(_amount_line(order))}</p>"
        "<p>You may close this page.</p>"
    )


@page
async def checkout_script(request: Request, state: SandboxState) -> Response:
    try:
        order = _token_order(request, "checkout_token")
        url = f"{gateway_base(request)}/checkout/{order.id}/{order.checkout_token}/"
        script = (
            "(function(){var f=document.createElement('iframe');"
            f"f.src={_js_string(url)};"
            "f.style.width='100%';f.style.height='32rem';f.style.border='0';"
            "var s=document.currentScript;s.parentNode.insertBefore(f,s.nextSibling);})();"
        )
        response = Response(
            script, media_type="text/javascript", headers={"Cache-Control": "no-store"}
        )
    except Refusal as refusal:
        response = Response(f"/* {refusal.message} */", 400, media_type="text/javascript")
    return response


def _js_string(text: str) -> str:
    return (
        "'"
        + "".join(ch if ch.isalnum() or ch in "/:.-_" else f"\\u{ord(ch):04x}" for ch in text)
        + "'"
    )


@page
async def three_ds_page(request: Request, state: SandboxState) -> Response:
    state.scheduler.run_due()
    order = _token_order(request, "three_ds_token")
    return _page("3DS authentication", _three_ds_body(order))


def _three_ds_body(order: Order) -> str:
    card = f"•••• {order.card.last4}" if order.card else ""
    return (
        "<h1>3DS authentication (sandbox)</h1>"
        f"<p>{html.escape(_amount_line(order))}, card {html.escape(card)}</p>"
        "<form method=post>"
        "<button name=decision value=authenticate>Authenticate</button> "
        "<button name=decision value=fail>Fail</button></form>"
    )


@page
async def three_ds_decision(request: Request, state: SandboxState) -> Response:
    raw = await read_capped(request, FORM_BYTES)
    try:
        pairs = urllib.parse.parse_qsl(raw.decode("utf-8"), max_num_fields=4, errors="strict")
    except (UnicodeDecodeError, ValueError):
        raise Refusal("The form cannot be read") from None
    if len(pairs) != 1 or pairs[0][0] != "decision":
        raise Refusal("The form sends one field, decision")
    decision = pairs[0][1]
    if decision not in ("authenticate", "fail"):
        raise Refusal("decision: must be authenticate or fail")
    state.scheduler.run_due()
    order = _token_order(request, "three_ds_token")
    pending = state.service(Gateway).three_ds(order, decision == "authenticate")
    pending.commit()
    return _page("3DS authentication", _result_body(pending.value))


ROUTES = [
    Route("/checkout/{order_id}/{token}/", checkout_page, methods=["GET"]),
    Route("/checkout/{order_id}/{token}/sdk.js", checkout_script, methods=["GET"]),
    Route("/3ds/{order_id}/{token}/", three_ds_page, methods=["GET"]),
    Route("/3ds/{order_id}/{token}/", three_ds_decision, methods=["POST"]),
]
