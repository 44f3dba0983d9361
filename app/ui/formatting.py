"""Money as the screen shows it: major units with the currency's own exponent."""

from __future__ import annotations

from app.core.money import MoneyError, format_minor


def money_text(amount: int, currency: str, *, with_code: bool = False) -> str:
    try:
        return format_minor(amount, currency, with_code=with_code)
    except MoneyError:
        return str(amount)  # an unknown currency still shows its minor units
