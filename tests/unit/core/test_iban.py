import pytest

from app.core.iban import IbanError, validate


def test_valid_iban_with_bank_data_from_the_offline_registry():
    info = validate("de89 3704 0044 0532 0130 00")
    assert info.iban == "DE89370400440532013000"
    assert info.formatted == "DE89 3704 0044 0532 0130 00"
    assert info.country == "DE"
    assert info.bic == "COBADEFFXXX"
    assert info.bank == "Commerzbank"
    assert info.sepa is True


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("DE89370400440532013001", "the check digits do not match"),
        ("XX89370400440532013000", "does not start with a known country code"),
        ("DE8937040044053201300", "wrong length"),
        ("DE89-3704", "only letters and digits"),
        ("   ", "it is empty"),
    ],
)
def test_invalid_iban_says_what_is_wrong(text, reason):
    with pytest.raises(IbanError, match=reason):
        validate(text)
