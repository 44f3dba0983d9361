"""The client against a hostile server: every call ends within its deadline and within its
size caps, whatever the server sends, and every failure says why and quotes the request id."""

import asyncio
import contextlib
import dataclasses
import datetime as dt
import gzip
import ssl
import tracemalloc
import zlib

import httpx
import pytest

from app.api.banking import BankingClient
from app.api.banking import statements as statement_module
from app.api.banking.columns import StatementColumns
from app.api.banking.statement_records import LearnedDecoder
from app.api.banking.transport import banking_transport
from app.api.errors import (
    ApiConnectionError,
    ApiError,
    ApiTimeoutError,
    InvalidInput,
    ResponseValidationError,
    ServerError,
)
from app.api.http import Bounds, RetryPolicy, describe_transport_error
from app.api.profile import Profile
from tests.conftest import run

MiB = 1024 * 1024
FAST = RetryPolicy(attempts=2, backoff=0.01)


DEFAULT_BOUNDS = Bounds()


def client_for(handler, bounds: Bounds = DEFAULT_BOUNDS, base_url="https://bank.example"):
    profile = Profile(base_url, "demo", "secret", "PC", bounds=bounds)
    return BankingClient(
        banking_transport(profile, retry=FAST, transport=httpx.MockTransport(handler))
    )


async def trickle(data: bytes, pause: float):
    for byte in data:
        await asyncio.sleep(pause)
        yield bytes([byte])


async def lazily(chunk: bytes, count: int):
    for _ in range(count):
        yield chunk


def failure(call, bound: float = 30) -> BaseException:
    """The exception the call ends with. A call still running after ``bound`` seconds (many
    times what any bound under test allows, however slow the machine) fails the test: its
    own bound did not hold."""

    async def bounded():
        try:
            await asyncio.wait_for(call, bound)
        except TimeoutError:
            pytest.fail(f"the call was still running after {bound:g} s")

    with pytest.raises(Exception) as caught:  # noqa: PT011 - the kind is asserted after
        run(bounded())
    return caught.value


# ---------------------------------------------------------------- time


def test_an_answer_sent_one_byte_at_a_time_ends_at_the_deadline():
    def handler(request):
        return httpx.Response(200, content=trickle(b'{"result": "ok"}' * 100, 0.05))

    error = failure(client_for(handler, Bounds(deadline=1.0)).healthcheck())
    assert isinstance(error, ApiTimeoutError)
    assert str(error).startswith("No complete answer from https://bank.example within 1 s")
    assert "(x-request-id " in str(error)


def test_headers_that_never_come_end_at_the_deadline():
    async def handler(request):
        await asyncio.sleep(30)
        return httpx.Response(200)

    error = failure(client_for(handler, Bounds(deadline=0.5)).healthcheck())
    assert isinstance(error, ApiTimeoutError) and "within 0.5 s" in str(error)


def test_an_error_body_sent_slowly_ends_at_the_deadline():
    def handler(request):
        return httpx.Response(500, content=trickle(b"x" * 1000, 0.05))

    error = failure(client_for(handler, Bounds(deadline=1.0)).healthcheck())
    assert isinstance(error, ApiTimeoutError) and "within 1 s" in str(error)


def test_a_statement_is_bounded_in_total_time():
    record = (
        b'{"id":"1","booking_date":"2024-01-01","type":"card","direction":"debit","amount":1,'
        b'"currency":"EUR","description":"x","balance_after":1}'
    )

    async def endless():
        yield b"["
        while True:
            await asyncio.sleep(0.01)
            yield record + b","

    def handler(request):
        return httpx.Response(200, content=endless())

    client = client_for(handler, Bounds(stream_total=1.0))
    call = client.get_statement("C1", "A1", dt.date(2024, 1, 1), dt.date(2024, 12, 31))
    error = failure(call)
    assert isinstance(error, ApiTimeoutError)
    assert "did not end within 1 s" in str(error) and "(x-request-id " in str(error)


# ---------------------------------------------------------------- size


