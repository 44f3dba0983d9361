"""Transfers from an account: SEPA, world and internal, their fees, lists and the currency
list of world transfers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, StringConstraints

from app.api.banking.service import IbanBankData
from app.api.errors import InvalidInput
from app.api.fields import Amount, Country, Currency, FeeAmount, Ip, text
from app.api.models import Model, RequestModel, build
from app.api.operations import Operations, many, one, page, segment
from app.core import filter as flt
from app.core import limits
from app.core.limits import DEFAULT_LIMIT, TRANSFER_FILTER_FIELDS

M = TypeVar("M", bound=BaseModel)

Priority = Literal["standard", "urgent"]
Charges = Literal["ben", "our", "sha"]
TransferStatus = Literal["inprogress", "done", "error"]
TransferKind = Literal["sepa", "world", "internal"]
BIC_PATTERN = r"^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$"


class Fee(Model):
    amount: FeeAmount
    currency: str


class BicBankData(RequestModel):
    bic: Annotated[str, StringConstraints(pattern=BIC_PATTERN)]
    bank: Annotated[str, text(limits.BANK_NAME)] | None = None
    address: Annotated[str, text(limits.BANK_ADDRESS)] | None = None
    country: Country


class SepaTransferCreate(RequestModel):
    id: Annotated[str, text(limits.TRANSFER_ID)]
    amount: Amount
    description: Annotated[str, text(limits.DESCRIPTION)] | None = None
    recipient_name: Annotated[str, text(limits.RECIPIENT_NAME)]
    recipient_iban: Annotated[str, text(limits.RECIPIENT_IBAN)]
    recipient_country: Country
    recipient_address: Annotated[str, text(limits.RECIPIENT_ADDRESS)]
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
    id: Annotated[str, text(limits.TRANSFER_ID)]
    amount: Amount
    currency: Currency
    priority: Priority = "standard"
    charges_type: Charges
    description: Annotated[str, text(limits.WORLD_DESCRIPTION)]
    recipient_name: Annotated[str, text(limits.RECIPIENT_NAME)]
    recipient_account: Annotated[str, text(limits.RECIPIENT_ACCOUNT)]
    recipient_country: Country
    recipient_address: Annotated[str, text(limits.RECIPIENT_ADDRESS)]
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
    id: Annotated[str, text(limits.TRANSFER_ID)]
    amount: Amount
    currency: Currency
    description: Annotated[str, text(limits.DESCRIPTION)] | None = None
    recipient_name: Annotated[str, text(limits.INTERNAL_RECIPIENT_NAME)] | None = None
    recipient_iban: Annotated[str, text(limits.RECIPIENT_IBAN)]
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
    recipient_iban: Annotated[str, text(limits.RECIPIENT_IBAN)]


class WorldFeeParameters(RequestModel):
    amount: Amount
    currency: Currency
    charges_type: Charges
    priority: Priority = "standard"
    recipient_account: Annotated[str, text(limits.FEE_RECIPIENT_ACCOUNT)] | None = None
    bank_country: Country | None = None


class InternalFeeParameters(RequestModel):
    amount: Amount
    currency: Currency


class FeeQuote(Model):
    fee: Fee
    parameters: dict[str, Any]


class CurrencyList(Model):
    currencies: list[str]


@dataclass(frozen=True)
class TransferQuery:
    """What a transfer list asks for: one transfer by id, a page, a filter on processing_date."""

    id: str | None = None
    offset: int = 0
    limit: int = DEFAULT_LIMIT
    filter: str | flt.Node | None = None

    def params(self) -> dict[str, str | int]:
        params = page(self.offset, self.limit, self.filter, TRANSFER_FILTER_FIELDS)
        if self.id:
            problem = limits.TRANSFER_ID.length_problem(self.id)
            if problem:
                raise InvalidInput("id", problem)
            params["id"] = self.id
        return params


Transfer = SepaTransfer | WorldTransfer | InternalTransfer
#: each kind's request, fee parameters and answer models
CREATE_MODELS: dict[TransferKind, type[RequestModel]] = {
    "sepa": SepaTransferCreate,
    "world": WorldTransferCreate,
    "internal": InternalTransferCreate,
}
FEE_MODELS: dict[TransferKind, type[RequestModel]] = {
    "sepa": SepaFeeParameters,
    "world": WorldFeeParameters,
    "internal": InternalFeeParameters,
}
ANSWERS: dict[TransferKind, type[Transfer]] = {
    "sepa": SepaTransfer,
    "world": WorldTransfer,
    "internal": InternalTransfer,
}


def transfers_path(account_id: str, kind: TransferKind) -> str:
    return f"/v1/accounts/{segment('accountId', account_id, limits.ACCOUNT_ID)}/transfers/{kind}"


class TransferOperations(Operations):
    async def _fee(self, account_id: str, kind: TransferKind, parameters: RequestModel) -> FeeQuote:
        path = transfers_path(account_id, kind) + "/fee"
        return await self._call(one(FeeQuote), "POST", path, body={"parameters": parameters.body()})

    async def _create(
        self,
        account_id: str,
        kind: TransferKind,
        answer: type[M],
        transfer: RequestModel,
        request_id: str | None,
    ) -> M:
        path = transfers_path(account_id, kind)
        return await self._call(
            one(answer), "POST", path, body=transfer.body(), request_id=request_id
        )

    async def _list(
        self, account_id: str, kind: TransferKind, answer: type[M], query: TransferQuery | None
    ) -> list[M]:
        path = transfers_path(account_id, kind)
        params = (query or TransferQuery()).params()
        return await self._call(many(answer), "GET", path, params=params)

    # -- by kind: a form or a list that serves the three kinds says which

    async def fee_of(
        self, kind: TransferKind, account_id: str, parameters: dict[str, Any]
    ) -> FeeQuote:
        """The fee of a transfer of ``kind``, its parameters checked by the kind's model."""
        return await self._fee(account_id, kind, build(FEE_MODELS[kind], parameters))

    async def create_transfer(
        self,
        kind: TransferKind,
        account_id: str,
        request: dict[str, Any],
        *,
        request_id: str | None = None,
    ) -> Transfer:
        """A transfer of ``kind``, its request checked by the kind's model."""
        transfer = build(CREATE_MODELS[kind], request)
        return await self._create(account_id, kind, ANSWERS[kind], transfer, request_id)

    async def list_transfers(
        self, kind: TransferKind, account_id: str, query: TransferQuery | None = None
    ) -> list[Transfer]:
        return list(await self._list(account_id, kind, ANSWERS[kind], query))

    async def sepa_fee(self, account_id: str, parameters: SepaFeeParameters) -> FeeQuote:
        return await self._fee(account_id, "sepa", parameters)

    async def create_sepa(
        self, account_id: str, transfer: SepaTransferCreate, *, request_id: str | None = None
    ) -> SepaTransfer:
        return await self._create(account_id, "sepa", SepaTransfer, transfer, request_id)

    async def list_sepa(
        self, account_id: str, query: TransferQuery | None = None
    ) -> list[SepaTransfer]:
        return await self._list(account_id, "sepa", SepaTransfer, query)

    async def world_currencies(self, account_id: str) -> CurrencyList:
        path = transfers_path(account_id, "world") + "/currencies"
        return await self._call(one(CurrencyList), "GET", path)

    async def world_fee(self, account_id: str, parameters: WorldFeeParameters) -> FeeQuote:
        return await self._fee(account_id, "world", parameters)

    async def create_world(
        self, account_id: str, transfer: WorldTransferCreate, *, request_id: str | None = None
    ) -> WorldTransfer:
        return await self._create(account_id, "world", WorldTransfer, transfer, request_id)

    async def list_world(
        self, account_id: str, query: TransferQuery | None = None
    ) -> list[WorldTransfer]:
        return await self._list(account_id, "world", WorldTransfer, query)

    async def internal_fee(self, account_id: str, parameters: InternalFeeParameters) -> FeeQuote:
        return await self._fee(account_id, "internal", parameters)

    async def create_internal(
        self, account_id: str, transfer: InternalTransferCreate, *, request_id: str | None = None
    ) -> InternalTransfer:
        return await self._create(account_id, "internal", InternalTransfer, transfer, request_id)

    async def list_internal(
        self, account_id: str, query: TransferQuery | None = None
    ) -> list[InternalTransfer]:
        return await self._list(account_id, "internal", InternalTransfer, query)
