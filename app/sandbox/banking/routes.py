"""The banking API's routes: v1 under /v1, v2 under /v2. Each handler checks the request in
full and returns its answer with the change to commit (see app.sandbox.http)."""

from __future__ import annotations

from typing import Any

from starlette.routing import Route

from app.core import limits
from app.core.iban import IbanError
from app.core.iban import validate as validate_iban
from app.core.limits import CLIENT_FILTER_FIELDS, TRANSFER_FILTER_FIELDS
from app.core.resources import OPENAPI_V1, OPENAPI_V2
from app.sandbox.banking.nace import NACE_CODES
from app.sandbox.banking.records import Account, Client
from app.sandbox.banking.state import Bank
from app.sandbox.banking.tariff import WORLD_CURRENCIES, internal_fee, sepa_fee, world_fee
from app.sandbox.errors import Refusal
from app.sandbox.http import Call, Handler, Operation, Outcome, Streamed, endpoint
from app.sandbox.schemas import validate


def _bank(call: Call) -> Bank:
    return call.service(Bank)


def _client(call: Call) -> Client:
    return _bank(call).client(call.path("clientId"))


def _client_account(call: Call) -> Account:
    client = _client(call)
    return _bank(call).account(call.path("accountId", limits.ACCOUNT_ID), client.id)


def _source(call: Call) -> Account:
    return _bank(call).account(call.path("accountId", limits.ACCOUNT_ID))


# ---------------------------------------------------------------- service


def healthcheck(call: Call) -> Outcome:
    return Outcome({"result": "ok"})


def iban_check(call: Call) -> Outcome:
    try:
        info = validate_iban(call.path("iban", limits.Bound(1, 64)))
    except IbanError as exc:
        raise Refusal(str(exc), title="Invalid IBAN") from None
    if info.bic is None:
        raise Refusal(
            f"No bank data for {info.iban}: its bank code {info.bank_code} is not in the registry",
            title="Unknown bank",
        )
    return Outcome(
        {
            "bic": info.bic,
            "bank": info.bank or "",
            "address": info.address or "",
            "country": info.country,
            "sepa": info.sepa,
        }
    )


# ---------------------------------------------------------------- clients


def create_client_v1(call: Call) -> Outcome:
    validate(OPENAPI_V1, "ClientModel", call.body)
    pending = _bank(call).new_client("PERSON", call.body["client"], None)
    return Outcome(pending.value.v1(), pending.commit)


def _clients_page(call: Call, *, persons_only: bool) -> list[Client]:
    offset, limit = call.paging()
    node = call.filter(CLIENT_FILTER_FIELDS)
    return _bank(call).list_clients(
        persons_only=persons_only, node=node, offset=offset, limit=limit
    )


def list_clients_v1(call: Call) -> Outcome:
    # version 1 knows persons only
    return Outcome([client.v1() for client in _clients_page(call, persons_only=True)])


def update_client_v1(call: Call) -> Outcome:
    client = _client(call)
    if client.client_type != "PERSON":
        raise Refusal(
            f"Client {client.id} is a company, which version 1 does not know: update it with v2",
            title="Not found",
        )
    if call.body == {}:
        return Outcome(client.v1())  # an empty object changes nothing (the contract)
    validate(OPENAPI_V1, "ClientUpdateModel", call.body)
    pending = _bank(call).update_client(client, call.body["client_type"], call.body["client"])
    return Outcome(pending.value.v1(), pending.commit)


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


def create_client_v2(call: Call) -> Outcome:
    body = call.body
    _v2_shape(body)
    validate(OPENAPI_V2, "ClientV2CreateModel", body)
    details = body["person"] if body["client_type"] == "PERSON" else body["company"]
    pending = _bank(call).new_client(body["client_type"], details, body["external_reference"])
    return Outcome(pending.value.v2(), pending.commit)


def list_clients_v2(call: Call) -> Outcome:
    return Outcome([client.v2() for client in _clients_page(call, persons_only=False)])


