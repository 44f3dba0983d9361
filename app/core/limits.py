"""The one source of the banking contract's limits, for the client's models, its widgets and
the sandbox. ``tests/unit/core/test_limits.py`` checks every bound here against the OpenAPI
documents (which the sandbox validates with), so the three can never drift apart."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.core.filter import FieldType


@dataclass(frozen=True)
class Bound:
    """An inclusive range: the characters of a text, the items of a list or an integer."""

    low: int
    high: int

    def length_problem(self, text: str) -> str | None:
        """What is wrong with the length of a text, in the user's words; None when it fits."""
        if len(text) > self.high:
            return f"at most {self.high} characters ({len(text)} now)"
        if len(text) < self.low:
            if self.low == 1:
                return "required"
            if self.low == self.high:
                return f"exactly {self.low} characters"
            return f"at least {self.low} characters"
        return None


# ---------------------------------------------------------------- headers, paths, paging
REQUEST_ID = Bound(1, 64)
PARTNER_CODE = Bound(1, 255)
CLIENT_ID = Bound(1, 64)
ACCOUNT_ID = Bound(1, 64)
OFFSET = Bound(0, 2_147_483_647)
LIMIT = Bound(1, 100)
DEFAULT_LIMIT = 20  # not shown in the contract: decided, see the README
FILTER = Bound(0, 2000)  # not shown: decided

# ---------------------------------------------------------------- shared types
AMOUNT = Bound(1, 2_147_483_647)
FEE_AMOUNT = Bound(0, 2_147_483_647)
CURRENCY = Bound(3, 3)
COUNTRY = Bound(2, 2)
IP = Bound(7, 15)
EMAIL = Bound(0, 254)
PHONE = Bound(0, 16)

PHONE_PATTERN = r"^\+[1-9][0-9]{6,14}$"  # international, a leading + and 7 to 15 digits
EMAIL_PATTERN = r"^[^@\s]+@[^@\s]+\.[^@\s]+$"

# ---------------------------------------------------------------- persons and companies
STREET = Bound(1, 140)
CITY = Bound(1, 70)
POSTAL_CODE = Bound(1, 16)
TAX_NUMBER = Bound(1, 32)
PROFESSION = Bound(0, 100)
SPECIFIC_POSITION = Bound(1, 100)
VERIFICATION_PROVIDER = Bound(1, 64)
VERIFICATION_REFERENCE = Bound(1, 128)
PERSON_NAME = Bound(1, 100)
MIDDLE_NAME = Bound(0, 100)
EXTERNAL_ID = Bound(0, 64)
COMPANY_NAME = Bound(1, 140)
REGISTRATION_NUMBER = Bound(1, 64)
VAT_NUMBER = Bound(0, 32)
WEBSITE = Bound(0, 255)
DOCUMENTS = Bound(0, 20)  # items
ATTACHMENT_ID = Bound(1, 64)
SITE_URL = Bound(0, 255)
SITE_DESCRIPTION = Bound(0, 500)
NACE_CODE = Bound(0, 5)
EXTERNAL_REFERENCE = Bound(1, 64)
RESOURCE_ID = Bound(0, 64)  # ids and references in answers

# ---------------------------------------------------------------- transfers
TRANSFER_ID = Bound(1, 64)
DESCRIPTION = Bound(0, 140)
WORLD_DESCRIPTION = Bound(1, 140)  # required for world transfers
RECIPIENT_NAME = Bound(1, 70)
INTERNAL_RECIPIENT_NAME = Bound(0, 70)
RECIPIENT_IBAN = Bound(1, 32)
RECIPIENT_ACCOUNT = Bound(1, 32)
FEE_RECIPIENT_ACCOUNT = Bound(0, 32)
RECIPIENT_ADDRESS = Bound(1, 140)
BANK_NAME = Bound(0, 140)
BANK_ADDRESS = Bound(0, 140)

# ---------------------------------------------------------------- statements and attachments
STATEMENT_DESCRIPTION = Bound(0, 140)
COUNTERPARTY_NAME = Bound(0, 70)
COUNTERPARTY_ACCOUNT = Bound(0, 32)
DOCUMENT_NUMBER = Bound(1, 64)
ADDITIONAL = Bound(0, 1000)
ATTACHMENT_BYTES = Bound(1, 10 * 1024 * 1024)  # not shown in the contract: decided

