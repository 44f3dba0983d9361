"""``partner-desk gateway order``: an order's status, amounts and history, every text of the
server printed without its control characters."""

from __future__ import annotations

import asyncio
import datetime as dt
import sys
from decimal import Decimal

from app.api.errors import ApiError, InvalidInput
from app.api.gateway import GatewayClient, gateway_transport
from app.api.http import RetryPolicy
from app.api.profile import Profile
from app.cli.common import (
    EXIT_API_FAILURE,
    EXIT_INVALID_INPUT,
    GATEWAY_URL_ENV,
    LOCAL_GATEWAY,
    describe,
    password_for,
)
from app.core.gateway.amounts import format_amount
from app.core.gateway.matrix import BY_CODE, NAMES
from app.core.money import MoneyError
from app.core.text import printable


def order(order_id: str, base_url: str | None, user: str) -> int:
    url, password = password_for("gateway", base_url, user, GATEWAY_URL_ENV, LOCAL_GATEWAY)
    if password is None:
        return EXIT_INVALID_INPUT
    return asyncio.run(_print_order(order_id, url, user, password))


async def _print_order(order_id: str, base_url: str, user: str, password: str) -> int:

    profile = Profile(base_url=base_url, user=user, password=password, partner_code="")
    try:
        client = GatewayClient(gateway_transport(profile, retry=RetryPolicy(attempts=2)))
    except ApiError as exc:  # an address the desk must not call
        print(f"partner-desk gateway: {exc}", file=sys.stderr)
        return EXIT_INVALID_INPUT
    try:
        order = await client.get_order(order_id)
    except InvalidInput as exc:  # refused before anything was sent: a usage error
        print(f"partner-desk gateway: {exc}", file=sys.stderr)
        return EXIT_INVALID_INPUT
    except ApiError as exc:
        print(f"Order {printable(order_id, 80)}: {describe(exc)}", file=sys.stderr)
        return EXIT_INVALID_INPUT if exc.status == 400 else EXIT_API_FAILURE
    finally:
        await client.aclose()

    currency = printable(order.currency, 3)

    def money(amount: Decimal) -> str:
        try:
            return f"{format_amount(amount, order.currency)} {currency}"
        except MoneyError:  # a currency this desk does not know: the amount as sent
            return f"{amount} {currency}"

    def when(moment: dt.datetime | None) -> str:
        if moment is None:
            return "-"
        return moment.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")

    named = [NAMES[BY_CODE[c]] if c in BY_CODE else printable(c, 40) for c in order.capabilities]
    scenario = NAMES[BY_CODE[order.scenario]]
    print(f"Order      {printable(order.id)}")
    print(f"Status     {printable(order.status)}")
    print(f"Scenario   {scenario}" + (f"; {', '.join(named)}" if named else ""))
    print(f"Amount     {money(order.amount)}")
    reserved = money(order.amount_reserved)
    if order.reserved_until is not None and order.amount_reserved > 0:
        reserved += f" (until {when(order.reserved_until)})"
    print(f"Reserved   {reserved}")
    print(f"Captured   {money(order.amount_captured)}")
    print(f"Refunded   {money(order.amount_refunded)}")
    print(f"Created    {when(order.created_at)}")
    if order.paid_at is not None:
        print(f"Paid       {when(order.paid_at)}")
    if order.card is not None:
        print(f"Card       {printable(order.card.brand)} {order.card.masked}")
    if order.avs_status is not None:
        avs = order.avs_status
        raw = f" ({printable(avs.raw_code, 8)})" if avs.raw_code else ""
        print(f"AVS        {printable(avs.code, 40)}{raw}: {printable(avs.description, 200)}")
    if order.cof_trace_id:
        print(f"COF trace  {printable(order.cof_trace_id, 64)}")
    print("History")
    for entry in order.history:
        amount = money(entry.amount) if entry.amount is not None else ""
        event, status = printable(entry.event, 30), printable(entry.status, 20)
        print(
            f"  {when(entry.at)}  {event:<22} {status:<18} {amount:>16}  "
            f"{printable(entry.message, 300)}"
        )
    return 0