def peak_mb(call) -> tuple[float, BaseException]:
    tracemalloc.start()
    try:
        with pytest.raises(Exception) as caught:  # noqa: PT011 - the kind is asserted after
            run(call)
        return tracemalloc.get_traced_memory()[1] / MiB, caught.value
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("item", [b"0", b"{}", b"[]"])
def test_an_answer_of_more_values_than_any_page_holds_is_refused_before_it_is_parsed(item):
    """Under the size cap, 8 million zeros parsed took 741 MB, and an error gathered for
    each wrong one 12 GB and 96 s."""
    listed = b"[" + b",".join([item] * 200_000) + b"]"

    def handler(request):
        return httpx.Response(200, content=listed)

    peak, error = peak_mb(client_for(handler).list_accounts("C1"))
    assert isinstance(error, ResponseValidationError)
    assert str(error).startswith(
        "The answer to GET /v1/clients/C1/accounts holds more than 100,000 values"
    )
    assert peak < 10


def test_a_list_of_wrong_items_names_the_first_without_checking_the_others():
    """Below the values cap, each wrong item's error was gathered all the same: 50,000
    took 300 MB."""
    listed = b"[" + b",".join([b"0"] * 50_000) + b"]"

    def handler(request):
        return httpx.Response(200, content=listed)

    peak, error = peak_mb(client_for(handler).list_accounts("C1"))
    assert isinstance(error, ResponseValidationError)
    assert "does not fit the contract: 0: Input should be an object" in str(error)
    assert peak < 10  # 0.4 MB; 57 MB when every item was checked


def test_a_100_mb_answer_is_refused_at_the_cap_without_holding_it():
    def handler(request):
        return httpx.Response(200, content=lazily(b" " * MiB, 100))

    peak, error = peak_mb(client_for(handler).healthcheck())
    assert isinstance(error, ResponseValidationError)
    assert "is larger than 16,384 KiB" in str(error)
    assert peak < 40


def test_a_100_mb_error_body_is_cut_and_the_status_still_typed():
    def handler(request):
        return httpx.Response(500, content=lazily(b"x" * MiB, 100))

    peak, error = peak_mb(client_for(handler).healthcheck())
    assert isinstance(error, ServerError) and not error.has_error_body
    assert peak < 20


def test_a_gzip_bomb_is_stopped_at_the_cap():
    bomb = gzip.compress(b"\0" * (200 * MiB), compresslevel=9)
    assert len(bomb) < 300 * 1024

    def handler(request):
        return httpx.Response(200, headers={"content-encoding": "gzip"}, content=lazily(bomb, 1))

    peak, error = peak_mb(client_for(handler).healthcheck())
    assert isinstance(error, ResponseValidationError) and "larger than" in str(error)
    assert peak < 40


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
def test_compressed_answers_are_read_and_broken_ones_typed(encoding):
    body = b'{"result": "ok"}'
    packed = gzip.compress(body) if encoding == "gzip" else zlib.compress(body)

    def good(request):
        return httpx.Response(
            200, headers={"content-encoding": encoding}, content=lazily(packed, 1)
        )

    assert run(client_for(good).healthcheck()).result == "ok"

    def broken(request):
        return httpx.Response(
            200, headers={"content-encoding": encoding}, content=lazily(packed[:-6] + b"!!", 1)
        )

    with pytest.raises(ResponseValidationError, match=f"could not be decoded: broken {encoding}"):
        run(client_for(broken).healthcheck())

    def unknown(request):
        return httpx.Response(200, headers={"content-encoding": "br"}, content=lazily(body, 1))

    with pytest.raises(ResponseValidationError, match="content encoding 'br'"):
        run(client_for(unknown).healthcheck())


# ---------------------------------------------------------------- the statement stream


def count_parsing(monkeypatch, parsed: list[int]) -> None:
    """Count into ``parsed`` the bytes each of the reader's parsers reads: the fast path's
    decoder (its learned decoder, and the plain one after it) and the slower way's parser."""
    decode = LearnedDecoder.decode

    def decoded(self, data):
        parsed.append(len(data))
        return decode(self, data)

    monkeypatch.setattr(LearnedDecoder, "decode", decoded)
    parse = statement_module._parse

    def counted(data):
        parsed.append(len(data))
        return parse(data)

    monkeypatch.setattr(statement_module, "_parse", counted)


