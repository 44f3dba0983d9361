import pytest

from app.core.money import MoneyError, exponent, format_minor, is_currency, to_minor


@pytest.mark.parametrize(("code", "places"), [("EUR", 2), ("JPY", 0), ("KWD", 3), ("CLF", 4)])
def test_exponent_follows_iso_4217(code, places):
    assert exponent(code) == places


def test_unknown_currency_is_refused():
    assert not is_currency("EUX")
    assert not is_currency("eur")
    assert not is_currency("XAU")  # no minor unit: not money we move
    with pytest.raises(MoneyError, match="unknown currency 'EUX'"):
        exponent("EUX")


@pytest.mark.parametrize(
    ("text", "currency", "minor"),
    [
        ("1234.56", "EUR", 123456),
        ("1 234,5", "EUR", 123450),
        ("5", "JPY", 5),
        ("0.001", "KWD", 1),
        ("0.1", "EUR", 10),
    ],
)
def test_to_minor_is_exact(text, currency, minor):
    assert to_minor(text, currency) == minor


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("1.234", "at most 2 decimal places"),
        ("abc", "is not an amount"),
        ("NaN", "is not an amount"),
    ],
)
def test_to_minor_refuses(text, reason):
    with pytest.raises(MoneyError, match=reason):
        to_minor(text, "EUR")


def test_format_minor():
    assert format_minor(123456, "EUR") == "1,234.56 EUR"
    assert format_minor(-5, "EUR") == "-0.05 EUR"
    assert format_minor(1000000, "JPY") == "1,000,000 JPY"
    assert format_minor(1, "KWD", with_code=False) == "0.001"
