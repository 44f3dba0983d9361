"""The Clients area."""

from __future__ import annotations

from app.ui.clients.controller import ClientsArea
from app.ui.shell.areas import AreaContext


def build(context: AreaContext) -> ClientsArea:
    return ClientsArea(context)


__all__ = ["ClientsArea", "build"]
