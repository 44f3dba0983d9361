"""Every operation of the banking API, v1 and v2, as an async method."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import AsyncGenerator, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel, TypeAdapter, ValidationError

from app.api import models as m
from app.api.errors import InvalidInput, ResponseValidationError
from app.api.json_stream import JsonArraySplitter, JsonStreamError, join
from app.api.transport import Transport, transport_error
from app.core import filter as flt
from app.core.limits import (
    CLIENT_FILTER_FIELDS,
    DEFAULT_LIMIT,
    MAX_ATTACHMENT_BYTES,
    MAX_ID,
    MAX_LIMIT,
    MAX_OFFSET,
    TRANSFER_FILTER_FIELDS,
)
from app.core.money import is_currency

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)


def _segment(name: str, value: str, limit: int = MAX_ID) -> str:
    if not value:
        raise InvalidInput(name, "must not be empty")
    if len(value) > limit:
        raise InvalidInput(name, f"at most {limit} characters")
    return quote(value, safe="")


def _page(
    offset: int, limit: int, filter_text: str | flt.Node | None, fields: Mapping[str, flt.FieldType]
) -> dict[str, str | int]:
    if not 0 <= offset <= MAX_OFFSET:
        raise InvalidInput("offset", f"must be from 0 to {MAX_OFFSET}")
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput("limit", f"must be from 1 to {MAX_LIMIT}")
    params: dict[str, str | int] = {"offset": offset, "limit": limit}
    if filter_text is not None and filter_text != "":
        try:
            node = flt.parse(filter_text) if isinstance(filter_text, str) else filter_text
            flt.check_fields(node, fields)
        except flt.FilterError as exc:
            raise InvalidInput("filter", str(exc)) from None
        params["filter"] = flt.to_string(node)
    return params


def _currency(value: str | None) -> str | None:
    if value is not None and not is_currency(value):
        raise InvalidInput("currency", f"{value!r} is not an ISO 4217 currency code")
    return value


class BankingClient:
    """The banking API over one transport (one profile). Paths are v1 under /v1, v2 under /v2."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport

    async def aclose(self) -> None:
        await self.transport.aclose()

    # -- plumbing

    async def _call(
        self,
        adapter: TypeAdapter[T],
        method: str,
        path: str,
        *,
        body: Any = None,
        params: Mapping[str, str | int] | None = None,
        request_id: str | None = None,
        secured: bool = True,
        files: Mapping[str, tuple[str | None, bytes, str]] | None = None,
    ) -> T:
        response = await self.transport.request(
            method,
            path,
            json_body=body,
            params=params,
            request_id=request_id,
            secured=secured,
            files=files,
        )
        try:
            return adapter.validate_json(response.content)
        except ValidationError as exc:
            raise _contract_error(exc, method, path, response.request) from None

    # -- service (no credentials)

    async def healthcheck(self) -> m.ResultString:
        return await self._call(_one(m.ResultString), "GET", "/v1/healthcheck", secured=False)

    async def iban_check(self, iban: str) -> m.IbanBankData:
        compact = "".join(iban.split()).upper()
        return await self._call(
            _one(m.IbanBankData),
            "GET",
            f"/v1/service/iban/{_segment('iban', compact, 34)}",
            secured=False,
        )

    # -- clients v1

    async def create_client(
        self, client: m.ClientCreate, *, request_id: str | None = None
    ) -> m.Client:
        return await self._call(
            _one(m.Client), "POST", "/v1/clients", body=client.body(), request_id=request_id
        )

    async def list_clients(
        self, *, offset: int = 0, limit: int = DEFAULT_LIMIT, filter: str | flt.Node | None = None
    ) -> list[m.Client]:
        params = _page(offset, limit, filter, CLIENT_FILTER_FIELDS)
        return await self._call(_many(m.Client), "GET", "/v1/clients", params=params)

    async def update_client(
        self, client_id: str, update: m.ClientUpdate, *, request_id: str | None = None
    ) -> m.Client:
        path = f"/v1/clients/{_segment('clientId', client_id)}"
        return await self._call(
            _one(m.Client), "PUT", path, body=update.body(), request_id=request_id
        )

    # -- clients v2

    async def create_client_v2(
        self, client: m.ClientV2Create, *, request_id: str | None = None
    ) -> m.ClientV2:
        return await self._call(
            _one(m.ClientV2), "POST", "/v2/clients", body=client.body(), request_id=request_id
        )

    async def list_clients_v2(
        self, *, offset: int = 0, limit: int = DEFAULT_LIMIT, filter: str | flt.Node | None = None
    ) -> list[m.ClientV2]:
        params = _page(offset, limit, filter, CLIENT_FILTER_FIELDS)
        return await self._call(_many(m.ClientV2), "GET", "/v2/clients", params=params)

    async def update_client_v2(
        self, client_id: str, update: m.ClientV2Update, *, request_id: str | None = None
    ) -> m.ClientV2:
        path = f"/v2/clients/{_segment('clientId', client_id)}"
        return await self._call(
            _one(m.ClientV2), "PUT", path, body=update.body(), request_id=request_id
        )

    async def nace_codes(self) -> list[m.NaceCodeEntry]:
        return await self._call(_many(m.NaceCodeEntry), "GET", "/v2/nace-codes")

    # -- accounts

    def _account_path(self, client_id: str, account_id: str | None = None) -> str:
        path = f"/v1/clients/{_segment('clientId', client_id)}/accounts"
        if account_id is not None:
            path += f"/{_segment('accountId', account_id)}"
        return path

    async def create_account(self, client_id: str, *, request_id: str | None = None) -> m.Account:
        return await self._call(
            _one(m.Account), "POST", self._account_path(client_id), request_id=request_id
        )

    async def list_accounts(self, client_id: str) -> list[m.Account]:
        return await self._call(_many(m.Account), "GET", self._account_path(client_id))

    async def get_account(self, client_id: str, account_id: str) -> m.Account:
        return await self._call(_one(m.Account), "GET", self._account_path(client_id, account_id))

    async def get_balance(
        self,
        client_id: str,
        account_id: str,
        *,
        date: dt.date | None = None,
        currency: str | None = None,
    ) -> list[m.Balance]:
        params: dict[str, str | int] = {}
        if date is not None:
            params["date"] = date.isoformat()
        if _currency(currency):
            params["currency"] = str(currency)
        return await self._call(
            _many(m.Balance),
            "GET",
            self._account_path(client_id, account_id) + "/balance",
            params=params,
        )

    async def get_statement(
        self,
        client_id: str,
        account_id: str,
        date_from: dt.date,
        date_to: dt.date,
        *,
        currency: str | None = None,
    ) -> list[m.StatementRecord]:
        records: list[m.StatementRecord] = []
        async for batch in self.iter_statement(
            client_id, account_id, date_from, date_to, currency=currency
        ):
            records.extend(batch)
        return records

    async def iter_statement(
        self,
        client_id: str,
        account_id: str,
        date_from: dt.date,
        date_to: dt.date,
        *,
        currency: str | None = None,
    ) -> AsyncGenerator[list[m.StatementRecord], None]:
        """The statement in batches as it arrives, so a long one can be shown (and cancelled)
        while it downloads; closing the iterator closes the connection."""
        params = _statement_query(date_from, date_to, currency)
        path = self._account_path(client_id, account_id) + "/statement"
        response = await self.transport.request("GET", path, params=params, stream=True)
        splitter = JsonArraySplitter()
        carry: bytes | None = None
        try:
            async for chunk in response.aiter_bytes():
                for piece in splitter.feed(chunk):
                    carry, batch = _statement_piece(carry, piece, response.request, final=False)
                    if batch:
                        yield batch
            for piece in splitter.finish():
                carry, batch = _statement_piece(carry, piece, response.request, final=True)
                if batch:
                    yield batch
            if carry is not None:
                _statement_piece(None, carry, response.request, final=True)
        except httpx.TransportError as exc:
            raise transport_error(exc, self.transport.profile.base_url) from None
        except JsonStreamError as exc:
            raise ResponseValidationError(
                f"The answer to GET {path} is not a JSON array: {exc}", method="GET", path=path
            ) from None
        finally:
            await response.aclose()

    async def account_operation(
        self, client_id: str, account_id: str, operation: str
    ) -> m.ResultString:
        if operation not in ("enable", "disable", "close"):
            raise InvalidInput("operation", "must be one of enable, disable, close")
        return await self._call(
            _one(m.ResultString),
            "POST",
            self._account_path(client_id, account_id) + f"/{operation}",
        )

    # -- transfers

    def _transfers(self, account_id: str, kind: str) -> str:
        return f"/v1/accounts/{_segment('accountId', account_id)}/transfers/{kind}"

    async def _fee(self, account_id: str, kind: str, parameters: m.RequestModel) -> m.FeeQuote:
        path = self._transfers(account_id, kind) + "/fee"
        return await self._call(
            _one(m.FeeQuote), "POST", path, body={"parameters": parameters.body()}
        )

    async def _create_transfer(
        self,
        account_id: str,
        kind: str,
        answer: type[M],
        transfer: m.RequestModel,
        request_id: str | None,
    ) -> M:
        path = self._transfers(account_id, kind)
        return await self._call(
            _one(answer), "POST", path, body=transfer.body(), request_id=request_id
        )

    async def _list_transfers(
        self, account_id: str, kind: str, answer: type[M], query: TransferQuery
    ) -> list[M]:
        path = self._transfers(account_id, kind)
        return await self._call(_many(answer), "GET", path, params=query.params())

    async def sepa_fee(self, account_id: str, parameters: m.SepaFeeParameters) -> m.FeeQuote:
        return await self._fee(account_id, "sepa", parameters)

    async def create_sepa(
        self, account_id: str, transfer: m.SepaTransferCreate, *, request_id: str | None = None
    ) -> m.SepaTransfer:
        return await self._create_transfer(account_id, "sepa", m.SepaTransfer, transfer, request_id)

    async def list_sepa(
        self, account_id: str, query: TransferQuery | None = None
    ) -> list[m.SepaTransfer]:
        return await self._list_transfers(
            account_id, "sepa", m.SepaTransfer, query or TransferQuery()
        )

    async def world_currencies(self, account_id: str) -> m.CurrencyList:
        path = self._transfers(account_id, "world") + "/currencies"
        return await self._call(_one(m.CurrencyList), "GET", path)

    async def world_fee(self, account_id: str, parameters: m.WorldFeeParameters) -> m.FeeQuote:
        return await self._fee(account_id, "world", parameters)

    async def create_world(
        self, account_id: str, transfer: m.WorldTransferCreate, *, request_id: str | None = None
    ) -> m.WorldTransfer:
        return await self._create_transfer(
            account_id, "world", m.WorldTransfer, transfer, request_id
        )

    async def list_world(
        self, account_id: str, query: TransferQuery | None = None
    ) -> list[m.WorldTransfer]:
        return await self._list_transfers(
            account_id, "world", m.WorldTransfer, query or TransferQuery()
        )

    async def internal_fee(
        self, account_id: str, parameters: m.InternalFeeParameters
    ) -> m.FeeQuote:
        return await self._fee(account_id, "internal", parameters)

    async def create_internal(
        self, account_id: str, transfer: m.InternalTransferCreate, *, request_id: str | None = None
    ) -> m.InternalTransfer:
        return await self._create_transfer(
            account_id, "internal", m.InternalTransfer, transfer, request_id
        )

    async def list_internal(
        self, account_id: str, query: TransferQuery | None = None
    ) -> list[m.InternalTransfer]:
        return await self._list_transfers(
            account_id, "internal", m.InternalTransfer, query or TransferQuery()
        )

    # -- attachments

    async def create_attachment(
        self,
        metadata: m.AttachmentMetadata,
        content: bytes,
        *,
        filename: str = "document",
        request_id: str | None = None,
    ) -> m.AttachmentCreated:
        if not content:
            raise InvalidInput("file", "is empty")
        if len(content) > MAX_ATTACHMENT_BYTES:
            raise InvalidInput("file", "larger than the 10 MiB limit")
        files = {
            # no filename: metadata is a JSON field part, not a file
            "metadata": (None, json.dumps(metadata.body()).encode(), "application/json"),
            "file": (filename, content, "application/octet-stream"),
        }
        return await self._call(
            _one(m.AttachmentCreated),
            "POST",
            "/v1/attachments",
            files=files,
            request_id=request_id,
        )