def update_client_v2(call: Call) -> Outcome:
    client = _client(call)
    body = call.body
    if body == {}:
        return Outcome(client.v2())  # an empty object changes nothing (the contract)
    _v2_shape(body)
    validate(OPENAPI_V2, "ClientV2UpdateModel", body)
    changes = body["person"] if body["client_type"] == "PERSON" else body["company"]
    pending = _bank(call).update_client(client, body["client_type"], changes)
    return Outcome(pending.value.v2(), pending.commit)


def nace_codes(call: Call) -> Outcome:
    return Outcome([{"code": code, "title": title} for code, title in NACE_CODES])


# ---------------------------------------------------------------- accounts


def create_account(call: Call) -> Outcome:
    pending = _bank(call).open_account(_client(call))
    return Outcome(pending.value.model(), pending.commit)


def list_accounts(call: Call) -> Outcome:
    client = _client(call)
    return Outcome([a.model() for a in _bank(call).accounts.values() if a.client_id == client.id])


def get_account(call: Call) -> Outcome:
    return Outcome(_client_account(call).model())


def get_balance(call: Call) -> Outcome:
    account = _client_account(call)
    day = call.query_date("date", required=False)
    return Outcome(_bank(call).balances(account, day, call.query_currency()))


def get_statement(call: Call) -> Outcome:
    account = _client_account(call)
    date_from = call.query_date("date_from", required=True)
    date_to = call.query_date("date_to", required=True)
    assert date_from is not None and date_to is not None
    if date_from > date_to:
        raise Refusal(f"date_from {date_from} is after date_to {date_to}")
    chunks = account.ledger.statement_chunks(date_from, date_to, call.query_currency())
    return Outcome(Streamed(chunks))


def account_operation(call: Call) -> Outcome:
    account = _client_account(call)
    operation = call.path("operation", limits.Bound(1, 16))
    if operation not in ("enable", "disable", "close"):
        raise Refusal(f"operation: must be one of enable, disable, close, not {operation!r}")
    pending = _bank(call).operate(account, operation)
    return Outcome({"result": pending.value}, pending.commit)


# ---------------------------------------------------------------- transfers


def fee_sepa(call: Call) -> Outcome:
    _source(call)
    validate(OPENAPI_V1, "SepaFeeRequest", call.body)
    parameters = call.body["parameters"]
    Bank.sepa_bank(parameters["recipient_iban"])
    fee = sepa_fee(parameters["amount"])
    return Outcome(
        {
            "fee": {"amount": fee, "currency": "EUR"},
            "parameters": {**parameters, "priority": "standard"},
        }
    )


def fee_world(call: Call) -> Outcome:
    _source(call)
    validate(OPENAPI_V1, "WorldFeeRequest", call.body)
    parameters = {"priority": "standard", **call.body["parameters"]}
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
    return Outcome(
        {"fee": {"amount": fee, "currency": parameters["currency"]}, "parameters": parameters}
    )


def fee_internal(call: Call) -> Outcome:
    _source(call)
    validate(OPENAPI_V1, "InternalFeeRequest", call.body)
    parameters = call.body["parameters"]
    fee = internal_fee(parameters["amount"], parameters["currency"])
    return Outcome(
        {"fee": {"amount": fee, "currency": parameters["currency"]}, "parameters": parameters}
    )


def create_sepa(call: Call) -> Outcome:
    account = _source(call)
    validate(OPENAPI_V1, "SepaModel", call.body)
    pending = _bank(call).create_sepa(account, call.body)
    return Outcome(pending.value.body, pending.commit)


def create_world(call: Call) -> Outcome:
    account = _source(call)
    validate(OPENAPI_V1, "WorldModel", call.body)
    pending = _bank(call).create_world(account, call.body)
    return Outcome(pending.value.body, pending.commit)


