"""The banking API's side of the wire: its address (the root both versions hang under), HTTP
Basic credentials, and ``x-partner-code`` on every secured call."""

from __future__ import annotations

from typing import Any

import httpx

from app.api.address import api_root
from app.api.errors import InvalidInput
from app.api.http import RetryPolicy, Transport
from app.api.profile import Profile
from app.core import limits

PARTNER_CODE = "x-partner-code"


def banking_transport(
    profile: Profile, *, retry: RetryPolicy | None = None, **options: Any
) -> Transport:
    """The transport of the banking API for a profile (its /v1 or /v2 written out or not)."""
    problem = limits.PARTNER_CODE.length_problem(profile.partner_code)
    if problem:
        raise InvalidInput("partner code", problem)
    return Transport(
        api_root(profile.base_url),
        auth=httpx.BasicAuth(profile.user, profile.password),
        secured_headers={PARTNER_CODE: profile.partner_code},
        verify=profile.verify,
        bounds=profile.bounds,
        retry=retry,
        **options,
    )
