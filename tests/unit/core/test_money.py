import subprocess
import sys
from decimal import Decimal

import iso4217
import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core import money
from app.core.money import (
    MoneyError,
    exponent,
    format_minor,
    is_currency,
    plain_decimal,
    to_minor,
)


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
        ("1,234.50", "EUR", 123_450),
        ("1.234,50", "EUR", 123_450),
        ("1\u00a0234,50", "EUR", 123_450),
        ("12,345,678.9", "USD", 1_234_567_890),
        ("1,234", "EUR", 123_400),  # three decimals cannot be meant: a group mark
        ("1.234", "EUR", 123_400),
        ("1.234", "KWD", 1_234),  # the dinar has three decimals
        ("1 000", "JPY", 1_000),
        ("21474836.47", "EUR", 2_147_483_647),
    ],
)
def test_to_minor_is_exact(text, currency, minor):
    assert to_minor(text, currency) == minor


@pytest.mark.parametrize(
    ("text", "currency", "reason"),
    [
        ("1.2345", "EUR", "at most 2 decimal places"),
        ("1.5", "JPY", "JPY amounts have no decimals"),
        ("abc", "EUR", "is not an amount"),
        ("NaN", "EUR", "is not an amount"),
        ("1e5", "EUR", "is not an amount"),
        ("1_000", "EUR", "is not an amount"),
        ("\uff11\uff10", "EUR", "is not an amount"),  # full-width digits
        ("-5", "EUR", "must be positive"),
        ("", "EUR", "Enter an amount"),
        ("1,23,4", "EUR", "is not an amount"),
        ("9" * 20, "EUR", "too large"),
    ],
)
def test_to_minor_refuses(text, currency, reason):
    with pytest.raises(MoneyError, match=reason):
        to_minor(text, currency)


def test_format_minor():
    assert format_minor(123456, "EUR") == "1,234.56 EUR"
    assert format_minor(-5, "EUR") == "-0.05 EUR"
    assert format_minor(1000000, "JPY") == "1,000,000 JPY"
    assert format_minor(1, "KWD", with_code=False) == "0.001"


@given(st.integers(min_value=-(2**63), max_value=2**63 - 1), st.sampled_from(["EUR", "JPY", "KWD"]))
def test_plain_decimals_are_the_exact_decimal_value(amount, currency):
    places = exponent(currency)
    assert plain_decimal(amount, currency) == f"{Decimal(amount).scaleb(-places):.{places}f}"


def test_plain_decimals_of_small_and_unknown_amounts():
    assert [plain_decimal(a, "EUR") for a in (-5, 0, 5, -123456)] == [
        "-0.05",
        "0.00",
        "0.05",
        "-1234.56",
    ]
    assert plain_decimal(-7, "JPY") == "-7" and plain_decimal(1, "KWD") == "0.001"
    assert plain_decimal(1234, "XYZ") == "1234"  # an unknown currency keeps minor units


ISO4217_EXPONENTS = {
    currency.code: currency.exponent
    for currency in iso4217.Currency
    if currency.exponent is not None
}


@pytest.fixture
def fresh_exponents():
    money._exponents.cache_clear()
    yield
    money._exponents.cache_clear()


def test_the_table_read_gives_iso4217_s_own_exponents():
    assert money._exponents_in_table() == ISO4217_EXPONENTS
    assert len(ISO4217_EXPONENTS) > 150


def test_a_table_laid_out_otherwise_gives_the_exponents_through_iso4217(
    monkeypatch, fresh_exponents
):
    def moved(package: str, name: str) -> bytes:
        raise FileNotFoundError(name)

    monkeypatch.setattr(money, "package_file", moved)
    assert money._exponents() == ISO4217_EXPONENTS
    monkeypatch.setattr(money, "package_file", lambda package, name: b"<ISO_4217><CcyTbl>")
    money._exponents.cache_clear()
    assert money._exponents() == ISO4217_EXPONENTS  # not XML: read through iso4217


def test_formatting_money_does_not_import_iso4217():
    """Its import builds an enum of every code: 35 ms of the GUI thread when a statement's
    first rows were painted."""
    formatted = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\n"
            "from app.core.money import format_minor\n"
            "print(format_minor(123456, 'EUR'), format_minor(5, 'JPY'), 'iso4217' in sys.modules,"
            " sep='|')",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert formatted.stdout.strip().split("|") == [format_minor(123456, "EUR"), "5 JPY", "False"]