def test_plain_records_are_read_by_the_fast_path_alone(monkeypatch):
    parsed: list[int] = []
    count_parsing(monkeypatch, parsed)

    def slower_way(data):
        raise AssertionError("a plain piece went the slower way")

    monkeypatch.setattr(statement_module, "_parse", slower_way)
    record = GOOD_RECORD.replace('"id":"1"', '"id":"%d"') + ',"counterparty_name":"Bolt OÜ"}'
    body = ("[" + ",".join(record % n for n in range(20_000)) + "]").encode()

    async def arriving():
        for start in range(0, len(body), 64 * 1024):
            yield body[start : start + 64 * 1024]

    client = client_for(lambda request: httpx.Response(200, content=arriving()))
    records = run(client.get_statement("C1", "A1", dt.date(2024, 1, 1), dt.date(2024, 12, 31)))
    assert [r["id"] for r in records] == [str(n) for n in range(20_000)]
    assert records[-1]["counterparty_name"] == "Bolt OÜ"
    assert len(parsed) >= 2 and sum(parsed) < len(body) + 2 * len(parsed)  # each byte once


def test_junk_in_a_statement_fails_early_and_in_linear_time(monkeypatch):
    validated = []
    adapter = statement_module.RECORDS

    class Counting:
        def validate_json(self, data):
            validated.append(len(data))
            return adapter.validate_json(data)

    count_parsing(monkeypatch, validated)
    monkeypatch.setattr(statement_module, "RECORDS", Counting())
    sent = []

    async def junk():
        yield b"["
        for _ in range(52):
            sent.append(MiB)
            yield b'{"description": "},' * (MiB // 20)

    def handler(request):
        return httpx.Response(200, content=junk())

    client = client_for(handler)
    call = client.get_statement("C1", "A1", dt.date(2024, 1, 1), dt.date(2024, 12, 31))
    error = failure(call)
    assert isinstance(error, ResponseValidationError)
    assert "(x-request-id " in str(error)
    assert len(sent) < 10  # stopped long before the 52 MB were sent
    assert sum(validated) < 4 * sum(sent)


def test_records_with_braces_in_their_text_are_read_whole_in_linear_time(monkeypatch):
    validated = []
    adapter = statement_module.RECORDS

    class Counting:
        def validate_json(self, data):
            validated.append(len(data))
            return adapter.validate_json(data)

    count_parsing(monkeypatch, validated)
    monkeypatch.setattr(statement_module, "RECORDS", Counting())
    record = (
        b'{"id":"%d","booking_date":"2024-01-01","type":"card","direction":"debit","amount":1,'
        b'"currency":"EUR","description":"a},{b","balance_after":1}'
    )
    body = b"[" + b",".join(record % n for n in range(40_000)) + b"]"

    def handler(request):
        return httpx.Response(200, content=lazily(body, 1))

    client = client_for(handler)
    records = run(client.get_statement("C1", "A1", dt.date(2024, 1, 1), dt.date(2024, 12, 31)))
    assert [r["id"] for r in records] == [str(n) for n in range(40_000)]
    assert records[0]["description"] == "a},{b"
    assert sum(validated) < 3 * len(body)


GOOD_RECORD = (
    '{"id":"1","booking_date":"2024-01-01","type":"card","direction":"debit","amount":1,'
    '"currency":"EUR","description":"x","balance_after":-1'
)


def statement_refusal(body: bytes) -> str:
    """The error the client gives for a statement answer of this body."""

    def handler(request):
        return httpx.Response(200, content=lazily(body, 1))

    client = client_for(handler)
    with pytest.raises(ResponseValidationError) as caught:
        run(client.get_statement("C1", "A1", dt.date(2024, 1, 1), dt.date(2024, 12, 31)))
    return str(caught.value)


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        (',"amount":-1}', "amount"),
        (',"amount":1e400}', "amount"),
        (',"balance_after":9223372036854775808}', "balance_after"),
        (',"amount":18446744073709551616}', "amount"),  # past the 64 bits the contract has
        (',"balance_after":-100000000000000000000000}', "balance_after"),
        (',"type":["card"]}', "type"),
        (',"booking_date":"2023-02-29"}', "booking_date"),
        (',"description":"\\ud800"}', "JSON"),  # a lone surrogate
        (',"extra":"\udcc3"}', "invalid unicode"),  # bad UTF-8 where the fast path skips
        (',"reference":' + "[" * 5000 + "]" * 5000 + "}", "JSON"),  # nested past the limit
    ],
)
def test_a_hostile_record_is_refused_naming_what_is_wrong(extra, named):
    body = "[" + GOOD_RECORD + "}," + GOOD_RECORD + extra + "]"
    text = statement_refusal(body.encode("utf-8", "surrogateescape"))  # \udcXX: the byte XX
    assert "(x-request-id " in text and named in text


