"""The address of a service, as a person gives it in a connection profile: checked before
anything is sent to it (no plain http to another computer, no credentials in it)."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from app.api.errors import InvalidInput

_LOOPBACK_NAMES = frozenset({"localhost"})


def check_base_url(base_url: str) -> None:
    """Refuse an address the desk must not call: plain http to another computer, or one that
    carries a user or password (credentials go in the profile, never in a URL). The message
    never repeats a URL that carries credentials."""
    try:
        parts = urlsplit(base_url)
        host = parts.hostname
        has_credentials = parts.username is not None or parts.password is not None
    except ValueError:
        raise InvalidInput("base URL", "not a valid address") from None
    try:
        port = parts.port
    except ValueError:
        raise InvalidInput("base URL", "the port must be a number from 1 to 65535") from None
    if port == 0:
        raise InvalidInput("base URL", "the port must be a number from 1 to 65535")
    if has_credentials:
        raise InvalidInput(
            "base URL", "must not carry a user or password: enter them in their own fields"
        )
    if parts.scheme not in ("https", "http") or not host:
        raise InvalidInput("base URL", "an address such as https://api.bank.example")
    if parts.query or parts.fragment:
        raise InvalidInput("base URL", "must not carry a query or a fragment")
    if parts.scheme == "http" and not _is_loopback(host):
        raise InvalidInput("base URL", "use https: only this computer may be reached by http")


def _is_loopback(host: str) -> bool:
    if host.lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def api_root(base_url: str) -> str:
    """The address both versions of the banking API hang under: a base URL given with its /v1
    (as the contract writes it) or /v2 prefix is accepted too."""
    root = base_url.rstrip("/")
    for prefix in ("/v1", "/v2"):
        if root.endswith(prefix):
            return root[: -len(prefix)]
    return root
