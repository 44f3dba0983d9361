"""Pydantic models of every request and response of the banking API, v1 and v2.

The contract's limits live here so that bad input is refused before anything is sent
(``build`` turns pydantic's error into an ``InvalidInput`` naming the field). Response models
ignore unknown keys, so a server that adds a field does not break the desk.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
from typing import Annotated, Any, ClassVar, Literal, NotRequired, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from typing_extensions import TypedDict  # pydantic needs this one on Python 3.11

from app.api.errors import InvalidInput
from app.core.countries import is_country
from app.core.money import is_currency

MAX_AMOUNT = 2_147_483_647


def _country(value: str) -> str:
    if not is_country(value):
        raise ValueError(f"{value!r} is not an ISO 3166 alpha-2 country code (such as LT)")
    return value


def _currency(value: str) -> str:
    if not is_currency(value):
        raise ValueError(f"{value!r} is not an ISO 4217 currency code (such as EUR)")
    return value


def _ipv4(value: str) -> str:
    try:
        ipaddress.IPv4Address(value)
    except ValueError:
        raise ValueError(f"{value!r} is not an IPv4 address") from None
    return value


def _text(low: int, high: int) -> Any:
    return StringConstraints(min_length=low, max_length=high)


Amount = Annotated[int, Field(strict=True, ge=1, le=MAX_AMOUNT)]
FeeAmount = Annotated[int, Field(ge=0, le=MAX_AMOUNT)]
Currency = Annotated[str, _text(3, 3), AfterValidator(_currency)]
Country = Annotated[str, _text(2, 2), AfterValidator(_country)]
Ip = Annotated[str, _text(7, 15), AfterValidator(_ipv4)]
Phone = Annotated[
    str,
    StringConstraints(pattern=r"^\+[1-9][0-9]{6,14}$", max_length=16),
]
Email = Annotated[str, StringConstraints(pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$", max_length=254)]
Id64 = Annotated[str, _text(1, 64)]
Priority = Literal["standard", "urgent"]
Charges = Literal["ben", "our", "sha"]
TransferStatus = Literal["inprogress", "done", "error"]
RegistrationStatus = Literal["inprogress", "done", "active"]
AccountOperation = Literal["enable", "disable", "close"]
DocumentType = Literal[
    "passport",
    "id_card",
    "driving_licence",
    "residence_permit",
    "proof_of_address",
    "license",
    "share_register",
    "director_register",
    "trade_register",
]
CompanyDocumentKind = Literal["license", "share_register", "director_register", "trade_register"]
NaceCode = Annotated[str, StringConstraints(pattern=r"^[0-9]{2}\.[0-9]{1,2}$")]


class Model(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    def body(self) -> dict[str, Any]:
        """The JSON body of a create request: unset optional properties are left out."""
        return self.model_dump(mode="json", exclude_none=True)


class RequestModel(Model):
    """Sent by the desk: unknown properties are a programming error, refused at once."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


M = TypeVar("M", bound=BaseModel)


