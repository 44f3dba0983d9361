"""The card gateway's part of the sandbox: routes, orders state machine, cards, hosted pages."""

from __future__ import annotations

from starlette.routing import BaseRoute, Mount

from app.sandbox.gateway.routes import ROUTES
from app.sandbox.gateway.state import Gateway
from app.sandbox.http import SandboxState


def install(state: SandboxState) -> Gateway:
    """An empty gateway (customers, taxes and orders come from requests), in the state."""
    gateway = Gateway(state.scheduler)
    state.services[Gateway] = gateway
    return gateway


def mounts() -> list[BaseRoute]:
    return [Mount("/gateway", routes=ROUTES)]
