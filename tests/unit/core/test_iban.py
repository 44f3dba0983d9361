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
        ("DE8937040044053201300", "too short — DE IBANs have 22 characters, this has 21"),
        ("DE89", "too short — DE IBANs have 22 characters, this has 4"),
        ("DE89-3704", "only letters and digits"),
        ("   ", "it is empty"),
    ],
)
def test_invalid_iban_says_what_is_wrong(text, reason):
    with pytest.raises(IbanError, match=reason):
        validate(text)


def test_a_bic_is_checked_offline_with_the_bank_when_known():
    from app.core.iban import bic_info

    known = bic_info("coba de ff xxx")
    assert (known.bic, known.country, known.bank) == ("COBADEFFXXX", "DE", "Commerzbank")
    assert bic_info("CHASUS33").bank is None  # a valid shape the registry does not know
    with pytest.raises(IbanError, match="8 or 11 letters and digits"):
        bic_info("COBADE")
    with pytest.raises(IbanError, match="its country code is unknown"):
        bic_info("COBAZZFF")
