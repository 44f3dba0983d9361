"""The open operations (no credentials): healthcheck and IBAN check."""

from __future__ import annotations

from app.api.models import Model
from app.api.operations import Operations, one, segment
from app.core.limits import Bound

IBAN = Bound(1, 34)  # the longest IBAN of any country


class ResultString(Model):
    result: str


class IbanBankData(Model):
    bic: str
    bank: str
    address: str
    country: str
    sepa: bool


class ServiceOperations(Operations):
    async def healthcheck(self) -> ResultString:
        return await self._call(one(ResultString), "GET", "/v1/healthcheck", secured=False)

    async def iban_check(self, iban: str) -> IbanBankData:
        compact = "".join(iban.split()).upper()
        return await self._call(
            one(IbanBankData),
            "GET",
            f"/v1/service/iban/{segment('iban', compact, IBAN)}",
            secured=False,
        )