CLIENT_FILTER_FIELDS: dict[str, FieldType] = {
    "email": str,
    "contact_mobile_number": str,
    "external_id": str,
    "create_date": dt.date,
}
TRANSFER_FILTER_FIELDS: dict[str, FieldType] = {"processing_date": dt.date}
#: The card gateway's order list (a sandbox extension; gateway.yaml)
ORDER_FILTER_FIELDS: dict[str, FieldType] = {
    "id": str,
    "status": str,
    "scenario": str,
    "currency": str,
    "client_email": str,
    "created_at": dt.date,
}

_PERSON = {
    "first_name": PERSON_NAME,
    "middle_name": MIDDLE_NAME,
    "last_name": PERSON_NAME,
    "external_id": EXTERNAL_ID,
}
_COMPANY = {
    "name": COMPANY_NAME,
    "registration_number": REGISTRATION_NUMBER,
    "vat_number": VAT_NUMBER,
    "external_id": EXTERNAL_ID,
    "website": WEBSITE,
    "documents": DOCUMENTS,
}

#: Every bound of every schema of the OpenAPI documents (banking v1 and v2): schema name, then
#: property (dotted inside inline objects; "" for a scalar schema itself).
SCHEMA_BOUNDS: dict[str, dict[str, Bound]] = {
    "amountType": {"": AMOUNT},
    "feeAmountType": {"": FEE_AMOUNT},
    "currencyType": {"": CURRENCY},
    "countryType": {"": COUNTRY},
    "ipType": {"": IP},
    "offsetType": {"": OFFSET},
    "limitType": {"": LIMIT},
    "phoneType": {"": PHONE},
    "emailType": {"": EMAIL},
    "naceCodeType": {"": NACE_CODE},
    "AddressModel": {"street": STREET, "city": CITY, "postal_code": POSTAL_CODE},
    "TaxIdModel": {"number": TAX_NUMBER},
    "OccupationModel": {"profession": PROFESSION, "specific_position": SPECIFIC_POSITION},
    "AdditionalDataModel": {
        "identity_verification.provider": VERIFICATION_PROVIDER,
        "identity_verification.reference": VERIFICATION_REFERENCE,
    },
    "PersonModel": _PERSON,
    "PersonUpdateModel": _PERSON,
    "ClientModel": {"id": RESOURCE_ID},
    "CompanyDocumentModel": {"attachment_id": ATTACHMENT_ID},
    "SiteInfoModel": {"url": SITE_URL, "description": SITE_DESCRIPTION},
    "CompanyV2Model": _COMPANY,
    "CompanyV2UpdateModel": _COMPANY,
    "ClientV2CreateModel": {"external_reference": EXTERNAL_REFERENCE},
    "ClientV2Model": {"id": RESOURCE_ID, "external_reference": RESOURCE_ID},
    "AccountStatementModel": {
        "description": STATEMENT_DESCRIPTION,
        "counterparty_name": COUNTERPARTY_NAME,
        "counterparty_account": COUNTERPARTY_ACCOUNT,
        "reference": RESOURCE_ID,
    },
    "BicBankDataModel": {"bank": BANK_NAME, "address": BANK_ADDRESS},
    "SepaModel": {
        "id": TRANSFER_ID,
        "description": DESCRIPTION,
        "recipient_name": RECIPIENT_NAME,
        "recipient_iban": RECIPIENT_IBAN,
        "recipient_address": RECIPIENT_ADDRESS,
    },
    "WorldModel": {
        "id": TRANSFER_ID,
        "description": WORLD_DESCRIPTION,
        "recipient_name": RECIPIENT_NAME,
        "recipient_account": RECIPIENT_ACCOUNT,
        "recipient_address": RECIPIENT_ADDRESS,
    },
    "InternalModel": {
        "id": TRANSFER_ID,
        "description": DESCRIPTION,
        "recipient_name": INTERNAL_RECIPIENT_NAME,
        "recipient_iban": RECIPIENT_IBAN,
    },
    "SepaFeeRequest": {"parameters.recipient_iban": RECIPIENT_IBAN},
    "WorldFeeParameters": {"recipient_account": FEE_RECIPIENT_ACCOUNT},
    "AttachmentMetadataModel": {"document_number": DOCUMENT_NUMBER, "additional": ADDITIONAL},
}
#: The bounds of the documents' shared parameters (headers, path and query).
PARAMETER_BOUNDS: dict[str, Bound] = {
    "x-partner-code": PARTNER_CODE,
    "x-request-id": REQUEST_ID,
    "clientId": CLIENT_ID,
    "accountId": ACCOUNT_ID,
    "filter": FILTER,
}