def build(model: type[M], data: Any) -> M:
    """Validate input into a model; the first problem becomes InvalidInput naming the field."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"])
        message = str(first["msg"]).removeprefix("Value error, ")
        raise InvalidInput(field, message) from None


# ---------------------------------------------------------------- errors


class ErrorDetail(Model):
    error_id: str
    title: str


class ErrorBody(Model):
    failure_message: str
    detail: ErrorDetail


# ---------------------------------------------------------------- persons and companies


class Address(RequestModel):
    street: Annotated[str, _text(1, 140)]
    city: Annotated[str, _text(1, 70)]
    postal_code: Annotated[str, _text(1, 16)]
    country: Country


class TaxId(RequestModel):
    number: Annotated[str, _text(1, 32)]
    country: Country


class Occupation(RequestModel):
    profession: Annotated[str, _text(0, 100)] | None = None
    specific_position: Annotated[str, _text(1, 100)]
    criminal: bool
    core_funds: bool
    crypto_currency: bool | None = None


class IdentityVerification(RequestModel):
    provider: Annotated[str, _text(1, 64)]
    reference: Annotated[str, _text(1, 128)]


class AdditionalData(RequestModel):
    identity_verification: IdentityVerification | None = None


class Person(Model):
    """A person, as sent on create (create_date is read-only and never sent)."""

    first_name: Annotated[str, _text(1, 100)]
    middle_name: Annotated[str, _text(0, 100)] | None = None
    last_name: Annotated[str, _text(1, 100)]
    birth_date: dt.date
    nationality: Country | None = None
    email: Email
    contact_mobile_number: Phone
    external_id: Annotated[str, _text(0, 64)] | None = None
    address: Address
    tax_id: TaxId
    ip: Ip
    occupation: Occupation | None = None
    additional_data: AdditionalData | None = None
    create_date: dt.date | None = Field(default=None, exclude=True)


# Properties that can be cleared with an explicit null in a partial update.
PERSON_NULLABLE = frozenset(
    {"middle_name", "nationality", "external_id", "occupation", "additional_data"}
)
COMPANY_NULLABLE = frozenset({"vat_number", "external_id", "website", "documents"})


class _PartialUpdate(RequestModel):
    """Partial update: only what was set is sent (exclude_unset); null clears nullable fields."""

    NULLABLE: ClassVar[frozenset[str]] = frozenset()

    @field_validator("*", mode="before")
    @classmethod
    def _refuse_clearing_required(cls, value: Any, info: ValidationInfo) -> Any:
        if value is None and info.field_name not in cls.NULLABLE:
            raise ValueError("is required and cannot be cleared")
        return value

    def body(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_unset=True)


class PersonUpdate(_PartialUpdate):
    NULLABLE = PERSON_NULLABLE

    first_name: Annotated[str, _text(1, 100)] | None = None
    middle_name: Annotated[str, _text(0, 100)] | None = None
    last_name: Annotated[str, _text(1, 100)] | None = None
    birth_date: dt.date | None = None
    nationality: Country | None = None
    email: Email | None = None
    contact_mobile_number: Phone | None = None
    external_id: Annotated[str, _text(0, 64)] | None = None
    address: Address | None = None
    tax_id: TaxId | None = None
    ip: Ip | None = None
    occupation: Occupation | None = None
    additional_data: AdditionalData | None = None


class CompanyDocument(RequestModel):
    kind: CompanyDocumentKind
    attachment_id: Id64


class SiteInfo(Model):
    url: Annotated[str, _text(0, 255)] | None = None
    description: Annotated[str, _text(0, 500)] | None = None


class Company(Model):
    name: Annotated[str, _text(1, 140)]
    registration_number: Annotated[str, _text(1, 64)]
    incorporation_date: dt.date
    tax_id: TaxId
    vat_number: Annotated[str, _text(0, 32)] | None = None
    nace_code: NaceCode
    registered_address: Address
    email: Email
    contact_mobile_number: Phone
    external_id: Annotated[str, _text(0, 64)] | None = None
    website: Annotated[str, _text(0, 255)] | None = None
    documents: Annotated[list[CompanyDocument], Field(max_length=20)] | None = None
    site_info: SiteInfo | None = None
    create_date: dt.date | None = Field(default=None, exclude=True)


class CompanyUpdate(_PartialUpdate):
    NULLABLE = COMPANY_NULLABLE

    name: Annotated[str, _text(1, 140)] | None = None
    registration_number: Annotated[str, _text(1, 64)] | None = None
    incorporation_date: dt.date | None = None
    tax_id: TaxId | None = None
    vat_number: Annotated[str, _text(0, 32)] | None = None
    nace_code: NaceCode | None = None
    registered_address: Address | None = None
    email: Email | None = None
    contact_mobile_number: Phone | None = None
    external_id: Annotated[str, _text(0, 64)] | None = None
    website: Annotated[str, _text(0, 255)] | None = None
    documents: Annotated[list[CompanyDocument], Field(max_length=20)] | None = None


# ---------------------------------------------------------------- clients v1


class ClientCreate(RequestModel):
    client_type: Literal["PERSON"] = "PERSON"
    client: Person


class ClientUpdate(RequestModel):
    client_type: Literal["PERSON"] = "PERSON"
    client: PersonUpdate

    def body(self) -> dict[str, Any]:
        return {"client_type": self.client_type, "client": self.client.body()}


class Client(Model):
    id: str
    client_type: Literal["PERSON"]
    client: Person


# ---------------------------------------------------------------- clients v2


class ClientV2Create(RequestModel):
    external_reference: Id64
    client_type: Literal["PERSON", "COMPANY"]
    person: Person | None = None
    company: Company | None = None

    @model_validator(mode="after")
    def _one_object(self) -> ClientV2Create:
        _check_matching(self.client_type, self.person, self.company)
        return self

    def body(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


def _check_matching(client_type: object, person: object, company: object) -> None:
    if client_type == "PERSON" and (person is None or company is not None):
        raise ValueError("client_type PERSON needs the person object and no company")
    if client_type == "COMPANY" and (company is None or person is not None):
        raise ValueError("client_type COMPANY needs the company object and no person")


class ClientV2Update(RequestModel):
    client_type: Literal["PERSON", "COMPANY"]
    person: PersonUpdate | None = None
    company: CompanyUpdate | None = None

    @model_validator(mode="after")
    def _one_object(self) -> ClientV2Update:
        _check_matching(self.client_type, self.person, self.company)
        return self

    def body(self) -> dict[str, Any]:
        changes = self.person if self.client_type == "PERSON" else self.company
        assert changes is not None
        key = "person" if self.client_type == "PERSON" else "company"
        return {"client_type": self.client_type, key: changes.body()}


class ClientV2(Model):
    id: str
    status: RegistrationStatus
    kind: Literal["private", "corporate"]
    external_reference: str | None
    client_type: Literal["PERSON", "COMPANY"]
    person: Person | None = None
    company: Company | None = None


class NaceCodeEntry(Model):
    code: str
    title: str


# ---------------------------------------------------------------- accounts


class Account(Model):
    id: str
    type: str
    iban: str
    bic: str
    status: str
    client_id: str | None = None
    opened_at: dt.date | None = None


class Balance(Model):
    currency: str
    balance: int
    available: int
    date: dt.date


class StatementRecord(TypedDict):
    """A statement record. A typed dict, not a model: a statement holds 100,000 of them, and
    pydantic validates dicts in half the time it takes to build models."""

    id: str
    booking_date: dt.date
    type: str
    direction: Literal["credit", "debit"]
    amount: int
    currency: str
    description: str
    counterparty_name: NotRequired[str | None]
    counterparty_account: NotRequired[str | None]
    reference: NotRequired[str | None]
    balance_after: int


class ResultString(Model):
    result: str


# ---------------------------------------------------------------- transfers


class Fee(Model):
    amount: FeeAmount
    currency: str


class IbanBankData(Model):
    bic: str
    bank: str
    address: str
    country: str
    sepa: bool


class BicBankData(RequestModel):
    bic: Annotated[str, StringConstraints(pattern=r"^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$")]
    bank: Annotated[str, _text(0, 140)] | None = None
    address: Annotated[str, _text(0, 140)] | None = None
    country: Country


class SepaTransferCreate(RequestModel):
    id: Id64
    amount: Amount
    description: Annotated[str, _text(0, 140)] | None = None
    recipient_name: Annotated[str, _text(1, 70)]
    recipient_iban: Annotated[str, _text(1, 32)]
    recipient_country: Country
    recipient_address: Annotated[str, _text(1, 140)]
    ip: Ip | None = None


class SepaTransfer(Model):
    id: str
    amount: int
    description: str | None = None
    recipient_name: str
    recipient_iban: str
    recipient_country: str
    recipient_address: str
    ip: str | None = None
    fee: Fee | None = None
    beneficiary_bank: IbanBankData | None = None
    status: TransferStatus
    processing_date: str | None = None


class WorldTransferCreate(RequestModel):
    id: Id64
    amount: Amount
    currency: Currency
    priority: Priority = "standard"
    charges_type: Charges
    description: Annotated[str, _text(1, 140)]
    recipient_name: Annotated[str, _text(1, 70)]
    recipient_account: Annotated[str, _text(1, 32)]
    recipient_country: Country
    recipient_address: Annotated[str, _text(1, 140)]
    beneficiary_bank: BicBankData
    ip: Ip | None = None


class WorldTransfer(Model):
    id: str
    amount: int
    currency: str
    priority: Priority = "standard"
    charges_type: Charges
    description: str
    recipient_name: str
    recipient_account: str
    recipient_country: str
    recipient_address: str
    beneficiary_bank: dict[str, Any]
    ip: str | None = None
    fee: Fee | None = None
    status: TransferStatus
    processing_date: str | None = None


class InternalTransferCreate(RequestModel):
    id: Id64
    amount: Amount
    currency: Currency
    description: Annotated[str, _text(0, 140)] | None = None
    recipient_name: Annotated[str, _text(0, 70)] | None = None
    recipient_iban: Annotated[str, _text(1, 32)]
    ip: Ip | None = None


class InternalTransfer(Model):
    id: str
    amount: int
    currency: str
    description: str | None = None
    recipient_name: str | None = None
    recipient_iban: str
    ip: str | None = None
    fee: Fee | None = None
    status: TransferStatus
    processing_date: str | None = None


class SepaFeeParameters(RequestModel):
    amount: Amount
    recipient_iban: Annotated[str, _text(1, 32)]


class SepaFeeQuote(Model):
    fee: Fee
    parameters: dict[str, Any]


class WorldFeeParameters(RequestModel):
    amount: Amount
    currency: Currency
    charges_type: Charges
    priority: Priority = "standard"
    recipient_account: Annotated[str, _text(0, 32)] | None = None
    bank_country: Country | None = None


class InternalFeeParameters(RequestModel):
    amount: Amount
    currency: Currency


class FeeQuote(Model):
    fee: Fee
    parameters: dict[str, Any]


class CurrencyList(Model):
    currencies: list[str]


# ---------------------------------------------------------------- attachments


class AttachmentMetadata(RequestModel):
    document_type: DocumentType
    document_number: Annotated[str, _text(1, 64)] | None = None
    country: Country | None = None
    issued_at: dt.date | None = None
    expired_at: dt.date | None = None
    additional: Annotated[str, _text(0, 1000)] | None = None


class AttachmentCreated(Model):
    id: str
    expired_at: str
    metadata: dict[str, Any]
