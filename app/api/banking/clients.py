"""Clients: v1 persons, v2 persons and companies, NACE codes. Models and operations."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, StringConstraints, ValidationInfo, field_validator, model_validator

from app.api.fields import Country, Email, Ip, Phone, text
from app.api.models import Model, RequestModel
from app.api.operations import Operations, many, one, page, segment
from app.core import filter as flt
from app.core import limits
from app.core.limits import CLIENT_FILTER_FIELDS, DEFAULT_LIMIT

RegistrationStatus = Literal["inprogress", "done", "active"]
CompanyDocumentKind = Literal["license", "share_register", "director_register", "trade_register"]
NACE_PATTERN = r"^[0-9]{2}\.[0-9]{1,2}$"
NaceCode = Annotated[str, StringConstraints(pattern=NACE_PATTERN, max_length=limits.NACE_CODE.high)]


class Address(RequestModel):
    street: Annotated[str, text(limits.STREET)]
    city: Annotated[str, text(limits.CITY)]
    postal_code: Annotated[str, text(limits.POSTAL_CODE)]
    country: Country


class TaxId(RequestModel):
    number: Annotated[str, text(limits.TAX_NUMBER)]
    country: Country


class Occupation(RequestModel):
    profession: Annotated[str, text(limits.PROFESSION)] | None = None
    specific_position: Annotated[str, text(limits.SPECIFIC_POSITION)]
    criminal: bool
    core_funds: bool
    crypto_currency: bool | None = None


class IdentityVerification(RequestModel):
    provider: Annotated[str, text(limits.VERIFICATION_PROVIDER)]
    reference: Annotated[str, text(limits.VERIFICATION_REFERENCE)]


class AdditionalData(RequestModel):
    identity_verification: IdentityVerification | None = None


class Person(Model):
    """A person, as sent on create (create_date is read-only and never sent)."""

    first_name: Annotated[str, text(limits.PERSON_NAME)]
    middle_name: Annotated[str, text(limits.MIDDLE_NAME)] | None = None
    last_name: Annotated[str, text(limits.PERSON_NAME)]
    birth_date: dt.date
    nationality: Country | None = None
    email: Email
    contact_mobile_number: Phone
    external_id: Annotated[str, text(limits.EXTERNAL_ID)] | None = None
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

    first_name: Annotated[str, text(limits.PERSON_NAME)] | None = None
    middle_name: Annotated[str, text(limits.MIDDLE_NAME)] | None = None
    last_name: Annotated[str, text(limits.PERSON_NAME)] | None = None
    birth_date: dt.date | None = None
    nationality: Country | None = None
    email: Email | None = None
    contact_mobile_number: Phone | None = None
    external_id: Annotated[str, text(limits.EXTERNAL_ID)] | None = None
    address: Address | None = None
    tax_id: TaxId | None = None
    ip: Ip | None = None
    occupation: Occupation | None = None
    additional_data: AdditionalData | None = None


class CompanyDocument(RequestModel):
    kind: CompanyDocumentKind
    attachment_id: Annotated[str, text(limits.ATTACHMENT_ID)]


class SiteInfo(Model):
    url: Annotated[str, text(limits.SITE_URL)] | None = None
    description: Annotated[str, text(limits.SITE_DESCRIPTION)] | None = None


Documents = Annotated[list[CompanyDocument], Field(max_length=limits.DOCUMENTS.high)]


class Company(Model):
    name: Annotated[str, text(limits.COMPANY_NAME)]
    registration_number: Annotated[str, text(limits.REGISTRATION_NUMBER)]
    incorporation_date: dt.date
    tax_id: TaxId
    vat_number: Annotated[str, text(limits.VAT_NUMBER)] | None = None
    nace_code: NaceCode
    registered_address: Address
    email: Email
    contact_mobile_number: Phone
    external_id: Annotated[str, text(limits.EXTERNAL_ID)] | None = None
    website: Annotated[str, text(limits.WEBSITE)] | None = None
    documents: Documents | None = None
    site_info: SiteInfo | None = None
    create_date: dt.date | None = Field(default=None, exclude=True)


class CompanyUpdate(_PartialUpdate):
    NULLABLE = COMPANY_NULLABLE

    name: Annotated[str, text(limits.COMPANY_NAME)] | None = None
    registration_number: Annotated[str, text(limits.REGISTRATION_NUMBER)] | None = None
    incorporation_date: dt.date | None = None
    tax_id: TaxId | None = None
    vat_number: Annotated[str, text(limits.VAT_NUMBER)] | None = None
    nace_code: NaceCode | None = None
    registered_address: Address | None = None
    email: Email | None = None
    contact_mobile_number: Phone | None = None
    external_id: Annotated[str, text(limits.EXTERNAL_ID)] | None = None
    website: Annotated[str, text(limits.WEBSITE)] | None = None
    documents: Documents | None = None


# ---------------------------------------------------------------- v1


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


# ---------------------------------------------------------------- v2


def _check_matching(client_type: object, person: object, company: object) -> None:
    if client_type == "PERSON" and (person is None or company is not None):
        raise ValueError("client_type PERSON needs the person object and no company")
    if client_type == "COMPANY" and (company is None or person is not None):
        raise ValueError("client_type COMPANY needs the company object and no person")


class ClientV2Create(RequestModel):
    external_reference: Annotated[str, text(limits.EXTERNAL_REFERENCE)]
    client_type: Literal["PERSON", "COMPANY"]
    person: Person | None = None
    company: Company | None = None

    @model_validator(mode="after")
    def _one_object(self) -> ClientV2Create:
        _check_matching(self.client_type, self.person, self.company)
        return self


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


class ClientOperations(Operations):
    # -- v1

    async def create_client(self, client: ClientCreate, *, request_id: str | None = None) -> Client:
        return await self._call(
            one(Client), "POST", "/v1/clients", body=client.body(), request_id=request_id
        )

    async def list_clients(
        self, *, offset: int = 0, limit: int = DEFAULT_LIMIT, filter: str | flt.Node | None = None
    ) -> list[Client]:
        params = page(offset, limit, filter, CLIENT_FILTER_FIELDS)
        return await self._call(many(Client), "GET", "/v1/clients", params=params)

    async def update_client(
        self, client_id: str, update: ClientUpdate, *, request_id: str | None = None
    ) -> Client:
        path = f"/v1/clients/{segment('clientId', client_id)}"
        return await self._call(one(Client), "PUT", path, body=update.body(), request_id=request_id)

    # -- v2

    async def create_client_v2(
        self, client: ClientV2Create, *, request_id: str | None = None
    ) -> ClientV2:
        return await self._call(
            one(ClientV2), "POST", "/v2/clients", body=client.body(), request_id=request_id
        )

    async def list_clients_v2(
        self, *, offset: int = 0, limit: int = DEFAULT_LIMIT, filter: str | flt.Node | None = None
    ) -> list[ClientV2]:
        params = page(offset, limit, filter, CLIENT_FILTER_FIELDS)
        return await self._call(many(ClientV2), "GET", "/v2/clients", params=params)

    async def each_client_v2(self, *, at_most: int) -> AsyncIterator[ClientV2]:
        """The clients in the list's order, read a full page at a time, at most ``at_most``
        (searches the API has no filter for: a reference, an account's IBAN, a name)."""
        step = limits.LIMIT.high
        for offset in range(0, at_most, step):
            clients = await self.list_clients_v2(offset=offset, limit=min(step, at_most - offset))
            for client in clients:
                yield client
            if len(clients) < min(step, at_most - offset):
                return

    async def update_client_v2(
        self, client_id: str, update: ClientV2Update, *, request_id: str | None = None
    ) -> ClientV2:
        path = f"/v2/clients/{segment('clientId', client_id)}"
        return await self._call(
            one(ClientV2), "PUT", path, body=update.body(), request_id=request_id
        )

    async def nace_codes(self) -> list[NaceCodeEntry]:
        return await self._call(many(NaceCodeEntry), "GET", "/v2/nace-codes")
