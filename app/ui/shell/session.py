"""The session: what a signed-in connection has — its profile, the live service clients
(banking now; gateway and webhook store to come) and where its exchanges are logged."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.api.banking import BankingClient
    from app.api.transport import ExchangeListener
    from app.ui.connection.profiles import ServerProfile


@dataclass
class Session:
    profile: ServerProfile
    base_url: str
    banking: BankingClient

    async def aclose(self) -> None:
        await self.banking.aclose()


async def open_session(
    profile: ServerProfile, password: str, base_url: str, log_exchange: ExchangeListener
) -> Session:
    """Connect with this profile and check the credentials with one call; raises ApiError
    (then nothing stays open)."""
    # the service layer is imported once the window shows: a faster start
    from app.api.banking import BankingClient
    from app.api.transport import Profile, Transport

    transport = Transport(
        Profile(
            base_url=base_url,
            user=profile.user,
            password=password,
            partner_code=profile.partner_code,
            verify=profile.ca_bundle or True,
        )
    )
    transport.add_listener(log_exchange)  # failed sign-ins are logged too
    banking = BankingClient(transport)
    try:
        await banking.list_clients(limit=1)
    except BaseException:
        await banking.aclose()
        raise
    return Session(profile, base_url, banking)
