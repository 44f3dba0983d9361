"""The banking API's part of the sandbox: routes, state, ledger, tariff, demo data, NACE."""

from __future__ import annotations

from starlette.routing import BaseRoute, Mount

from app.sandbox.banking.demo import seed
from app.sandbox.banking.routes import V1_ROUTES, V2_ROUTES
from app.sandbox.banking.state import Bank
from app.sandbox.http import SandboxState


def install(
    state: SandboxState,
    *,
    settle_seconds: float,
    review_seconds: float,
    demo_statement_records: int,
    demo_busy_statement_records: int,
) -> Bank:
    """A seeded bank, in the sandbox's state."""
    bank = Bank(state.scheduler, settle_seconds=settle_seconds, review_seconds=review_seconds)
    seed(bank, demo_statement_records, demo_busy_statement_records)
    state.services[Bank] = bank
    return bank


def mounts() -> list[BaseRoute]:
    return [Mount("/v1", routes=V1_ROUTES), Mount("/v2", routes=V2_ROUTES)]
