"""Money as the screen shows it: major units with the currency's own exponent."""

from __future__ import annotations

from app.api.errors import InvalidInput
from app.core.money import MoneyError, format_minor, is_currency

ALL_CURRENCIES = "All currencies"
# the first choices of a currency box; any ISO 4217 code can be typed
CURRENCY_CHOICES = (ALL_CURRENCIES, "EUR", "USD", "GBP", "CHF", "JPY")


def money_text(amount: int, currency: str, *, with_code: bool = False) -> str:
    try:
        return format_minor(amount, currency, with_code=with_code)
    except MoneyError:
        return str(amount)  # an unknown currency still shows its minor units


def chosen_currency(text: str) -> str | None:
    """A currency box's choice: None for all currencies; InvalidInput for an unknown code."""
    code = text.strip().upper()
    if code in ("", ALL_CURRENCIES.upper()):
        return None
    if not is_currency(code):
        raise InvalidInput(
            "Currency", f"{code[:20]!r} is not an ISO 4217 currency code such as EUR"
        )
    return code
