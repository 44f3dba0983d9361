"""The card gateway's operations: one typed async method per operation of gateway.yaml, over
the same transport as the banking API (retries reuse the x-request-id; every POST sends one,
the action's key when the caller passes it)."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any, Literal, TypeVar
from urllib.parse import urlsplit

import httpx
from pydantic import BaseModel

from app.api.errors import InvalidInput
from app.api.gateway.models import (
    Customer,
    CustomerCreate,
    CustomerCreated,
    Order,
    OrderCreate,
    PaymentCreate,
    Tax,
    TaxCreate,
)
from app.api.http import RetryPolicy, Transport
from app.api.operations import Operations, many, one, page, segment
from app.api.profile import Profile
from app.core import filter as flt
from app.core.gateway.amounts import AmountError, format_amount, parse_amount, smallest
from app.core.limits import DEFAULT_LIMIT, ORDER_FILTER_FIELDS, Bound
from app.core.text import printable

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

ID = Bound(1, 64)


def gateway_transport(
    profile: Profile, *, retry: RetryPolicy | None = None, **options: Any
) -> Transport:
    """The transport of a gateway profile: its address as given, HTTP Basic, no other header
    of its own."""
    return Transport(
        profile.base_url,
        auth=httpx.BasicAuth(profile.user, profile.password),
        verify=profile.verify,
        bounds=profile.bounds,
        retry=retry,
        **options,
    )


class GatewayClient(Operations):
    """The card gateway of one connection profile (``base_url`` is the gateway's, such as
    https://gateway.bank.example or the sandbox's http://127.0.0.1:8080/gateway); the same
    call plumbing as the banking API's operations."""

    # -- customers and taxes

    async def create_customer(
        self, customer: CustomerCreate, *, request_id: str | None = None
    ) -> CustomerCreated:
        return await self._call(
            one(CustomerCreated), "POST", "/clients/", body=customer.body(), request_id=request_id
        )

    async def get_customer(self, customer_id: str) -> Customer:
        path = f"/clients/{segment('customer id', customer_id, ID)}/"
        return await self._call(one(Customer), "GET", path)

    async def create_tax(self, tax: TaxCreate, *, request_id: str | None = None) -> Tax:
        return await self._call(one(Tax), "POST", "/taxes/", body=tax.body(), request_id=request_id)

    async def list_taxes(self) -> list[Tax]:
        return await self._call(many(Tax), "GET", "/taxes/")

    # -- orders

    async def create_order(self, order: OrderCreate, *, request_id: str | None = None) -> Order:
        return await self._call(
            one(Order), "POST", "/orders/", body=order.body(), request_id=request_id
        )

    async def get_order(self, order_id: str) -> Order:
        return await self._call(one(Order), "GET", self._order_path(order_id))

    async def list_orders(
        self,
        *,
        offset: int = 0,
        limit: int = DEFAULT_LIMIT,
        filter: str | flt.Node | None = None,
    ) -> list[Order]:
        params = page(offset, limit, filter, ORDER_FILTER_FIELDS)
        return await self._call(many(Order), "GET", "/orders/", params=params)

    async def pay(
        self, order: Order, payment: PaymentCreate, *, request_id: str | None = None
    ) -> Order:
        """Card data to the order's api_do_url — only when that address is the gateway's own
        (card data never goes to another host)."""
        return await self._call(
            one(Order),
            "POST",
            self._payment_path(order),
            body=payment.body(),
            request_id=request_id,
        )

    async def charge(self, order_id: str, *, request_id: str | None = None) -> Order:
        path = self._order_path(order_id, "charge/")
        return await self._call(one(Order), "POST", path, request_id=request_id)

    async def capture(
        self, order_id: str, total: Decimal, *, currency: str, request_id: str | None = None
    ) -> Order:
        body = {"total": _amount("total", total, currency)}
        path = self._order_path(order_id, "capture/")
        return await self._call(one(Order), "POST", path, body=body, request_id=request_id)

    async def refund(
        self,
        order_id: str,
        amount: Decimal | None = None,
        *,
        currency: str,
        request_id: str | None = None,
    ) -> Order:
        """A full refund (no amount: all that remains) or a partial one."""
        body = None if amount is None else {"amount": _amount("amount", amount, currency)}
        path = self._order_path(order_id, "refund/")
        return await self._call(one(Order), "POST", path, body=body, request_id=request_id)

    async def reverse(self, order_id: str, *, request_id: str | None = None) -> Order:
        path = self._order_path(order_id, "reverse/")
        return await self._call(one(Order), "POST", path, request_id=request_id)

    def browser_address(self, order: Order, page: Literal["checkout", "3-D Secure"]) -> str:
        """The order's checkout or 3-D Secure page, when it is a web page a browser may be
        given: https (http only from a gateway reached over http, a sandbox's), with a host.
        Any other address (a file, a share, a script, a settings page) is refused: the
        system would open it with whatever handles it."""
        url = order.checkout_url if page == "checkout" else order.three_ds_url
        field = "checkout_url" if page == "checkout" else "three_ds_url"
        if url is None:
            raise InvalidInput(field, f"order {order.id} has no {page} page")
        schemes = {"https", urlsplit(self.transport.base_url).scheme}
        try:
            target = urlsplit(url)
            target.port  # noqa: B018 - read to be checked: ValueError past 65535
            host = target.hostname
            if host is not None and not _WEB_HOST.fullmatch(host.encode("idna").decode()):
                host = None  # a space, an empty label: no browser opens it
        except (ValueError, UnicodeError):
            host = None
        if host is None or target.scheme not in schemes or not url.isprintable() or " " in url:
            shown = printable(url, 60)
            raise InvalidInput(field, f"{shown!r} is not a web page: it was not opened")
        if "@" in target.netloc:  # https://pay.example@evil.example/ opens evil.example
            raise InvalidInput(field, f"names a user before its host {host}: it was not opened")
        return url

    # -- paths

    @staticmethod
    def _order_path(order_id: str, action: str = "") -> str:
        return f"/orders/{segment('order id', order_id, ID)}/{action}"

    def _payment_path(self, order: Order) -> str:
        """The order's payment path, when its api_do_url is exactly the gateway's documented
        one for that order (/orders/{order_id}/do/ under the gateway's address): no other
        host, no other path (dot segments, percent-encoded or not, are another path), no
        query, no fragment. Card data goes nowhere else."""
        base = self.transport.base_url
        path = self._order_path(order.id, "do/")
        target, root = urlsplit(order.api_do_url), urlsplit(base)
        if (target.scheme, target.netloc, target.path, target.query, target.fragment) != (
            root.scheme,
            root.netloc,
            root.path + path,
            "",
            "",
        ):
            raise InvalidInput(
                "api_do_url",
                f"is not the payment address of order {order.id} at the gateway {base}: "
                "card data goes only there",
            )
        return path


# a host a browser opens: DNS labels (international ones in their ASCII form) or an address
_WEB_HOST = re.compile(
    r"(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*"
    r"\.?|[0-9a-f:.]+",
    re.IGNORECASE,
)


def _amount(field: str, value: Decimal, currency: str) -> str:
    try:
        amount = parse_amount(value, currency)
    except AmountError as exc:
        raise InvalidInput(field, str(exc)) from None
    low = smallest(currency)
    if amount < low:
        raise InvalidInput(field, f"must be at least {format_amount(low, currency)}")
    return format_amount(amount, currency)
