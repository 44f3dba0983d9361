"""The sandbox's HTTP surface: banking v1 under /v1, v2 under /v2, controls under /_sandbox."""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import hashlib
import json
import logging
import secrets
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from starlette.applications import Starlette
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route

from app.core import filter as flt
from app.core.iban import IbanError
from app.core.iban import validate as validate_iban
from app.core.limits import (
    CLIENT_FILTER_FIELDS,
    DEFAULT_LIMIT,
    MAX_ATTACHMENT_BYTES,
    MAX_LIMIT,
    MAX_OFFSET,
    MAX_PARTNER_CODE,
    MAX_REQUEST_ID,
    TRANSFER_FILTER_FIELDS,
)
from app.core.money import is_currency
from app.sandbox.errors import Refusal
from app.sandbox.nace import NACE_CODES
from app.sandbox.schemas import validate
from app.sandbox.store import (
    WORLD_CURRENCIES,
    Bank,
    Client,
    Fault,
    StoredResponse,
    internal_fee,
    sepa_fee,
    world_fee,
)

log = logging.getLogger("partner_desk.sandbox")

DEMO_USER = "demo"
DEMO_PASSWORD = "demo"  # noqa: S105 - documented sandbox credentials

_TITLES = {401: "Unauthorized", 408: "Request timeout", 500: "Internal error"}
_MESSAGES = {
    401: "Authentication required: send the user and password with HTTP Basic",
    408: "The request was not executed in time",
    500: "The service failed to process the request",
}


