"""The session: what a signed-in connection has — its profile, the live service clients
(banking, the card gateway, the source of registration events) and where its exchanges are
logged."""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.api.banking import BankingClient
    from app.api.gateway import GatewayClient
    from app.api.http import ExchangeListener
    from app.api.profile import Profile
    from app.ui.connection.profiles import ServerProfile
    from app.webhooks.source import EventsSource

log = logging.getLogger("partner_desk.session")


class Session:
    def __init__(
        self,
        profile: ServerProfile,
        base_url: str,
        banking: BankingClient,
        events: EventsSource,
        *,
        gateway_connection: Profile,
        log_exchange: ExchangeListener,
    ) -> None:
        self.profile = profile
        self.base_url = base_url
        self.banking = banking
        self.events = events
        self._gateway_connection = gateway_connection
        self._log_exchange = log_exchange
        self._gateway: GatewayClient | None = None

    @property
    def gateway(self) -> GatewayClient:
        """The card gateway's client, made when first used: its package is not imported on
        the way to the first page of clients (a faster start), and a partner may have none."""
        if self._gateway is None:
            from app.api.gateway import GatewayClient, gateway_transport

            link = gateway_transport(self._gateway_connection)
            link.add_listener(self._log_exchange)
            self._gateway = GatewayClient(link)
        return self._gateway

    async def receive_events(self) -> None:
        """The embedded sandbox's events: the desk's own receiver started and subscribed,
        once the first pages are shown (a failure is said in the Events area, never fails
        the sign-in)."""
        from app.webhooks.store import StoreError

        try:
            await self.events.start()
        except (StoreError, OSError, RuntimeError) as exc:
            self.events.problem = str(exc)
            log.error("the sandbox's events cannot be received: %s", exc)

    async def aclose(self) -> None:
        await self.banking.aclose()
        if self._gateway is not None:
            await self._gateway.aclose()
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
    from app.api.address import check_base_url
    from app.api.banking import BankingClient
    from app.api.banking.transport import banking_transport
    from app.api.profile import Profile

    connection = Profile(
        base_url=base_url,
        user=profile.user,
        password=password,
        partner_code=profile.partner_code,
        verify=profile.ca_bundle or True,
    )
    # the gateway is not called at sign-in (a partner may have no card gateway), but a
    # wrong address of it is said now
    gateway_address = profile.gateway_address(base_url)
    check_base_url(gateway_address)
    gateway_connection = dataclasses.replace(connection, base_url=gateway_address)
    transport = banking_transport(connection)
    transport.add_listener(log_exchange)  # failed sign-ins are logged too
    banking = BankingClient(transport)
    try:
        # the list the Clients area reads first: its answer's model is built once, not twice
        await banking.list_clients_v2(limit=1)
    except BaseException:
        await banking.aclose()
        raise
    return Session(
        profile,
        base_url,
        banking,
        _events(profile, base_url, data_dir),
        gateway_connection=gateway_connection,
        log_exchange=log_exchange,
    )


def _events(profile: ServerProfile, base_url: str, data_dir: Path) -> EventsSource:
    """The embedded sandbox: a receiver of the desk's own (started by receive_events). A
    server: the profile's store, opened when the Events area reads it."""
    from app.webhooks.source import EventsSource

    if not profile.is_sandbox:
        from app.webhooks.store import default_store_path

        return EventsSource(profile.events_store or default_store_path())
    return EventsSource(data_dir / "sandbox-events.db", sandbox_url=base_url)
