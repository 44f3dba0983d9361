"""Offline IBAN validation and bank data (schwifty's registry)."""

from __future__ import annotations

from dataclasses import dataclass

from schwifty import BIC, IBAN, registry
from schwifty.exceptions import SchwiftyException

from app.core.countries import country_name


class IbanError(ValueError):
    """An IBAN that fails offline validation; the message says what is wrong."""


@dataclass(frozen=True)
class IbanInfo:
    iban: str  # compact, upper case
    formatted: str  # groups of four
    country: str  # ISO 3166 alpha-2
    bank_code: str
    bic: str | None
    bank: str | None
    address: str | None
    sepa: bool


_MESSAGES = {
    "InvalidChecksumDigits": "the check digits do not match: a character is mistyped",
    "InvalidCountryCode": "it does not start with a known country code",
    "InvalidLength": "it has the wrong length for its country",
    "InvalidStructure": "its characters do not fit the format of its country",
    "InvalidBBANChecksum": "the national check digits do not match: a character is mistyped",
}


def normalize(text: str) -> str:
    return "".join(text.split()).upper()


def iban_length(country: str) -> int | None:
    """How many characters the IBANs of that country code have; None when it has none."""
    try:
        return int(registry.get_iban_spec(country.upper()).iban_length)
    except (KeyError, SchwiftyException):
        return None


def validate(text: str) -> IbanInfo:
    """Validate an IBAN offline; raises IbanError with a message naming what is wrong."""
    compact = normalize(text)
    if not compact:
        raise IbanError("Invalid IBAN: it is empty")
    if len(compact) > 34:
        raise IbanError(f"Invalid IBAN {compact[:34]}…: longer than 34 characters")
    if not compact.isascii() or not compact.isalnum():
        raise IbanError(f"Invalid IBAN {compact}: only letters and digits are allowed")
    try:
        spec = registry.get_iban_spec(compact[:2])
    except (KeyError, SchwiftyException):
        raise IbanError(f"Invalid IBAN {compact}: {_MESSAGES['InvalidCountryCode']}") from None
    if len(compact) != spec.iban_length:
        shorter = "short" if len(compact) < spec.iban_length else "long"
        raise IbanError(
            f"Invalid IBAN {compact}: too {shorter} — {spec.country} IBANs have "
            f"{spec.iban_length} characters, this has {len(compact)}"
        )
    try:
        iban = IBAN(compact)
    except SchwiftyException as exc:
        reason = _MESSAGES.get(type(exc).__name__, str(exc))
        raise IbanError(f"Invalid IBAN {compact}: {reason}") from None
    bank = iban.bank
    bic = str(iban.bic) if iban.bic is not None else None
    address = None
    if bank is not None:
        # The registry has no street address; its short name often carries the place.
        short = bank.get("short_name") if isinstance(bank, dict) else bank.short_name
        name = iban.bank_name
        address = (
            f"{short}, {country_name(iban.country_code)}"
            if short and short != name
            else country_name(iban.country_code)
        )
    return IbanInfo(
        iban=compact,
        formatted=iban.formatted,
        country=iban.country_code,
        bank_code=iban.bank_code,
        bic=bic,
        bank=iban.bank_name,
        address=address,
        sepa=bool(iban.in_sepa_zone),
    )


@dataclass(frozen=True)
class BicInfo:
    bic: str
    country: str
    bank: str | None  # None when the registry does not know the code


def bic_info(text: str) -> BicInfo:
    """A BIC checked offline (shape, country) with the bank's name when the registry knows it;
    raises IbanError saying what is wrong."""
    compact = normalize(text)
    if len(compact) not in (8, 11) or not compact.isascii() or not compact.isalnum():
        raise IbanError("A BIC has 8 or 11 letters and digits, like COBADEFFXXX")
    try:
        bic = BIC(compact)
    except SchwiftyException as exc:
        reason = "its country code is unknown" if "country" in str(exc).lower() else str(exc)
        raise IbanError(f"Invalid BIC {compact}: {reason}") from None
    names = list(bic.bank_names) if bic.exists else []
    return BicInfo(bic=compact, country=bic.country_code, bank=names[0] if names else None)
