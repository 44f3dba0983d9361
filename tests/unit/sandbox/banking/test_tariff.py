"""The sandbox's fee tariff, as the README documents it."""

import pytest

from app.sandbox.banking.tariff import internal_fee, sepa_fee, world_fee


@pytest.mark.parametrize(
    ("amount", "fee"),
    [(1, 50), (1_000_000, 50), (1_000_999, 50), (1_001_000, 51), (2_000_000, 1_050)],
)
def test_sepa_is_50_cents_plus_a_thousandth_above_10000_eur(amount, fee):
    assert sepa_fee(amount) == fee


@pytest.mark.parametrize(
    ("amount", "currency", "charges", "priority", "fee"),
    [
        (1_000, "EUR", "sha", "standard", 1_000),  # at least 10 EUR
        (1_000_000, "EUR", "sha", "standard", 2_000),  # 0.2%
        (10_000_000, "EUR", "sha", "standard", 10_000),  # at most 100 EUR
        (1_000_000, "EUR", "our", "urgent", 2_000 + 1_500 + 2_000),
        (1_000_000, "EUR", "ben", "urgent", 0),  # the recipient pays
        (1_000, "JPY", "our", "urgent", 10 + 20 + 15),  # exponent 0
    ],
)
def test_world_fee(amount, currency, charges, priority, fee):
    assert world_fee(amount, currency, charges, priority) == fee


def test_internal_is_free():
    assert internal_fee(123_456, "GBP") == 0