def _statement_query(
    date_from: dt.date, date_to: dt.date, currency: str | None
) -> dict[str, str | int]:
    if date_from > date_to:
        raise InvalidInput("date_from", f"{date_from} is after date_to {date_to}")
    params: dict[str, str | int] = {
        "date_from": date_from.isoformat(),
        "date_to": date_to.isoformat(),
    }
    if _currency(currency):
        params["currency"] = str(currency)
    return params


_STATEMENT: TypeAdapter[list[m.StatementRecord]] = TypeAdapter(list[m.StatementRecord])


def _statement_piece(
    carry: bytes | None, piece: bytes, request: httpx.Request, *, final: bool
) -> tuple[bytes | None, list[m.StatementRecord]]:
    """Validate a piece (joined to a carried one); a piece cut inside a string is carried."""
    text = piece if carry is None else join(carry, piece)
    try:
        return None, _STATEMENT.validate_json(b"[" + text + b"]")
    except ValidationError as exc:
        if not final and exc.errors()[0]["type"] == "json_invalid":
            return text, []
        raise _contract_error(exc, request.method, request.url.path, request) from None


def _contract_error(
    exc: ValidationError, method: str, path: str, request: httpx.Request
) -> ResponseValidationError:
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    return ResponseValidationError(
        f"The answer to {method} {path} does not fit the contract: {where}: {first['msg']}",
        request_id=request.headers.get("x-request-id"),
        method=method,
        path=path,
    )


@dataclass(frozen=True)
class TransferQuery:
    """What a transfer list asks for: one transfer by id, a page, a filter on processing_date."""

    id: str | None = None
    offset: int = 0
    limit: int = DEFAULT_LIMIT
    filter: str | flt.Node | None = None

    def params(self) -> dict[str, str | int]:
        params = _page(self.offset, self.limit, self.filter, TRANSFER_FILTER_FIELDS)
        if self.id:
            if len(self.id) > MAX_ID:
                raise InvalidInput("id", f"at most {MAX_ID} characters")
            params["id"] = self.id
        return params


@cache
def _one(model: type[M]) -> TypeAdapter[M]:
    return TypeAdapter(model)


@cache
def _many(model: type[M]) -> TypeAdapter[list[M]]:
    return TypeAdapter(list[model])  # type: ignore[valid-type]
