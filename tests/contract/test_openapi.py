"""The requests the client builds and the answers the sandbox gives fit the OpenAPI documents."""

import datetime as dt

import httpx
import pytest
import yaml
from openapi_core import OpenAPI
from openapi_core.datatypes import RequestParameters
from werkzeug.datastructures import Headers, ImmutableMultiDict

from app.api import banking as m
from app.api.banking import TransferQuery
from app.api.errors import ApiError
from app.core.resources import OPENAPI_V1, OPENAPI_V2
from app.sandbox.banking.demo import DEMO_PERSON_ID
from tests.conftest import company_body, make_client, person_body, run

# the contract marks x-partner-code deprecated; sending it is still required
pytestmark = pytest.mark.filterwarnings(
    "ignore:x-partner-code parameter is deprecated:DeprecationWarning"
)

# the documents name the sandbox's usual address; the port varies in tests
SERVER = "http://127.0.0.1:8080"


class OpenApiRequest:
    def __init__(self, request: httpx.Request) -> None:
        self.host_url = SERVER
        self.path = request.url.path
        self.method = request.method.lower()
        self.parameters = RequestParameters(
            query=ImmutableMultiDict(request.url.params.multi_items()),
            header=Headers(list(request.headers.items())),
            cookie=ImmutableMultiDict(),
        )
        self.body = request.content or None
        self.content_type = request.headers.get("content-type", "")


class OpenApiResponse:
    def __init__(self, response: httpx.Response) -> None:
        self.status_code = response.status_code
        self.headers = Headers(list(response.headers.items()))
        self.content_type = response.headers.get("content-type", "")
        self.data = response.content