def _json(payload: object, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    body = (
        payload if isinstance(payload, bytes) else json.dumps(payload, ensure_ascii=False).encode()
    )
    return Response(body, status_code=status, media_type="application/json", headers=headers)


def error_response(status: int, message: str, title: str) -> Response:
    body = {"failure_message": message, "detail": {"error_id": str(uuid.uuid4()), "title": title}}
    headers = {"WWW-Authenticate": 'Basic realm="core"'} if status == 401 else None
    return _json(body, status, headers)


@dataclass(frozen=True)
class Operation:
    secured: bool = True
    idempotent: bool = False  # create/update: x-request-id required, responses replayed


Handler = Callable[[Request, Bank, Any], Awaitable[object]]


def _authorized(request: Request) -> bool:
    header = request.headers.get("authorization", "")
    scheme, _, encoded = header.partition(" ")
    if scheme.lower() != "basic":
        return False
    try:
        user, _, password = base64.b64decode(encoded, validate=True).decode().partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return False
    return secrets.compare_digest(user, DEMO_USER) and secrets.compare_digest(
        password, DEMO_PASSWORD
    )


async def _read_body(request: Request) -> tuple[Any, str]:
    """The parsed body and its fingerprint (what makes two submissions the same action)."""
    content_type = request.headers.get("content-type", "")
    if content_type.startswith("multipart/form-data"):
        return await _read_multipart(request)
    raw = await request.body()
    if not raw:
        return None, "empty"
    try:
        parsed = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise Refusal(f"The body is not valid JSON: {exc}") from None
    canonical = json.dumps(parsed, sort_keys=True, separators=(",", ":"))
    return parsed, hashlib.sha256(canonical.encode()).hexdigest()


async def _read_multipart(request: Request) -> tuple[Any, str]:
    try:
        # the context closes the spooled upload files
        async with request.form(
            max_files=2, max_fields=2, max_part_size=MAX_ATTACHMENT_BYTES
        ) as form:
            metadata_part = form.get("metadata")
            file_part = form.get("file")
            if metadata_part is None:
                raise Refusal("metadata: is required")
            if not isinstance(file_part, UploadFile):
                raise Refusal("file: is required (a file part)")
            if isinstance(metadata_part, UploadFile):
                metadata_raw = await metadata_part.read()
            else:
                metadata_raw = metadata_part.encode()
            content = await file_part.read(MAX_ATTACHMENT_BYTES + 1)
    except Refusal:
        raise
    except Exception as exc:  # starlette raises several kinds for malformed multipart
        raise Refusal(f"The multipart body cannot be read: {exc}") from None
    try:
        metadata = json.loads(metadata_raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise Refusal(f"metadata: not valid JSON: {exc}") from None
    if len(content) > MAX_ATTACHMENT_BYTES:
        raise Refusal("file: larger than the 10 MiB limit")
    if not content:
        raise Refusal("file: is empty")
    digest = hashlib.sha256(
        json.dumps(metadata, sort_keys=True).encode() + b"\0" + content
    ).hexdigest()
    return {"metadata": metadata, "file": content}, digest


def operation(spec: Operation, handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    """Wrap a handler with the contract's common rules, faults, journal and idempotency."""

    async def endpoint(request: Request) -> Response:
        bank: Bank = request.app.state.bank
        started = time.perf_counter()
        request_id = request.headers.get("x-request-id")
        path = request.url.path
        response = await _respond(request, bank, spec, handler, request_id, path)
        if request_id is not None and len(request_id) <= MAX_REQUEST_ID:
            response.headers["x-request-id"] = request_id
        bank.log(
            {
                "time": dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds"),
                "method": request.method,
                "path": path,
                "query": request.url.query,
                "status": response.status_code,
                "request_id": request_id,
                "partner_code": request.headers.get("x-partner-code"),
                "ms": round((time.perf_counter() - started) * 1000, 1),
            }
        )
        return response

    return endpoint


async def _respond(
    request: Request,
    bank: Bank,
    spec: Operation,
    handler: Handler,
    request_id: str | None,
    path: str,
) -> Response:
    fault = bank.take_fault(path, mode="before")
    if fault is not None:
        return error_response(fault.status, _MESSAGES[fault.status], _TITLES[fault.status])
    try:
        if spec.secured:
            if not _authorized(request):
                return error_response(401, _MESSAGES[401], _TITLES[401])
            partner = request.headers.get("x-partner-code")
            if not partner:
                raise Refusal("x-partner-code: the header is required")
            if len(partner) > MAX_PARTNER_CODE:
                raise Refusal(f"x-partner-code: at most {MAX_PARTNER_CODE} characters")
        if request_id is not None and not 1 <= len(request_id) <= MAX_REQUEST_ID:
            raise Refusal(f"x-request-id: 1 to {MAX_REQUEST_ID} characters")
        if spec.idempotent and not request_id:
            raise Refusal("x-request-id: the header is required for create and update")
        body, fingerprint = await _read_body(request)
        # scope keys per credentials without keeping the credentials themselves
        caller = hashlib.sha256(request.headers.get("authorization", "").encode()).hexdigest()
        key = (caller, request_id or "")
        fingerprint = f"{request.method} {path} {fingerprint}"
        if spec.idempotent:
            stored = bank.idempotency.get(key)
            if stored is not None:
                if stored.fingerprint != fingerprint:
                    raise Refusal(
                        f"x-request-id: {request_id} was already used for a different request; "
                        "use a new id for a new action",
                        title="Duplicate request",
                    )
                return _json(stored.body, stored.status, {"x-idempotent-replay": "true"})
        bank.advance()
        payload = await handler(request, bank, body)
        encoded = (
            payload
            if isinstance(payload, bytes)
            else json.dumps(payload, ensure_ascii=False).encode()
        )
        if spec.idempotent:
            bank.idempotency[key] = StoredResponse(fingerprint, 200, encoded)
    except Refusal as refusal:
        return error_response(refusal.status, refusal.message, refusal.title)
    except Exception:
        log.exception("sandbox handler failed")
        return error_response(500, _MESSAGES[500], _TITLES[500])
    fault = bank.take_fault(path, mode="after")
    if fault is not None:
        # the action happened; a retry with the same x-request-id replays its response
        return error_response(fault.status, _MESSAGES[fault.status], _TITLES[fault.status])
    return _json(encoded)


# ---------------------------------------------------------------- query helpers


def _int_query(request: Request, name: str, default: int, low: int, high: int) -> int:
    text = request.query_params.get(name)
    if text is None:
        return default
    try:
        value = int(text)
    except ValueError:
        raise Refusal(f"{name}: {text!r} is not an integer from {low} to {high}") from None
    if not low <= value <= high:
        raise Refusal(f"{name}: must be from {low} to {high}, not {value}")
    return value


def _paging(request: Request) -> tuple[int, int]:
    offset = _int_query(request, "offset", 0, 0, MAX_OFFSET)
    limit = _int_query(request, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
    return offset, limit


def _filter(request: Request, allowed: dict[str, flt.FieldType]) -> flt.Node | None:
    text = request.query_params.get("filter")
    if text is None or not text.strip():
        return None
    try:
        node = flt.parse(text)
        flt.check_fields(node, allowed)
    except flt.FilterError as exc:
        raise Refusal(f"filter: {exc}") from None
    return node


def _date_query(request: Request, name: str, *, required: bool) -> dt.date | None:
    text = request.query_params.get(name)
    if text is None or text == "":
        if required:
            raise Refusal(f"{name}: is required (yyyy-mm-dd)")
        return None
    try:
        if len(text) != 10:
            raise ValueError
        return dt.date.fromisoformat(text)
    except ValueError:
        raise Refusal(f"{name}: {text!r} is not a date yyyy-mm-dd") from None


def _currency_query(request: Request) -> str | None:
    code = request.query_params.get("currency")
    if code is None or code == "":
        return None
    if not is_currency(code):
        raise Refusal(f"currency: {code!r} is not an ISO 4217 currency code")
    return code


def _path(request: Request, name: str, limit: int = 64) -> str:
    value = str(request.path_params[name])
    if len(value) > limit:
        raise Refusal(f"{name}: at most {limit} characters")
    return value


# ---------------------------------------------------------------- service


async def healthcheck(request: Request, bank: Bank, body: Any) -> object:
    return {"result": "ok"}


async def iban_check(request: Request, bank: Bank, body: Any) -> object:
    try:
        info = validate_iban(str(request.path_params["iban"]))
    except IbanError as exc:
        raise Refusal(str(exc), title="Invalid IBAN") from None
    if info.bic is None:
        raise Refusal(
            f"No bank data for {info.iban}: its bank code {info.bank_code} is not in the registry",
            title="Unknown bank",
        )
    return {
        "bic": info.bic,
        "bank": info.bank or "",
        "address": info.address or "",
        "country": info.country,
        "sepa": info.sepa,
    }


# ---------------------------------------------------------------- clients


def _client_id(request: Request) -> str:
    return _path(request, "clientId")


async def create_client_v1(request: Request, bank: Bank, body: Any) -> object:
    validate(1, "ClientModel", body)
    return bank.add_client("PERSON", body["client"], None).v1()


def _clients_page(request: Request, bank: Bank, *, persons_only: bool) -> list[Client]:
    offset, limit = _paging(request)
    node = _filter(request, CLIENT_FILTER_FIELDS)
    return bank.list_clients(persons_only=persons_only, node=node, offset=offset, limit=limit)


async def list_clients_v1(request: Request, bank: Bank, body: Any) -> object:
    # version 1 knows persons only
    return [client.v1() for client in _clients_page(request, bank, persons_only=True)]


async def update_client_v1(request: Request, bank: Bank, body: Any) -> object:
    client = bank.client(_client_id(request))
    if body == {}:
        return client.v1()  # an empty object changes nothing (the contract)
    validate(1, "ClientUpdateModel", body)
    bank.update_client(client, body["client_type"], body["client"])
    return client.v1()


def _v2_shape(body: Any) -> None:
    """Say plainly which object a client type needs (the schema's oneOf would not)."""
    if not isinstance(body, dict):
        return
    client_type = body.get("client_type")
    wanted = {"PERSON": "person", "COMPANY": "company"}.get(str(client_type))
    if wanted is None:
        return
    other = "company" if wanted == "person" else "person"
    if wanted not in body:
        raise Refusal(f"{wanted}: is required when client_type is {client_type}")
    if other in body:
        raise Refusal(f"{other}: must be absent when client_type is {client_type}")


async def create_client_v2(request: Request, bank: Bank, body: Any) -> object:
    _v2_shape(body)
    validate(2, "ClientV2CreateModel", body)
    details = body["person"] if body["client_type"] == "PERSON" else body["company"]
    return bank.add_client(body["client_type"], details, body["external_reference"]).v2()


async def list_clients_v2(request: Request, bank: Bank, body: Any) -> object:
    return [client.v2() for client in _clients_page(request, bank, persons_only=False)]


async def update_client_v2(request: Request, bank: Bank, body: Any) -> object:
    client = bank.client(_client_id(request))
    if body == {}:
        return client.v2()  # an empty object changes nothing (the contract)
    _v2_shape(body)
    validate(2, "ClientV2UpdateModel", body)
    changes = body["person"] if body["client_type"] == "PERSON" else body["company"]
    bank.update_client(client, body["client_type"], changes)
    return client.v2()


async def nace_codes(request: Request, bank: Bank, body: Any) -> object:
    return [{"code": code, "title": title} for code, title in NACE_CODES]


# ---------------------------------------------------------------- accounts


async def create_account(request: Request, bank: Bank, body: Any) -> object:
    client = bank.client(_client_id(request))
    if body not in (None, {}):
        raise Refusal("Opening an account takes no body")
    return bank.open_account(client).model()


async def list_accounts(request: Request, bank: Bank, body: Any) -> object:
    client = bank.client(_client_id(request))
    return [a.model() for a in bank.accounts.values() if a.client_id == client.id]


def _client_account(request: Request, bank: Bank) -> Any:
    client = bank.client(_client_id(request))
    return bank.account(_path(request, "accountId"), client.id)


async def get_account(request: Request, bank: Bank, body: Any) -> object:
    return _client_account(request, bank).model()


async def get_balance(request: Request, bank: Bank, body: Any) -> object:
    account = _client_account(request, bank)
    day = _date_query(request, "date", required=False)
    return bank.balances(account, day, _currency_query(request))


async def get_statement(request: Request, bank: Bank, body: Any) -> object:
    account = _client_account(request, bank)
    date_from = _date_query(request, "date_from", required=True)
    date_to = _date_query(request, "date_to", required=True)
    assert date_from is not None and date_to is not None
    if date_from > date_to:
        raise Refusal(f"date_from {date_from} is after date_to {date_to}")
    return account.ledger.statement_json(date_from, date_to, _currency_query(request))


async def account_operation(request: Request, bank: Bank, body: Any) -> object:
    account = _client_account(request, bank)
    operation_name = str(request.path_params["operation"])
    if operation_name not in ("enable", "disable", "close"):
        raise Refusal(f"operation: must be one of enable, disable, close, not {operation_name!r}")
    return {"result": bank.operate(account, operation_name)}


# ---------------------------------------------------------------- transfers


def _source(request: Request, bank: Bank) -> Any:
    return bank.account(_path(request, "accountId"))


async def fee_sepa(request: Request, bank: Bank, body: Any) -> object:
    _source(request, bank)
    validate(1, "SepaFeeRequest", body)
    parameters = body["parameters"]
    bank.sepa_bank(parameters["recipient_iban"])
    fee = sepa_fee(parameters["amount"])
    return {
        "fee": {"amount": fee, "currency": "EUR"},
        "parameters": {**parameters, "priority": "standard"},
    }


async def fee_world(request: Request, bank: Bank, body: Any) -> object:
    _source(request, bank)
    validate(1, "WorldFeeRequest", body)
    parameters = {"priority": "standard", **body["parameters"]}
    if parameters["currency"] not in WORLD_CURRENCIES:
        raise Refusal(
            f"parameters.currency: world transfers are made in {', '.join(WORLD_CURRENCIES)}"
        )
    fee = world_fee(
        parameters["amount"],
        parameters["currency"],
        parameters["charges_type"],
        parameters["priority"],
    )
    return {"fee": {"amount": fee, "currency": parameters["currency"]}, "parameters": parameters}


async def fee_internal(request: Request, bank: Bank, body: Any) -> object:
    _source(request, bank)
    validate(1, "InternalFeeRequest", body)
    parameters = body["parameters"]
    fee = internal_fee(parameters["amount"], parameters["currency"])
    return {"fee": {"amount": fee, "currency": parameters["currency"]}, "parameters": parameters}


async def create_sepa(request: Request, bank: Bank, body: Any) -> object:
    account = _source(request, bank)
    validate(1, "SepaModel", body)
    return bank.create_sepa(account, body).body


async def create_world(request: Request, bank: Bank, body: Any) -> object:
    account = _source(request, bank)
    validate(1, "WorldModel", body)
    return bank.create_world(account, body).body


async def create_internal(request: Request, bank: Bank, body: Any) -> object:
    account = _source(request, bank)
    validate(1, "InternalModel", body)
    return bank.create_internal(account, body).body


def _lister(kind: str) -> Handler:
    async def list_transfers(request: Request, bank: Bank, body: Any) -> object:
        account = _source(request, bank)
        offset, limit = _paging(request)
        node = _filter(request, TRANSFER_FILTER_FIELDS)
        transfer_id = request.query_params.get("id") or None
        if transfer_id is not None and len(transfer_id) > 64:
            raise Refusal("id: at most 64 characters")
        return bank.list_transfers(
            account, kind, transfer_id=transfer_id, node=node, offset=offset, limit=limit
        )

    return list_transfers


async def world_currencies(request: Request, bank: Bank, body: Any) -> object:
    _source(request, bank)
    return {"currencies": list(WORLD_CURRENCIES)}


async def create_attachment(request: Request, bank: Bank, body: Any) -> object:
    if not isinstance(body, dict) or "file" not in body:
        raise Refusal("The attachment must be sent as multipart/form-data with metadata and file")
    validate(1, "AttachmentMetadataModel", body["metadata"])
    return bank.add_attachment(body["metadata"], body["file"])


# ---------------------------------------------------------------- sandbox controls


async def set_faults(request: Request) -> Response:
    """POST /_sandbox/faults {"status": 408|500, "count": N, "mode": "before"|"after",
    "path_contains": optional}: the next N matching calls answer that status."""
    bank: Bank = request.app.state.bank
    try:
        spec = json.loads(await request.body() or b"{}")
        status = int(spec.get("status", 408))
        count = int(spec.get("count", 1))
        mode = str(spec.get("mode", "before"))
        path_contains = spec.get("path_contains")
    except (ValueError, TypeError, AttributeError):
        return error_response(
            400, "faults: send {status, count, mode, path_contains}", "Invalid request"
        )
    if status not in _TITLES or status == 401 or count < 0 or mode not in ("before", "after"):
        return error_response(
            400, "faults: status 408 or 500, count >= 0, mode before or after", "Invalid request"
        )
    bank.faults = [f for f in bank.faults if f.mode != mode or f.path_contains != path_contains]
    if count:
        bank.faults.append(Fault(status, count, mode, path_contains))
    return _json({"faults": [vars(f) for f in bank.faults]})


async def get_journal(request: Request) -> Response:
    bank: Bank = request.app.state.bank
    if request.method == "DELETE":
        bank.journal.clear()
    return _json(bank.journal)


async def reset(request: Request) -> Response:
    request.app.state.bank = request.app.state.bank_factory()
    return _json({"result": "reset"})


# ---------------------------------------------------------------- routing


def _route(path: str, handler: Handler, method: str, spec: Operation = Operation()) -> Route:
    return Route(path, operation(spec, handler), methods=[method])


CREATE = Operation(idempotent=True)
OPEN = Operation(secured=False)

V1_ROUTES = [
    _route("/clients", create_client_v1, "POST", CREATE),
    _route("/clients", list_clients_v1, "GET"),
    _route("/clients/{clientId}", update_client_v1, "PUT", CREATE),
    _route("/clients/{clientId}/accounts", create_account, "POST", CREATE),
    _route("/clients/{clientId}/accounts", list_accounts, "GET"),
    _route("/clients/{clientId}/accounts/{accountId}", get_account, "GET"),
    _route("/clients/{clientId}/accounts/{accountId}/balance", get_balance, "GET"),
    _route("/clients/{clientId}/accounts/{accountId}/statement", get_statement, "GET"),
    _route("/clients/{clientId}/accounts/{accountId}/{operation}", account_operation, "POST"),
    _route("/accounts/{accountId}/transfers/sepa/fee", fee_sepa, "POST"),
    _route("/accounts/{accountId}/transfers/sepa", create_sepa, "POST", CREATE),
    _route("/accounts/{accountId}/transfers/sepa", _lister("sepa"), "GET"),
    _route("/accounts/{accountId}/transfers/world/currencies", world_currencies, "GET"),
    _route("/accounts/{accountId}/transfers/world/fee", fee_world, "POST"),
    _route("/accounts/{accountId}/transfers/world", create_world, "POST", CREATE),
    _route("/accounts/{accountId}/transfers/world", _lister("world"), "GET"),
    _route("/accounts/{accountId}/transfers/internal/fee", fee_internal, "POST"),
    _route("/accounts/{accountId}/transfers/internal", create_internal, "POST", CREATE),
    _route("/accounts/{accountId}/transfers/internal", _lister("internal"), "GET"),
    _route("/attachments", create_attachment, "POST", CREATE),
    _route("/service/iban/{iban}", iban_check, "GET", OPEN),
    _route("/healthcheck", healthcheck, "GET", OPEN),
]

V2_ROUTES = [
    _route("/clients", create_client_v2, "POST", CREATE),
    _route("/clients", list_clients_v2, "GET"),
    _route("/clients/{clientId}", update_client_v2, "PUT", CREATE),
    _route("/nace-codes", nace_codes, "GET"),
]


async def _not_found(request: Request, exc: Exception) -> Response:
    return error_response(404, f"No operation at {request.method} {request.url.path}", "Not found")


async def _method_not_allowed(request: Request, exc: Exception) -> Response:
    return error_response(
        405, f"{request.method} is not allowed on {request.url.path}", "Method not allowed"
    )


def create_app(bank_factory: Callable[[], Bank] = Bank) -> Starlette:
    application = Starlette(
        routes=[
            Mount("/v1", routes=V1_ROUTES),
            Mount("/v2", routes=V2_ROUTES),
            Route("/_sandbox/faults", set_faults, methods=["POST"]),
            Route("/_sandbox/requests", get_journal, methods=["GET", "DELETE"]),
            Route("/_sandbox/reset", reset, methods=["POST"]),
        ],
        exception_handlers={404: _not_found, 405: _method_not_allowed},
    )
    application.state.bank_factory = bank_factory
    application.state.bank = bank_factory()
    return application
