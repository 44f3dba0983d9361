"""Gateway amounts (decimals, never floats) and card numbers."""

from decimal import Decimal

import pytest

from app.core.gateway.amounts import AmountError, format_amount, parse_amount, smallest
from app.core.gateway.cards import brand, luhn, mask_card_numbers, masked


@pytest.mark.parametrize(
    ("value", "currency", "expected"),
    [
        ("10.5", "EUR", Decimal("10.50")),
        (Decimal("10.5"), "EUR", Decimal("10.50")),
        (10, "EUR", Decimal("10.00")),
        ("1000", "JPY", Decimal("1000")),
        ("1.234", "BHD", Decimal("1.234")),
        ("0", "EUR", Decimal("0.00")),
    ],
)
def test_amounts_are_padded_to_the_exponent(value, currency, expected):
    amount = parse_amount(value, currency)
    assert amount == expected and str(amount) == str(expected)


@pytest.mark.parametrize(
    ("value", "currency", "message"),
    [
        ("10.505", "EUR", "EUR amounts have 2 decimal places"),
        ("1.5", "JPY", "JPY amounts have no decimals"),
        (10.5, "EUR", "must be a decimal number"),
        (True, "EUR", "must be a decimal number"),
        ("-1", "EUR", "is not an amount like 10.50"),
        (Decimal("-1"), "EUR", "must not be negative"),
        ("1e3", "EUR", "is not an amount like 10.50"),
        (" 1", "EUR", "is not an amount like 10.50"),
        ("١٢", "EUR", "is not an amount like 10.50"),
        (Decimal("NaN"), "EUR", "must be a finite number"),
        ("1000000000000", "EUR", "is too large"),
        ("1", "XXX", "XXX"),
    ],
)
def test_bad_amounts_are_refused(value, currency, message):
    with pytest.raises(AmountError) as error:
        parse_amount(value, currency)
    assert message in str(error.value)


def test_format_and_smallest():
    assert format_amount(Decimal("10.5"), "EUR") == "10.50"
    assert format_amount(Decimal("1000"), "JPY") == "1000"
    assert smallest("EUR") == Decimal("0.01") and smallest("JPY") == Decimal("1")


@pytest.mark.parametrize(
    ("number", "valid", "kind"),
    [
        ("4111111111111111", True, "visa"),
        ("5555555555554444", True, "mastercard"),
        ("2221000000000009", True, "mastercard"),
        ("378282246310005", True, "amex"),
        ("6011111111111117", True, "other"),
        ("4111111111111112", False, "visa"),
        ("41111111111", False, "visa"),
        ("4111 1111 1111 1111", False, "visa"),
    ],
)
def test_luhn_and_brand(number, valid, kind):
    assert luhn(number) is valid
    assert brand(number) == kind


def test_masking_shows_the_last_four_digits_only():
    assert masked("4111 1111 1111 1111") == "•••• 1111"
    assert mask_card_numbers("a 5555-5555-5555-4444 b") == "a ************4444 b"
