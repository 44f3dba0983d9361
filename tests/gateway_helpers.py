"""An order as the gateway's answers carry it (gateway.yaml), and the same with a field
changed: for the tests of hostile answers."""

from __future__ import annotations

import copy
from typing import Any

ORDER_ID = "f38da0bc-5d5f-47e3-bf96-267632ca4ad1"
BASE = "https://gw.example/gateway"
ORDER: dict[str, Any] = {
    "id": ORDER_ID,
    "status": "charged",
    "scenario": "one_step",
    "capabilities": [],
    "currency": "EUR",
    "amount": "1.00",
    "amount_reserved": "0.00",
    "amount_captured": "1.00",
    "amount_refunded": "0.00",
    "reserved_until": None,
    "created_at": "2026-11-24T23:04:26Z",
    "paid_at": "2026-11-24T23:05:00Z",
    "checkout_url": f"{BASE}/checkout/{ORDER_ID}/t/",
    "checkout_script_url": f"{BASE}/checkout/{ORDER_ID}/t/sdk.js",
    "api_do_url": f"{BASE}/orders/{ORDER_ID}/do/",
    "three_ds_url": None,
    "avs_status": None,
    "cof_trace_id": None,
    "client_email": "a@b.lt",
    "customer_id": None,
    "card": {"brand": "visa", "last4": "1111"},
    "history": [
        {
            "at": "2026-11-24T23:04:26Z",
            "event": "created",
            "status": "new",
            "amount": "1.00",
            "message": "Order created: One-Step",
        }
    ],
}


def order_with(**changes: Any) -> dict[str, Any]:
    order = copy.deepcopy(ORDER)
    for path, value in changes.items():
        target = order
        *parents, last = path.split("__")
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        target[last] = value
    return order
