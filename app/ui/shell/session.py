"""The session: what a signed-in connection has — its profile, the live service clients
(banking and the card gateway; the webhook store to come) and where its exchanges are
logged."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.api.banking import BankingClient
    from app.api.gateway import GatewayClient
    from app.api.transport import ExchangeListener
    from app.ui.connection.profiles import ServerProfile


@dataclass
class Session:
    profile: ServerProfile
    base_url: str
    banking: BankingClient
    gateway: GatewayClient

    async def aclose(self) -> None:
        await self.banking.aclose()
        await self.gateway.aclose()


async def open_session(
    profile: ServerProfile, password: str, base_url: str, log_exchange: ExchangeListener
) -> Session:
    """Connect with this profile and check the credentials with one call; raises ApiError
    (then nothing stays open)."""
    # the service layer is imported once the window shows: a faster start
    from app.api.banking import BankingClient
    from app.api.gateway import GatewayClient, gateway_transport
    from app.api.transport import Profile, Transport

    connection = Profile(
        base_url=base_url,
        user=profile.user,
        password=password,
        partner_code=profile.partner_code,
        verify=profile.ca_bundle or True,
    )
    transport = Transport(connection)
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
    return Session(profile, base_url, banking, GatewayClient(gateway_link))