class Recorder(httpx.AsyncBaseTransport):
    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.exchanges: list[tuple[httpx.Request, httpx.Response]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await request.aread()
        response = await self.inner.handle_async_request(request)
        content = await response.aread()
        self.exchanges.append(
            (
                request,
                httpx.Response(response.status_code, headers=response.headers, content=content),
            )
        )
        return httpx.Response(
            response.status_code, headers=response.headers, content=content, request=request
        )

    async def aclose(self) -> None:
        await self.inner.aclose()


@pytest.fixture(scope="module")
def exchanges(sandbox):
    """Every operation of v1 and v2, successes and refusals, recorded on the wire."""
    recorder = Recorder()
    client = make_client(sandbox.url, transport=recorder)
    wrong = make_client(sandbox.url, password="wrong", transport=recorder)
    iban = "DE89370400440532013000"

    async def expect_error(coroutine):
        try:
            await coroutine
        except ApiError:
            return
        raise AssertionError("expected a refusal")

    async def scenario():
        await client.healthcheck()
        await client.iban_check(iban)
        await expect_error(client.iban_check("DE00370400440532013000"))
        await expect_error(wrong.list_clients())
        person = await client.create_client(
            m.build(
                m.ClientCreate,
                {
                    "client": person_body(
                        occupation={
                            "specific_position": "Clerk",
                            "criminal": False,
                            "core_funds": True,
                        },
                        additional_data={
                            "identity_verification": {"provider": "idv", "reference": "r1"}
                        },
                    )
                },
            )
        )
        await client.list_clients(
            limit=5, filter='email[like]"%.lt" and create_date[gte]2000-01-01'
        )
        await client.update_client(
            person.id,
            m.build(m.ClientUpdate, {"client": {"middle_name": None, "last_name": "Changed"}}),
        )
        company = await client.create_client_v2(
            m.build(
                m.ClientV2Create,
                {
                    "external_reference": "CT-1",
                    "client_type": "COMPANY",
                    "company": company_body(
                        documents=[{"kind": "trade_register", "attachment_id": "AT1"}]
                    ),
                },
            )
        )
        await client.create_client_v2(
            m.build(
                m.ClientV2Create,
                {"external_reference": "CT-2", "client_type": "PERSON", "person": person_body(2)},
            )
        )
        await client.list_clients_v2(offset=1, limit=10)
        await client.update_client_v2(
            company.id,
            m.build(m.ClientV2Update, {"client_type": "COMPANY", "company": {"website": None}}),
        )
        await client.nace_codes()
        account = await client.create_account(person.id)
        other = await client.create_account(person.id)
        await client.list_accounts(person.id)
        await client.get_account(person.id, account.id)
        await client.get_balance(person.id, account.id, date=dt.date.today(), currency="EUR")
        await client.get_statement(person.id, account.id, dt.date(2000, 1, 1), dt.date.today())
        demo_account = (await client.list_accounts(DEMO_PERSON_ID))[0]
        await client.get_statement(
            DEMO_PERSON_ID, demo_account.id, dt.date.today() - dt.timedelta(days=3), dt.date.today()
        )
        await client.sepa_fee(account.id, m.SepaFeeParameters(amount=100, recipient_iban=iban))
        await client.create_sepa(
            account.id,
            m.build(
                m.SepaTransferCreate,
                {
                    "id": "CS1",
                    "amount": 100,
                    "description": "Invoice",
                    "recipient_name": "Hans",
                    "recipient_iban": iban,
                    "recipient_country": "DE",
                    "recipient_address": "Berlin",
                    "ip": "192.0.2.1",
                },
            ),
        )
        await client.world_currencies(account.id)
        await client.world_fee(
            account.id,
            m.WorldFeeParameters(
                amount=100,
                currency="USD",
                charges_type="our",
                recipient_account="1",
                bank_country="US",
            ),
        )
        await client.create_world(
            account.id,
            m.build(
                m.WorldTransferCreate,
                {
                    "id": "CW1",
                    "amount": 100,
                    "currency": "USD",
                    "charges_type": "sha",
                    "description": "Invoice",
                    "recipient_name": "Ann",
                    "recipient_account": "123",
                    "recipient_country": "US",
                    "recipient_address": "NY",
                    "beneficiary_bank": {"bic": "CHASUS33XXX", "bank": "Chase", "country": "US"},
                },
            ),
        )
        await client.internal_fee(account.id, m.InternalFeeParameters(amount=5, currency="EUR"))
        await client.create_internal(
            account.id,
            m.build(
                m.InternalTransferCreate,
                {"id": "CI1", "amount": 5, "currency": "EUR", "recipient_iban": other.id},
            ),
        )
        await client.list_sepa(account.id, TransferQuery(id="CS1"))
        await client.list_world(
            account.id, TransferQuery(filter=f"processing_date[lte]{dt.date.today()}")
        )
        await client.list_internal(account.id, TransferQuery(offset=0, limit=100))
        await client.create_attachment(
            m.AttachmentMetadata(
                document_type="passport",
                document_number="P1",
                country="LT",
                issued_at=dt.date(2020, 1, 1),
                expired_at=dt.date(2030, 1, 1),
            ),
            b"scan",
        )
        await client.account_operation(person.id, other.id, "disable")
        await client.account_operation(person.id, other.id, "enable")
        await expect_error(client.account_operation(person.id, other.id, "enable"))
        await expect_error(
            client.create_sepa(
                account.id,
                m.build(
                    m.SepaTransferCreate,
                    {
                        "id": "CS1",
                        "amount": 100,
                        "recipient_name": "H",
                        "recipient_iban": iban,
                        "recipient_country": "DE",
                        "recipient_address": "B",
                    },
                ),
            )
        )
        for each in (client, wrong):
            await each.aclose()

    run(scenario())
    return recorder.exchanges


@pytest.fixture(scope="module")
def specs():
    return {1: OpenAPI.from_file_path(str(OPENAPI_V1)), 2: OpenAPI.from_file_path(str(OPENAPI_V2))}


def test_the_documents_are_valid_openapi_31(specs):
    assert specs[1].spec["openapi"] == "3.1.0"
    assert specs[2].spec["info"]["version"] == "2.0.2"


def test_every_operation_was_exercised(exchanges):
    seen = {(r.method.lower(), r.url.path) for r, _ in exchanges}
    for version, document in ((1, OPENAPI_V1), (2, OPENAPI_V2)):
        paths = yaml.safe_load(document.read_text(encoding="utf-8"))["paths"]
        for path, operations in paths.items():
            for method in operations:
                prefix = f"/v{version}{path}".partition("{")[0]
                assert any(m == method and p.startswith(prefix) for m, p in seen), (method, path)


def test_requests_fit_the_documents(exchanges, specs):
    for request, _ in exchanges:
        version = 2 if request.url.path.startswith("/v2") else 1
        specs[version].validate_request(_without_prefix(request))


def test_responses_fit_the_documents(exchanges, specs):
    statuses = set()
    for request, response in exchanges:
        version = 2 if request.url.path.startswith("/v2") else 1
        statuses.add(response.status_code)
        specs[version].validate_response(_without_prefix(request), OpenApiResponse(response))
    assert {200, 400, 401} <= statuses


def _without_prefix(request: httpx.Request) -> OpenApiRequest:
    adapted = OpenApiRequest(request)
    # servers end with /v1 or /v2: keep the path whole and move the prefix into the host
    version, rest = adapted.path[1:3], adapted.path[3:]
    adapted.host_url = f"{SERVER}/{version}"
    adapted.path = f"/{version}{rest}"
    return adapted


def test_the_fast_path_decodes_a_statement_records_fields_in_the_contracts_order():
    """msgspec matches each key first against the field after the last one matched: the
    fields in the order the contract (and so a server) writes them decode fastest."""
    from app.api.banking.statement_records import PlainRecord

    spec = yaml.safe_load(OPENAPI_V1.read_text(encoding="utf-8"))
    record = spec["components"]["schemas"]["AccountStatementModel"]
    assert PlainRecord.__struct_fields__ == tuple(record["properties"])
