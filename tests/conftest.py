"""Shared fixtures: the real sandbox on loopback, a fast-retrying client. The run's own home
(tests/own_home.py) and the check after every test (tests/leak_check.py) are plugins."""

from __future__ import annotations

import asyncio
import logging
import subprocess
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

import httpx
import pytest
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from app.api.banking import BankingClient
from app.api.banking.transport import banking_transport
from app.api.gateway import GatewayClient, gateway_transport
from app.api.http import RetryPolicy
from app.api.profile import Profile
from app.sandbox.app import SandboxSettings
from app.sandbox.banking.state import Bank
from app.sandbox.server import BackgroundSandbox
from app.testing.memory_keyring import MemoryKeyring
from app.testing.memory_keyring import memory_keyring as in_memory

T = TypeVar("T")

pytest_plugins = ["tests.own_home", "tests.leak_check", "tests.postgres"]

FAST_RETRY = RetryPolicy(attempts=3, backoff=0.01)

# hypothesis's time limits (200 ms an example, data made fast enough) fail a correct test on a
# busy machine: the examples are checked, not timed
hypothesis_settings.register_profile(
    "steady", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
hypothesis_settings.load_profile("steady")


@pytest.fixture(autouse=True)
def _fail_on_unexpected_warning_logs(request, caplog):
    """DESIGN.md: a test fails on an unexpected warning log of ours."""
    yield
    if request.node.get_closest_marker("allow_warning_logs"):
        return
    unexpected = [
        f"{r.name} {r.levelname}: {r.getMessage()}"
        for r in caplog.get_records("call")
        if r.levelno >= logging.WARNING and r.name.startswith("partner_desk")
    ]
    assert not unexpected, unexpected


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


@pytest.fixture(scope="session")
def sandbox() -> Iterator[BackgroundSandbox]:
    """One sandbox for the session, its clock frozen: time moves only when a test moves it
    (``advance``), so nothing waits for a settle and nothing settles by surprise."""
    server = BackgroundSandbox(SandboxSettings(frozen_clock=True))
    server.start()
    yield server
    server.stop()


def advance(url: str, seconds: float = 0, *, days: int = 0) -> dict[str, Any]:
    """Move the sandbox's clock forward; everything due has run when this returns."""
    body = {"advance_days": days} if days else {"advance_seconds": seconds}
    answer = httpx.post(f"{url}/_sandbox/clock", json=body, timeout=30)
    answer.raise_for_status()
    result: dict[str, Any] = answer.json()
    return result


@pytest.fixture
def sandbox_url(sandbox: BackgroundSandbox) -> str:
    return sandbox.url


@pytest.fixture
def bank(sandbox: BackgroundSandbox) -> Bank:
    return sandbox.bank


@pytest.fixture
def admin(sandbox_url: str) -> Iterator[httpx.Client]:
    """Plain HTTP to the sandbox: its control endpoints and raw requests."""
    with httpx.Client(base_url=sandbox_url, timeout=30) as client:
        client.delete("/_sandbox/requests")
        yield client
        client.delete("/_sandbox/faults")


def make_client(
    url: str,
    *,
    password: str = "demo",
    transport: httpx.AsyncBaseTransport | None = None,
    retry: RetryPolicy = FAST_RETRY,
) -> BankingClient:
    profile = Profile(base_url=url, user="demo", password=password, partner_code="PD-TEST")
    return BankingClient(banking_transport(profile, retry=retry, transport=transport))


def person_body(index: int = 1, **changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "first_name": "Eglė",
        "last_name": f"Tester{index}",
        "birth_date": "1988-04-12",
        "email": f"egle.tester{index}@example.lt",
        "contact_mobile_number": "+37061234567",
        "external_id": f"T-{index}",
        "address": {
            "street": "Vilniaus g. 1",
            "city": "Vilnius",
            "postal_code": "01101",
            "country": "LT",
        },
        "tax_id": {"number": "38804120000", "country": "LT"},
        "ip": "192.0.2.44",
    }
    body.update(changes)
    return body


def company_body(**changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": "Test Logistics UAB",
        "registration_number": "305000111",
        "incorporation_date": "2019-03-01",
        "tax_id": {"number": "LT100000000111", "country": "LT"},
        "nace_code": "49.41",
        "registered_address": {
            "street": "Savanorių pr. 5",
            "city": "Kaunas",
            "postal_code": "44200",
            "country": "LT",
        },
        "email": "office@testlogistics.example",
        "contact_mobile_number": "+37037000000",
        "website": "https://testlogistics.example",
        "site_info": {"url": "https://testlogistics.example"},
    }
    body.update(changes)
    return body


@pytest.fixture(autouse=True)
def memory_keyring() -> Iterator[MemoryKeyring]:
    """DESIGN.md: tests install an in-memory keyring backend."""
    with in_memory() as backend:
        yield backend


def make_gateway(
    url: str,
    *,
    user: str = "demo",
    password: str = "demo",
    transport: httpx.AsyncBaseTransport | None = None,
    retry: RetryPolicy = FAST_RETRY,
) -> GatewayClient:
    """A gateway client of the sandbox at ``url`` (its root; the gateway is under /gateway)."""
    profile = Profile(base_url=f"{url}/gateway", user=user, password=password, partner_code="")
    return GatewayClient(gateway_transport(profile, retry=retry, transport=transport))


class Lines(logging.Handler):
    """The log's lines as text: unlike the test's own log, no record (and no traceback) is
    kept."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


def killed_if_running(process: subprocess.Popen[str]) -> None:
    """A test's server process that a failed test left running is not left behind."""
    if process.poll() is None:
        process.kill()
        process.communicate(timeout=30)
