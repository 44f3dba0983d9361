"""The Orders area: the card gateway's orders."""

from __future__ import annotations

from app.ui.orders.controller import OrdersArea
from app.ui.shell.areas import AreaContext


def build(context: AreaContext) -> OrdersArea:
    return OrdersArea(context)


__all__ = ["OrdersArea", "build"]