def create_internal(call: Call) -> Outcome:
    account = _source(call)
    validate(OPENAPI_V1, "InternalModel", call.body)
    pending = _bank(call).create_internal(account, call.body)
    return Outcome(pending.value.body, pending.commit)


def _lister(kind: str) -> Handler:
    def list_transfers(call: Call) -> Outcome:
        account = _source(call)
        offset, limit = call.paging()
        node = call.filter(TRANSFER_FILTER_FIELDS)
        transfer_id = call.query("id") or None
        if transfer_id is not None:
            problem = limits.TRANSFER_ID.length_problem(transfer_id)
            if problem:
                raise Refusal(f"id: {problem}")
        return Outcome(
            _bank(call).list_transfers(
                account, kind, transfer_id=transfer_id, node=node, offset=offset, limit=limit
            )
        )

    return list_transfers


def world_currencies(call: Call) -> Outcome:
    _source(call)
    return Outcome({"currencies": list(WORLD_CURRENCIES)})


def create_attachment(call: Call) -> Outcome:
    validate(OPENAPI_V1, "AttachmentMetadataModel", call.body["metadata"])
    pending = _bank(call).add_attachment(call.body["metadata"], call.body["file"])
    return Outcome(pending.value, pending.commit)


# ---------------------------------------------------------------- routing


READ = Operation()


def _route(path: str, handler: Handler, method: str, spec: Operation = READ) -> Route:
    return Route(path, endpoint(spec, handler), methods=[method])


CREATE = Operation(idempotent=True, body="json")
ACT = Operation(idempotent=True)  # a create without a body (opening an account)
ASK = Operation(body="json")  # a question with a body (a fee)
OPEN = Operation(secured=False)

V1_ROUTES = [
    _route("/clients", create_client_v1, "POST", CREATE),
    _route("/clients", list_clients_v1, "GET"),
    _route("/clients/{clientId}", update_client_v1, "PUT", CREATE),
    _route("/clients/{clientId}/accounts", create_account, "POST", ACT),
    _route("/clients/{clientId}/accounts", list_accounts, "GET"),
    _route("/clients/{clientId}/accounts/{accountId}", get_account, "GET"),
    _route("/clients/{clientId}/accounts/{accountId}/balance", get_balance, "GET"),
    _route("/clients/{clientId}/accounts/{accountId}/statement", get_statement, "GET"),
    _route("/clients/{clientId}/accounts/{accountId}/{operation}", account_operation, "POST"),
    _route("/accounts/{accountId}/transfers/sepa/fee", fee_sepa, "POST", ASK),
    _route("/accounts/{accountId}/transfers/sepa", create_sepa, "POST", CREATE),
    _route("/accounts/{accountId}/transfers/sepa", _lister("sepa"), "GET"),
    _route("/accounts/{accountId}/transfers/world/currencies", world_currencies, "GET"),
    _route("/accounts/{accountId}/transfers/world/fee", fee_world, "POST", ASK),
    _route("/accounts/{accountId}/transfers/world", create_world, "POST", CREATE),
    _route("/accounts/{accountId}/transfers/world", _lister("world"), "GET"),
    _route("/accounts/{accountId}/transfers/internal/fee", fee_internal, "POST", ASK),
    _route("/accounts/{accountId}/transfers/internal", create_internal, "POST", CREATE),
    _route("/accounts/{accountId}/transfers/internal", _lister("internal"), "GET"),
    _route("/attachments", create_attachment, "POST", Operation(idempotent=True, body="multipart")),
    _route("/service/iban/{iban}", iban_check, "GET", OPEN),
    _route("/healthcheck", healthcheck, "GET", OPEN),
]

V2_ROUTES = [
    _route("/clients", create_client_v2, "POST", CREATE),
    _route("/clients", list_clients_v2, "GET"),
    _route("/clients/{clientId}", update_client_v2, "PUT", CREATE),
    _route("/nace-codes", nace_codes, "GET"),
]