def test_a_piece_of_many_bad_records_is_refused_at_the_first_in_little_memory():
    body = b"[" + b",".join([b"{}"] * 300_000) + b"]"  # each record lacks eight fields
    tracemalloc.start()
    text = statement_refusal(body)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert "0.id: Field required" in text
    assert peak < 64 * 1024 * 1024  # 2.4 million errors as Python objects took over 1 GB


@pytest.mark.parametrize("amount", ["1", "1.0"])  # 1.0: the piece goes to the record model
def test_a_deeply_nested_unknown_field_is_judged_alike_on_either_path(amount):
    nested = "[" * 500 + "]" * 500
    record = GOOD_RECORD.replace('"amount":1', '"amount":' + amount) + ',"extra":' + nested + "}"
    body = ("[" + GOOD_RECORD + "}," + record + "]").encode()

    def handler(request):
        return httpx.Response(200, content=lazily(body, 1))

    client = client_for(handler)
    records = run(client.get_statement("C1", "A1", dt.date(2024, 1, 1), dt.date(2024, 12, 31)))
    assert [record["amount"] for record in records] == [1, 1]


def statement_refusal_in(chunks: list[bytes]) -> str:
    """The error the client gives for a statement answer arriving in these chunks."""

    async def arriving():
        for chunk in chunks:
            yield chunk

    client = client_for(lambda request: httpx.Response(200, content=arriving()))
    with pytest.raises(ResponseValidationError) as caught:
        run(client.get_statement("C1", "A1", dt.date(2024, 1, 1), dt.date(2024, 12, 31)))
    return str(caught.value)


@pytest.mark.parametrize("where", ["after [", "after [ and spaces", "between two records"])
def test_an_empty_item_before_a_long_record_is_refused(where):
    # a record longer than a piece makes the reader find the last whole record itself
    long = (GOOD_RECORD + ',"reference":"' + "y" * 300_000 + '"}').encode()
    short = (GOOD_RECORD + "}").encode()
    if where == "between two records":  # ",," where a piece is cut
        chunks = [b"[" + b",".join([short] * 3000) + b",", b"," + long + b",", short + b"]"]
    else:
        chunks = [(b"[," if where == "after [" else b"[ \n ,") + long + b"," + short + b"]"]
    assert b"".join(chunks).count(b",,") == (where == "between two records")
    assert "a comma follows no item" in statement_refusal_in(chunks)


def test_a_last_record_longer_than_the_bound_is_refused_when_all_comes_at_once():
    huge = (GOOD_RECORD + ',"reference":"' + "x" * (3 * MiB) + '"}').encode()
    body = b"[" + (GOOD_RECORD + "},").encode() + huge + b"]"

    def handler(request):
        return httpx.Response(200, content=lazily(body, 1))  # one chunk: the whole answer

    client = client_for(handler, Bounds(record_bytes=MiB))
    with pytest.raises(ResponseValidationError, match="no record ends within 1,048,576 bytes"):
        run(client.get_statement("C1", "A1", dt.date(2024, 1, 1), dt.date(2024, 12, 31)))


def test_a_record_longer_than_the_bound_is_refused():
    huge = b'[{"id":"1","description":"' + b"x" * (3 * MiB) + b'"}]'

    def handler(request):
        return httpx.Response(200, content=lazily(huge, 1))

    client = client_for(handler, Bounds(record_bytes=MiB))
    with pytest.raises(ResponseValidationError, match="no record ends within 1,048,576 bytes"):
        run(client.get_statement("C1", "A1", dt.date(2024, 1, 1), dt.date(2024, 12, 31)))


