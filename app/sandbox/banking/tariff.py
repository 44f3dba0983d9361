"""The sandbox's fee tariff (documented in the README), in minor units of the currency."""

from __future__ import annotations

from app.core.money import exponent

WORLD_CURRENCIES = ("EUR", "USD", "GBP", "CHF", "JPY")


def sepa_fee(amount: int) -> int:
    """SEPA: EUR 0.50 flat, plus 0.1% of the part above EUR 10,000.00."""
    return 50 + max(0, amount - 1_000_000) // 1000


def world_fee(amount: int, currency: str, charges_type: str, priority: str) -> int:
    """World: 0.2% of the amount, at least 10 and at most 100 major units of the currency;
    urgent adds 20 major units; ``our`` (sender pays all) adds 15; ``ben`` costs the sender 0."""
    if charges_type == "ben":
        return 0
    unit = int(10 ** exponent(currency))
    fee = min(max(amount * 2 // 1000, 10 * unit), 100 * unit)
    if priority == "urgent":
        fee += 20 * unit
    if charges_type == "our":
        fee += 15 * unit
    return fee


def internal_fee(amount: int, currency: str) -> int:
    """Internal transfers are free."""
    return 0
