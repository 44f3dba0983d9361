"""The card gateway's compatibility matrix of scenarios and capabilities, transcribed row by
row from the contract's table (card-gateway.md, "Compatibility matrix").

Where two rows disagree — one lists the other, which does not list it back (PMS lists MO but
MO does not list PMS; ZA lists AVS but AVS does not list ZA) — the decided rule is: **a pair
runs when either row lists it**. A row that lists a pair states it compatible; a row that is
silent forbids nothing in words, and the flows the pairs name (saving a card taken by phone,
verifying a card with AVS, refunding a funding) are ones merchants run. ``disagreements()``
lists every such pair; the README and gateway.yaml say so.

Two conditions of the PMS row apply besides: Travel Data with Payment Method Saving only when
the method is saved as one-click or automatic, and Taxes with Payment Method Saving not in a
Zero-Amount order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum
from itertools import combinations
from typing import Any


class Item(StrEnum):
    """A scenario or a capability, by the contract's abbreviation."""

    OS = "OS"  # One-Step
    TS = "TS"  # Two-Step
    ZA = "ZA"  # Zero-Amount
    FR = "FR"  # Full Refund
    PR = "PR"  # Partial Refund
    RV = "RV"  # Reversal
    RC = "RC"  # Recurring
    RA = "RA"  # Recurring (Automatic)
    OC = "OC"  # One-Click
    PMS = "PMS"  # Payment Method Saving
    TD = "TD"  # Travel Data
    AF = "AF"  # Account Funding
    DD = "DD"  # Dynamic Descriptor
    SL = "SL"  # Service Location
    QC = "QC"  # QCash
    MO = "MO"  # MOTO
    SF = "SF"  # SDWO Funding
    SP = "SP"  # SDWO Purchase
    TX = "TX"  # Taxes
    AVS = "AVS"  # AVS


NAMES: dict[Item, str] = {
    Item.OS: "One-Step",
    Item.TS: "Two-Step",
    Item.ZA: "Zero-Amount",
    Item.FR: "Full Refund",
    Item.PR: "Partial Refund",
    Item.RV: "Reversal",
    Item.RC: "Recurring",
    Item.RA: "Recurring (Automatic)",
    Item.OC: "One-Click",
    Item.PMS: "Payment Method Saving",
    Item.TD: "Travel Data",
    Item.AF: "Account Funding",
    Item.DD: "Dynamic Descriptor",
    Item.SL: "Service Location",
    Item.QC: "QCash",
    Item.MO: "MOTO",
    Item.SF: "SDWO Funding",
    Item.SP: "SDWO Purchase",
    Item.TX: "Taxes",
    Item.AVS: "AVS",
}

#: How answers and requests name the items (an order's ``scenario`` and ``capabilities``).
CODES: dict[Item, str] = {
    Item.OS: "one_step",
    Item.TS: "two_step",
    Item.ZA: "zero_amount",
    Item.FR: "full_refund",
    Item.PR: "partial_refund",
    Item.RV: "reversal",
    Item.RC: "recurring",
    Item.RA: "recurring_automatic",
    Item.OC: "one_click",
    Item.PMS: "payment_method_saving",
    Item.TD: "travel_data",
    Item.AF: "account_funding",
    Item.DD: "dynamic_descriptor",
    Item.SL: "service_location",
    Item.QC: "qcash",
    Item.MO: "moto",
    Item.SF: "sdwo_funding",
    Item.SP: "sdwo_purchase",
    Item.TX: "taxes",
    Item.AVS: "avs",
}
BY_CODE: dict[str, Item] = {code: item for item, code in CODES.items()}

#: The order request's field that makes each item (a refusal names it).
FIELDS: dict[Item, str] = {
    Item.OS: "products",
    Item.TS: "skip_capture",
    Item.ZA: "payment_system",
    Item.FR: "refund",
    Item.PR: "refund",
    Item.RV: "reverse",
    Item.RC: "use_scenario",
    Item.RA: "use_scenario",
    Item.OC: "use_scenario",
    Item.PMS: "setup_future_use",
    Item.TD: "travel_data",
    Item.AF: "recipient_client",
    Item.DD: "dynamic_descriptor",
    Item.SL: "service_location",
    Item.QC: "payment_system",
    Item.MO: "is_moto",
    Item.SF: "payment_system",
    Item.SP: "sdwo_merchant_id",
    Item.TX: "products",
    Item.AVS: "client",
}

#: The item a saved method's scenario (setup_future_use / use_scenario) makes of a follow-up.
FOLLOW_UPS: dict[str, Item] = {"recurring": Item.RC, "automatic": Item.RA, "one-click": Item.OC}

SCENARIOS = (Item.OS, Item.TS, Item.ZA)  # what an order is; one of them
OPERATIONS = (Item.FR, Item.PR, Item.RV)  # what can be done to a paid order


def _items(text: str) -> frozenset[Item]:
    return frozenset(Item(part.strip()) for part in text.split(",") if part.strip())


_REFUNDS = "OS, TS, RC, RA, OC, PMS, TD, AF, DD, SL, QC, MO, SF, SP, TX"
_RECURRING = "OS, TS, FR, PR, RV, DD, SL, QC, SF, SP, TX"
_SDWO = "OS, TS, FR, PR, RV, RC, RA, OC, PMS, DD, SL, TX, AVS"
_EVERY = ", ".join(item.value for item in Item)