# ---------------------------------------------------------------- addresses and reasons


@pytest.mark.parametrize(
    ("base_url", "problem"),
    [
        ("http://bank.example", "use https: only this computer may be reached by http"),
        ("https://user:s3cret@bank.example", "must not carry a user or password"),
        ("ftp://bank.example", "an address such as https://api.bank.example"),
        ("https://bank.example/?x=1", "must not carry a query"),
    ],
)
def test_addresses_the_desk_must_not_call_are_refused_before_sending(base_url, problem):
    with pytest.raises(InvalidInput, match=problem) as caught:
        banking_transport(Profile(base_url, "demo", "pw", "PC"))
    assert "s3cret" not in str(caught.value)


@pytest.mark.parametrize("base_url", ["http://127.0.0.1:8080", "http://localhost", "http://[::1]"])
def test_plain_http_to_this_computer_is_allowed(base_url):
    banking_transport(Profile(base_url, "demo", "pw", "PC"))


def test_a_dropped_connection_says_why_and_quotes_the_request_id():
    def handler(request):
        try:
            raise ConnectionResetError(104, "Connection reset by peer")
        except ConnectionResetError as cause:
            raise httpx.ReadError("") from cause

    with pytest.raises(ApiConnectionError) as caught:
        run(client_for(handler).healthcheck())
    message = str(caught.value)
    assert message.startswith(
        "The exchange with https://bank.example failed: the connection broke while reading "
        "the answer "
        "([Errno 104] Connection reset by peer) (x-request-id "
    )
    assert caught.value.request_id in message


@pytest.mark.parametrize(
    ("failure", "said"),
    [
        (
            httpx.ConnectError("refused"),
            "Cannot reach https://bank.example: the connection was refused or failed (refused)",
        ),
        (
            httpx.RemoteProtocolError("Receive buffer too long"),
            "The exchange with https://bank.example failed: the server closed the connection "
            "or broke the HTTP protocol (Receive buffer too long)",
        ),
    ],
)
def test_a_server_not_reached_is_told_apart_from_one_that_broke_the_exchange(failure, said):
    def handler(request):
        raise failure

    with pytest.raises(ApiConnectionError) as caught:
        run(client_for(handler).healthcheck())
    assert str(caught.value).startswith(said + " (x-request-id ")


def test_every_transport_failure_has_a_reason():
    for kind in (httpx.ConnectError, httpx.RemoteProtocolError, httpx.ReadTimeout):
        assert describe_transport_error(kind(""))
    assert describe_transport_error(httpx.ConnectError("")) == (
        "the connection was refused or failed"
    )


def test_a_tls_failure_says_what_it_most_likely_means():
    untrusted = ssl.SSLCertVerificationError(1, "certificate verify failed")
    untrusted.reason = "CERTIFICATE_VERIFY_FAILED"
    failed = httpx.ConnectError("[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed")
    failed.__cause__ = untrusted
    assert describe_transport_error(failed) == (
        "the connection was refused or failed (certificate verify failed): the server's "
        "certificate is not trusted: for a private CA, give the profile its CA bundle"
    )


def test_https_to_a_server_that_answers_http_says_so(sandbox_url):
    from tests.conftest import make_client

    client = make_client(sandbox_url.replace("http://", "https://"))
    with pytest.raises(ApiConnectionError) as caught:
        run(client.list_clients(limit=1))
    assert "WRONG_VERSION_NUMBER" in str(caught.value)
    assert "the server does not answer in TLS there: is its address http://?" in str(caught.value)


def test_tiny_chunks_cost_linear_time():
    async def tiny():
        yield b'[{"id":"1","description":"'
        for _ in range(300_000):
            yield b"a,"

    def handler(request):
        return httpx.Response(200, content=tiny())

    client = client_for(handler, Bounds(record_bytes=256 * 1024))
    call = client.get_statement("C1", "A1", dt.date(2024, 1, 1), dt.date(2024, 12, 31))
    error = failure(call)  # a minute when every chunk rescanned the buffer
    assert isinstance(error, ResponseValidationError)
    assert "no record ends within 262,144 bytes" in str(error)


