"""``partner-desk iban``: an IBAN checked offline, then by the API (the embedded sandbox when
no --base-url is given)."""

from __future__ import annotations

import asyncio
import sys

from app.api.banking import BankingClient
from app.api.banking.transport import banking_transport
from app.api.errors import ApiError
from app.api.http import Bounds, RetryPolicy
from app.api.profile import Profile
from app.cli.common import EXIT_API_FAILURE, EXIT_INVALID_INPUT, describe
from app.core.iban import IbanError, validate
from app.core.text import printable
from app.sandbox.app import SandboxSettings
from app.sandbox.server import BackgroundSandbox


def run(text: str, base_url: str | None, deadline: float) -> int:

    try:
        info = validate(text)
    except IbanError as exc:
        print(exc, file=sys.stderr)
        return EXIT_INVALID_INPUT
    if not 0 < deadline <= 600:
        print("partner-desk iban: --deadline must be from 0 to 600 seconds", file=sys.stderr)
        return EXIT_INVALID_INPUT
    print(f"IBAN      {info.formatted}")
    print(f"Offline   valid; country {info.country}, bank code {info.bank_code}")
    if base_url is None:
        sandbox = BackgroundSandbox(SandboxSettings(demo_statement_records=0))
        try:
            url = sandbox.start()
            return asyncio.run(_iban_check(info.iban, url, "embedded sandbox", deadline))
        finally:
            sandbox.stop()
    return asyncio.run(_iban_check(info.iban, base_url, base_url, deadline))


async def _iban_check(iban: str, base_url: str, where: str, deadline: float) -> int:

    # the IBAN check is an open operation: no credentials are sent
    profile = Profile(
        base_url=base_url,
        user="",
        password="",
        partner_code="partner-desk-cli",
        bounds=Bounds(deadline=deadline, step_timeout=min(15.0, deadline)),
    )
    try:
        transport = banking_transport(profile, retry=RetryPolicy(attempts=2))
    except ApiError as exc:  # an address the desk must not call
        print(f"partner-desk iban: {exc}", file=sys.stderr)
        return EXIT_INVALID_INPUT
    client = BankingClient(transport)
    try:
        data = await client.iban_check(iban)
    except ApiError as exc:
        print(f"API check ({where}) failed: {describe(exc)}", file=sys.stderr)
        return EXIT_INVALID_INPUT if exc.status == 400 else EXIT_API_FAILURE
    finally:
        await client.aclose()
    print(f"API check ({where})")
    # the server's text, never its control characters: a terminal would obey them
    print(f"  BIC     {printable(data.bic)}")
    print(f"  Bank    {printable(data.bank)}")
    print(f"  Address {printable(data.address)}")
    print(f"  Country {printable(data.country)}")
    print(f"  SEPA    {'yes' if data.sepa else 'no'}")
    return 0
