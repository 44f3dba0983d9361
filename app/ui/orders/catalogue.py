"""The words the desk shows for an order's statuses and its history's events: one table each,
used by the list, the detail, the card entry and the reasons an action is not offered.
No Qt here."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Status:
    title: str  # as a cell or a label shows it: "Partly refunded"
    colour: str  # beside the words, never instead of them

    @property
    def words(self) -> str:
        """As a sentence says it: "the order is partly refunded"."""
        return self.title[:1].lower() + self.title[1:]


STATUSES = {
    "new": Status("New", "#44474e"),
    "pending_3ds": Status("Waiting for 3DS", "#8a5a00"),
    "hold": Status("Reserved", "#8a5a00"),
    "charged": Status("Charged", "#1b7f3b"),
    "partially_refunded": Status("Partly refunded", "#1b5e7f"),
    "refunded": Status("Refunded", "#1b5e7f"),
    "reversed": Status("Reversed", "#6b4fa0"),
    "declined": Status("Declined", "#b3261e"),
    "expired": Status("Expired", "#b3261e"),
    "verified": Status("Verified", "#1b7f3b"),
}


def status(code: str) -> Status:
    """A status of the gateway's, or one it may add later: shown as it is sent."""
    return STATUSES.get(code) or Status(code, "#000000")


#: the history's events in words (a release is not a charge)
EVENTS = {
    "created": "Created",
    "three_ds_required": "3DS asked",
    "three_ds_authenticated": "3DS passed",
    "three_ds_failed": "3DS failed",
    "declined": "Declined",
    "charged": "Charged",
    "authorized": "Reserved",
    "verified": "Verified",
    "captured": "Captured",
    "released": "Released",
    "expired": "Expired",
    "refunded": "Refunded",
    "reversed": "Reversed",
    "card_saved": "Card saved",
}