def test_a_statement_is_bounded_in_records():
    record = (
        b'{"id":"1","booking_date":"2024-01-01","type":"card","direction":"debit","amount":1,'
        b'"currency":"EUR","description":"x","balance_after":1}'
    )

    async def endless():
        yield b"["
        while True:
            yield b",".join([record] * 1000) + b","

    def handler(request):
        return httpx.Response(200, content=endless())

    client = client_for(handler, Bounds(stream_records=5_000))
    with pytest.raises(ResponseValidationError, match="more than 5,000 records") as caught:
        run(client.get_statement("C1", "A1", dt.date(2024, 1, 1), dt.date(2024, 12, 31)))
    assert "(x-request-id " in str(caught.value)


def capped_statement(description: str) -> tuple[BaseException, int, int]:
    """The error of a statement of endless records with this description, read with a cap
    of 4 MiB; the records sent by then, and the bytes of one."""
    record = (
        '{"id":"1","booking_date":"2024-01-01","type":"card","direction":"debit","amount":1,'
        f'"currency":"EUR","description":"{description}","balance_after":1}}'
    ).encode()
    sent = 0

    async def endless():
        nonlocal sent
        yield b"["
        while True:
            sent += 1
            yield record + b","
            await asyncio.sleep(0)  # the loop's turn: without a cap, the test's bound ends it

    def handler(request):
        return httpx.Response(200, content=endless())

    client = client_for(handler, Bounds(stream_bytes=4 * MiB))
    error = failure(client.get_statement("C1", "A1", dt.date(2024, 1, 1), dt.date(2024, 12, 31)))
    assert isinstance(error, ResponseValidationError)
    assert str(error).startswith(
        "The statement is larger than 4 MiB: choose a shorter period or one currency"
    )
    assert "(x-request-id " in str(error)
    return error, sent, len(record)


def test_a_statement_of_big_records_ends_at_its_size_cap_not_its_records_cap():
    """Records just under the record's cap add up: 2,000 of 900 KB took 1.7 GB."""
    _error, sent, size = capped_statement("x" * (200 * 1024))
    assert sent <= 4 * MiB // size + 2  # nothing read past the cap


@pytest.mark.parametrize(
    ("location", "shown"),
    [
        ("/v1/\x1b[2Jx", "/v1/?[2Jx"),
        ("http://xn--zz/", "http://xn--zz/"),  # a broken international name: a traceback
        ("https://xn--/x", "https://xn--/x"),
        ("http://bank.example:99999/x", "http://bank.example:99999/x"),
    ],
)
def test_a_redirect_to_no_address_is_an_answer_said_once_not_a_broken_connection(location, shown):
    """httpx reads a redirect's address whether it follows it or not: one that is none was
    taken for a broken connection, tried three times and said as a server not reached."""
    asked = []

    def handler(request):
        asked.append(request)
        return httpx.Response(302, headers={"location": location})

    error = failure(client_for(handler).healthcheck())
    assert isinstance(error, ApiError) and not isinstance(error, ApiConnectionError)
    assert str(error).startswith(f"HTTP 302 Found, a redirect to {shown} (not followed) (")
    assert len(asked) == 1


def test_an_answer_without_the_error_body_names_the_redirect_and_the_request_id():
    def handler(request):
        return httpx.Response(302, headers={"location": "https://elsewhere.example/login"})

    with pytest.raises(ApiError) as caught:
        run(client_for(handler).healthcheck())
    assert str(caught.value).startswith(
        "HTTP 302 Found, a redirect to https://elsewhere.example/login (not followed) "
        "(x-request-id "
    )


@pytest.mark.parametrize("port", ["abc", "80:80", "99999", "0"])
def test_a_bad_port_is_refused_plainly(port):
    with pytest.raises(InvalidInput, match="the port must be a number from 1 to 65535"):
        banking_transport(Profile(f"http://127.0.0.1:{port}", "demo", "pw", "PC"))


