"""Connection profiles: the embedded sandbox (the default) and any number of named servers
(base URL, partner code, user, optional CA bundle and card gateway URL), kept in the settings.
Passwords never are: they live in the OS keyring (app.api.credentials)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QSettings

from app.api.address import api_root, check_base_url
from app.api.errors import InvalidInput
from app.core import limits

SANDBOX = "Embedded sandbox"
NEW_SERVER = "New server…"
SANDBOX_USER = "demo"
SANDBOX_PASSWORD = "demo"  # noqa: S105 - the sandbox's published demo password
SANDBOX_PARTNER_CODE = "partner-desk"


@dataclass(frozen=True)
class ServerProfile:
    name: str
    base_url: str  # the API's root, without /v1
    partner_code: str
    user: str
    ca_bundle: str = ""  # a PEM file to trust besides the system's; verification stays on
    gateway_url: str = ""  # the card gateway's address; empty: the base URL + /gateway
    events_store: str = ""  # the webhook events: a SQLite file or a postgresql:// URL

    @property
    def is_sandbox(self) -> bool:
        return self.name == SANDBOX

    def gateway_address(self, base_url: str) -> str:
        """Where the card gateway is: its own URL, or /gateway under the API's root (a base
        URL given with its /v1 or /v2 is accepted: the gateway is beside them, not in one)."""
        return self.gateway_url or f"{api_root(base_url)}/gateway"

    def check(self) -> None:
        """Refuse a profile that cannot work, naming the field."""
        if not self.name.strip():
            raise InvalidInput("Name", "give the server a name")
        if self.name in (SANDBOX, NEW_SERVER):
            raise InvalidInput("Name", f"{self.name!r} is reserved")

        def checked(label: str, url: str) -> None:  # named by the field's label in the dialog
            try:
                check_base_url(url)
            except InvalidInput as exc:
                raise InvalidInput(label, exc.problem) from None

        checked("Base URL", self.base_url)
        if self.gateway_url:
            checked("Gateway URL", self.gateway_url)
        problem = limits.PARTNER_CODE.length_problem(self.partner_code)
        if problem:
            raise InvalidInput("Partner code", problem)
        if not self.user.strip():
            raise InvalidInput("User", "enter the user name")
        if self.ca_bundle and not Path(self.ca_bundle).is_file():
            raise InvalidInput("CA bundle", f"{self.ca_bundle} is not a file")


SANDBOX_PROFILE = ServerProfile(SANDBOX, "", SANDBOX_PARTNER_CODE, SANDBOX_USER)


def chosen_on_the_command_line(
    store: ProfileStore, base_url: str | None, gateway_url: str | None, name: str | None
) -> ServerProfile:
    """The profile ``partner-desk --base-url URL [--gateway-url URL] [--profile NAME]`` asks
    for: a saved profile by its name; with a base URL, that profile (new, or the saved one
    with the new addresses; named after the server's host when no name is given), checked
    and saved. InvalidInput names what is wrong."""
    from urllib.parse import urlsplit

    saved = store.get(name) if name else None
    if base_url is None:
        if name is None:
            raise InvalidInput("--gateway-url", "goes with --base-url")
        if saved is None:
            known = ", ".join(store.names())
            raise InvalidInput("--profile", f"no profile is named {name!r} (saved: {known})")
        if gateway_url is None:
            return saved
        base_url = saved.base_url
    if name is None:
        name = urlsplit(base_url).hostname or base_url
    if name == SANDBOX:
        raise InvalidInput("--profile", f"{SANDBOX!r} has no base URL of its own")
    kept = saved or ServerProfile(name, base_url, SANDBOX_PARTNER_CODE, "")
    profile = dataclasses.replace(
        kept,
        name=name,
        base_url=base_url,
        gateway_url=kept.gateway_url if gateway_url is None else gateway_url,
    )
    try:
        profile.check()
    except InvalidInput as exc:
        if exc.field != "User":  # the sign-in dialog asks for the user
            option = {"Base URL": "--base-url", "Gateway URL": "--gateway-url"}
            raise InvalidInput(option.get(exc.field, exc.field), exc.problem) from None
    store.save(profile)
    return profile


class ProfileStore:
    def __init__(self, settings: QSettings) -> None:
        self._settings = settings

    def names(self) -> list[str]:
        self._settings.beginGroup("profiles")
        names = sorted(self._settings.childGroups())
        self._settings.endGroup()
        return [SANDBOX, *names]

    def get(self, name: str) -> ServerProfile | None:
        if name == SANDBOX:
            return SANDBOX_PROFILE
        if name not in self.names():
            return None
        key = f"profiles/{name}"
        return ServerProfile(
            name=name,
            base_url=str(self._settings.value(f"{key}/base_url", "")),
            partner_code=str(self._settings.value(f"{key}/partner_code", "")),
            user=str(self._settings.value(f"{key}/user", "")),
            ca_bundle=str(self._settings.value(f"{key}/ca_bundle", "")),
            gateway_url=str(self._settings.value(f"{key}/gateway_url", "")),
            events_store=str(self._settings.value(f"{key}/events_store", "")),
        )

    def save(self, profile: ServerProfile) -> None:
        key = f"profiles/{profile.name}"
        for field in (
            "base_url",
            "partner_code",
            "user",
            "ca_bundle",
            "gateway_url",
            "events_store",
        ):
            self._settings.setValue(f"{key}/{field}", getattr(profile, field))

    def delete(self, name: str) -> None:
        self._settings.remove(f"profiles/{name}")
        if self._settings.value("connection/last") == name:
            self._settings.setValue("connection/last", SANDBOX)

    @property
    def last(self) -> str:
        name = str(self._settings.value("connection/last", SANDBOX))
        return name if name in self.names() else SANDBOX

    @last.setter
    def last(self, name: str) -> None:
        self._settings.setValue("connection/last", name)
