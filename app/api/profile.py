"""A connection profile: where a service is and as whom to call it, as the person set it up.
The password comes from the keyring, never from a file."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.api.http.policy import Bounds


@dataclass(frozen=True)
class Profile:
    """Where and as whom to call (``partner_code``: the banking API's x-partner-code)."""

    base_url: str
    user: str
    password: str = field(repr=False)
    partner_code: str
    # True, or the path of a CA bundle; never False (TLS verification stays on)
    verify: bool | str = True
    bounds: Bounds = field(default_factory=Bounds)