async def one_record_then_nothing(reader, writer):
    await reader.readuntil(b"\r\n\r\n")
    first = f"[{GOOD_RECORD}}},"
    lines = [
        "HTTP/1.1 200 OK",
        "content-type: application/json",
        "transfer-encoding: chunked",
        "",
        f"{len(first):x}",
        first,
        "",
    ]
    writer.write("\r\n".join(lines).encode())
    await writer.drain()
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.sleep(5)
    writer.close()


async def stalled_statement() -> str:
    server = await asyncio.start_server(one_record_then_nothing, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    profile = Profile(f"http://127.0.0.1:{port}", "demo", "secret", "PC")
    profile = dataclasses.replace(profile, bounds=Bounds(step_timeout=0.5))
    client = BankingClient(banking_transport(profile, retry=FAST))
    try:
        await client.get_statement("C1", "A1", dt.date(2024, 1, 1), dt.date(2024, 12, 31))
    except ApiTimeoutError as exc:
        return str(exc)
    finally:
        await client.aclose()
        server.close()
    return "no error"


def test_a_statement_that_stops_midway_is_given_up_in_plain_words():
    text = asyncio.run(stalled_statement())
    assert text.startswith("The answer from http://127.0.0.1:")
    assert "stopped: nothing came for 0.5 s (x-request-id " in text
    assert "cancel scope" not in text


@pytest.mark.parametrize(
    ("bad", "where"),
    [
        ('"direction":"refund"', "2500.direction: Input should be 'credit' or 'debit'"),
        ('"description":"\\ud800"', "a record: Invalid JSON: unexpected end of hex escape ("),
    ],
)
def test_a_bad_record_deep_in_a_statement_is_named_by_its_place_in_the_answer(bad, where):
    good = GOOD_RECORD + "}"
    records = [good] * 3000
    records[2500] = good.replace('"direction":"debit"', bad).replace('"description":"x"', bad)
    text = statement_refusal(("[" + ",".join(records) + "]").encode())
    assert where in text and ": :" not in text and " column " not in text


def test_a_statement_is_capped_by_what_its_texts_hold_not_only_by_its_bytes():
    """One emoji in a text makes each letter of its piece's joined text 4 bytes: 500 MiB
    of such records, under the bytes' cap, held 2 GB."""
    # the emoji escaped: the bytes are ASCII
    _error, sent, size = capped_statement("\\ud83d\\ude00" + "x" * 100_000)
    assert sent * size < 2 * MiB  # a quarter of the bytes, at about four bytes a letter


def test_a_wrong_record_is_named_by_its_place_in_the_whole_statement_when_rows_are_dropped():
    """A writer streaming the rows on drops each piece's: the wrong record is still named by
    its place in the answer (it was named by its place after the last drop)."""
    good = (
        b'{"id":"%d","booking_date":"2024-01-01","type":"card","direction":"debit","amount":1,'
        b'"currency":"EUR","description":"%s","balance_after":1}'
    )
    records = [good % (number, b"x" * 200) for number in range(5_000)]
    records.append(good.replace(b"2024-01-01", b"2024-02-30") % (5_000, b"x"))

    def handler(request):
        return httpx.Response(200, content=b"[" + b",".join(records) + b"]")

    async def read_dropping() -> None:
        columns = StatementColumns()
        async for _added in client_for(handler).iter_statement(
            "C1", "A1", dt.date(2024, 1, 1), dt.date(2024, 12, 31), into=columns
        ):
            columns.drop_rows()

    error = failure(read_dropping())
    assert isinstance(error, ResponseValidationError)
    assert "does not fit the contract: 5000.booking_date: " in str(error)


def test_a_balance_past_the_contracts_64_bits_is_refused_by_name():
    """A balance of 10^30 was taken: a camt.053 written with it failed its schema."""

    def handler(request):
        body = b'[{"currency":"EUR","balance":%d,"available":1,"date":"2024-01-31"}]' % 10**30
        return httpx.Response(200, content=body)

    error = failure(client_for(handler).get_balance("C1", "A1"))
    assert isinstance(error, ResponseValidationError)
    assert "does not fit the contract: 0.balance: " in str(error)
