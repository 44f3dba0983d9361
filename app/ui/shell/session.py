"""The session: what a signed-in connection has — its profile, the live service clients
(banking, the card gateway, the source of registration events) and where its exchanges are
logged."""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.api.banking import BankingClient
    from app.api.gateway import GatewayClient
    from app.api.http import ExchangeListener
    from app.ui.connection.profiles import ServerProfile
    from app.webhooks.source import EventsSource

log = logging.getLogger("partner_desk.session")


@dataclass
class Session:
    profile: ServerProfile
    base_url: str
    banking: BankingClient
    gateway: GatewayClient
    events: EventsSource

    async def aclose(self) -> None:
        await self.banking.aclose()
        await self.gateway.aclose()
        await self.events.aclose()


async def open_session(
    profile: ServerProfile,
    password: str,
    base_url: str,
    log_exchange: ExchangeListener,
    data_dir: Path,
) -> Session:
    """Connect with this profile and check the credentials with one call; raises ApiError
    (then nothing stays open)."""
    # the service layer is imported once the window shows: a faster start
    from app.api.banking import BankingClient
    from app.api.banking.transport import banking_transport
    from app.api.gateway import GatewayClient, gateway_transport
    from app.api.profile import Profile

    connection = Profile(
        base_url=base_url,
        user=profile.user,
        password=password,
        partner_code=profile.partner_code,
        verify=profile.ca_bundle or True,
    )
    transport = banking_transport(connection)
    transport.add_listener(log_exchange)  # failed sign-ins are logged too
    banking = BankingClient(transport)
    try:
        await banking.list_clients(limit=1)
        # the gateway is not called at sign-in: a partner may have no card gateway
        gateway_link = gateway_transport(
            dataclasses.replace(connection, base_url=profile.gateway_address(base_url))
        )
    except BaseException:
        await banking.aclose()
        raise
    gateway_link.add_listener(log_exchange)
    return Session(
        profile,
        base_url,
        banking,
        GatewayClient(gateway_link),
        await _events(profile, base_url, data_dir),
    )


async def _events(profile: ServerProfile, base_url: str, data_dir: Path) -> EventsSource:
    """The embedded sandbox: a receiver of the desk's own, subscribed at once (a failure is
    said in the Events area, never fails the sign-in). A server: the profile's store, opened
    when the Events area reads it."""
    from app.webhooks.source import EventsSource
    from app.webhooks.store import StoreError, default_store_path

    if not profile.is_sandbox:
        return EventsSource(profile.events_store or default_store_path())
    source = EventsSource(data_dir / "sandbox-events.db", sandbox_url=base_url)
    try:
        await source.start()
    except (StoreError, OSError, RuntimeError) as exc:
        source.problem = str(exc)
        log.error("the sandbox's events cannot be received: %s", exc)
    return source