#: Each row as the contract writes it: the item, then what it is compatible with.
ROWS: dict[Item, frozenset[Item]] = {
    Item.OS: _items("FR, PR, RV, RC, RA, OC, PMS, TD, AF, DD, SL, QC, MO, SF, SP, TX, AVS"),
    Item.TS: _items("FR, PR, RV, RC, RA, OC, PMS, TD, DD, SL, QC, MO, SF, SP, TX, AVS"),
    Item.ZA: _items("PMS, TD, DD, SL, MO, AVS"),
    Item.FR: _items(_REFUNDS),
    Item.PR: _items(_REFUNDS),
    Item.RV: _items(_REFUNDS),
    Item.RC: _items(_RECURRING),
    # "all of RC, plus TD and all payout types": the payout types are not items of this list
    Item.RA: _items(_RECURRING) | {Item.TD},
    Item.OC: _items("OS, TS, FR, PR, RV, TD, DD, SL, QC, SF, SP, TX"),
    Item.PMS: _items("OS, TS, ZA, FR, PR, RV, TD, DD, SL, QC, MO, SF, SP, TX, AVS"),
    Item.TD: _items("OS, TS, ZA, FR, PR, RV, RA, OC, PMS, DD, SL, QC, MO, TX, AVS"),
    Item.AF: _items("OS, DD, SL, TX, AVS"),
    Item.DD: _items(_EVERY) - {Item.DD},
    Item.SL: _items(_EVERY) - {Item.SL},
    Item.QC: _items("OS, TS, FR, PR, RV, RC, RA, OC, PMS, TD, DD, SL, TX, AVS"),
    Item.MO: _items("OS, TS, ZA, FR, PR, RV, TD, DD, SL, TX, AVS"),
    Item.SF: _items(_SDWO),
    Item.SP: _items(_SDWO),
    Item.TX: _items("OS, TS, FR, PR, RV, RC, RA, OC, PMS, TD, AF, DD, SL, QC, MO, SF, SP, AVS"),
    Item.AVS: _items("OS, TS, PMS, TD, AF, DD, SL, QC, MO, SF, SP, TX"),
}


def allows(a: Item, b: Item) -> bool:
    """Whether the pair runs together: either row lists the other (the decided rule)."""
    return a == b or b in ROWS[a] or a in ROWS[b]


def disagreements() -> list[tuple[Item, Item]]:
    """Every pair where one row lists the other and that one does not list it back, as
    (the row that lists, the row that does not)."""
    found = []
    for a, b in combinations(Item, 2):
        if (b in ROWS[a]) != (a in ROWS[b]):
            found.append((a, b) if b in ROWS[a] else (b, a))
    return found


def conflicts(
    items: Iterable[Item], *, saved_as: str | None = None
) -> list[tuple[Item, Item, str]]:
    """Every pair of the chosen items that cannot run together, with the reason.

    ``saved_as`` is the saving scenario (setup_future_use) when Payment Method Saving is
    chosen: Travel Data goes with it only when it is ``one-click`` or ``automatic``."""
    chosen = sorted(set(items), key=list(Item).index)
    found = []
    for a, b in combinations(chosen, 2):
        if not allows(a, b):
            found.append((a, b, f"{NAMES[a]} and {NAMES[b]} cannot be combined"))
    present = set(chosen)
    if {Item.PMS, Item.TD} <= present and saved_as not in ("one-click", "automatic"):
        found.append(
            (
                Item.PMS,
                Item.TD,
                "Travel Data goes with Payment Method Saving only when saved as one-click "
                "or automatic",
            )
        )
    if {Item.PMS, Item.TX, Item.ZA} <= present:
        found.append(
            (
                Item.PMS,
                Item.TX,
                "Taxes go with Payment Method Saving, but not in a Zero-Amount order",
            )
        )
    return found


def derive(
    order: Mapping[str, Any], *, avs: bool = False, saved_as: str | None = None
) -> set[Item]:
    """The scenario and capabilities an order request makes, from its fields (gateway.yaml):
    skip_capture → TS; payment_system AUTH or no products → ZA (else OS); setup_future_use or
    force_save_method → PMS; use_scenario (or ``saved_as``, the registered scenario of the
    saved card it uses) → RC / RA / OC; travel_data, recipient_client (AF), dynamic_descriptor,
    service_location, payment_system QCASH / SDWO_FUNDING, is_moto, sdwo_merchant_id, a product
    with a tax; ``avs`` (the merchant's AVS permission) → AVS.

    A Two-Step order without products keeps both TS and ZA, so ``conflicts`` names the pair."""
    products = order.get("products") or []
    payment_system = order.get("payment_system", "CARD")
    zero_amount = payment_system == "AUTH" or not products
    items = {Item.ZA if zero_amount else Item.OS}
    if order.get("skip_capture") is True:
        items.add(Item.TS)
        items.discard(Item.OS)
    follow_up = FOLLOW_UPS.get(order.get("use_scenario") or saved_as or "")
    present = {
        Item.PMS: bool(order.get("setup_future_use")) or order.get("force_save_method") is True,
        Item.RC: follow_up == Item.RC,
        Item.RA: follow_up == Item.RA,
        Item.OC: follow_up == Item.OC,
        Item.TD: order.get("travel_data") is not None,
        Item.AF: order.get("recipient_client") is not None,
        Item.DD: order.get("dynamic_descriptor") is not None,
        Item.SL: order.get("service_location") is not None,
        Item.QC: payment_system == "QCASH",
        Item.MO: order.get("is_moto") is True,
        Item.SF: payment_system == "SDWO_FUNDING",
        Item.SP: order.get("sdwo_merchant_id") is not None,
        Item.TX: any(isinstance(p, Mapping) and p.get("tax") is not None for p in products),
        Item.AVS: avs,
    }
    return items | {item for item, yes in present.items() if yes}
