"""Accounts of a client: open, list, read, balance, enable/disable/close."""

from __future__ import annotations

import datetime as dt
from typing import Literal, get_args

from app.api.banking.service import ResultString
from app.api.banking.statement_records import Int64
from app.api.errors import InvalidInput
from app.api.models import Model
from app.api.operations import Operations, many, one, segment
from app.core import limits
from app.core.money import is_currency

AccountOperation = Literal["enable", "disable", "close"]
ACCOUNT_OPERATIONS: tuple[AccountOperation, ...] = get_args(AccountOperation)


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
    balance: Int64  # the contract's int64, as a statement's balance
    available: Int64
    date: dt.date


def checked_currency(value: str | None) -> str | None:
    if value is not None and not is_currency(value):
        raise InvalidInput("currency", f"{value!r} is not an ISO 4217 currency code")
    return value


def account_path(client_id: str, account_id: str | None = None) -> str:
    path = f"/v1/clients/{segment('clientId', client_id)}/accounts"
    if account_id is not None:
        path += f"/{segment('accountId', account_id, limits.ACCOUNT_ID)}"
    return path


class AccountOperations(Operations):
    async def create_account(self, client_id: str, *, request_id: str | None = None) -> Account:
        return await self._call(
            one(Account), "POST", account_path(client_id), request_id=request_id
        )

    async def list_accounts(self, client_id: str) -> list[Account]:
        return await self._call(many(Account), "GET", account_path(client_id))

    async def get_account(self, client_id: str, account_id: str) -> Account:
        return await self._call(one(Account), "GET", account_path(client_id, account_id))

    async def get_balance(
        self,
        client_id: str,
        account_id: str,
        *,
        date: dt.date | None = None,
        currency: str | None = None,
    ) -> list[Balance]:
        params: dict[str, str | int] = {}
        if date is not None:
            params["date"] = date.isoformat()
        if checked_currency(currency):
            params["currency"] = str(currency)
        path = account_path(client_id, account_id) + "/balance"
        return await self._call(many(Balance), "GET", path, params=params)

    async def account_operation(
        self, client_id: str, account_id: str, operation: AccountOperation
    ) -> ResultString:
        if operation not in ACCOUNT_OPERATIONS:
            raise InvalidInput("operation", f"must be one of {', '.join(ACCOUNT_OPERATIONS)}")
        path = account_path(client_id, account_id) + f"/{operation}"
        return await self._call(one(ResultString), "POST", path)
