"""The shared endpoint: an answer is built before its change is committed, so a failure
answers 500 with nothing changed, and one x-request-id acts once."""

import asyncio

import httpx
import pytest
from starlette.applications import Starlette
from starlette.routing import Route

from app.sandbox.clock import Clock, Scheduler
from app.sandbox.http import Call, Operation, Outcome, SandboxState, endpoint

CREATE = Operation(idempotent=True, body="json")


def app_with(handler, spec=CREATE) -> tuple[Starlette, SandboxState]:
    application = Starlette(routes=[Route("/thing", endpoint(spec, handler), methods=["POST"])])
    clock = Clock()
    state = SandboxState(clock, Scheduler(clock))
    application.state.sandbox = state
    return application, state


def post(application, body=b'{"a": 1}', request_id="r1", **headers):
    async def send():
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://sandbox") as client:
            return await client.post(
                "/thing",
                content=body,
                auth=None if "authorization" in headers else ("demo", "demo"),
                headers={
                    "x-partner-code": "PD",
                    "x-request-id": request_id,
                    "content-type": "application/json",
                    **headers,
                },
            )

    return asyncio.run(send())


@pytest.mark.allow_warning_logs
@pytest.mark.parametrize("payload", [{"text": "lone \ud800"}, {"what": object()}])
def test_an_answer_that_cannot_be_encoded_commits_nothing(payload):
    committed = []

    def handler(call: Call) -> Outcome:
        return Outcome(payload, lambda: committed.append(call.body))

    application, state = app_with(handler)
    response = post(application)
    assert response.status_code == 500
    assert response.json()["detail"]["title"] == "Internal error"
    assert committed == [] and len(state.idempotency) == 0


def test_one_key_acts_once_and_another_body_is_a_duplicate():
    committed = []

    def handler(call: Call) -> Outcome:
        return Outcome({"n": len(committed) + 1}, lambda: committed.append(call.body))

    application, _state = app_with(handler)
    first = post(application)
    replay = post(application)
    assert first.json() == replay.json() == {"n": 1}
    assert replay.headers["x-idempotent-replay"] == "true"
    other = post(application, body=b'{"a": 2}')
    assert other.status_code == 400 and other.json()["detail"]["title"] == "Duplicate request"
    assert committed == [{"a": 1}]


def test_unknown_users_and_bad_credentials_are_401():
    application, _state = app_with(lambda call: Outcome({}))
    for header in ("Basic ZGVtbzp3cm9uZw==", "Basic !!!", "Bearer x", "Basic ZXZlOmRlbW8="):
        response = post(application, authorization=header)
        assert response.status_code == 401
        assert response.headers["www-authenticate"] == 'Basic realm="core"'


def test_streamed_answers_take_turns_so_that_a_small_request_is_not_kept_waiting():
    """However many long answers stream at once, at most ``STREAMS_MAKING`` make a piece in
    a turn of the loop: a small request's turns come between, where 150 readers of a
    million records made it wait 2.5 s; the turns of a stream gone are given back."""
    from app.sandbox.http import STREAMS_MAKING, _paced, streams_making

    made: list[int] = []

    def pieces(stream: int, count: int):
        for _ in range(count):
            made.append(stream)
            yield b"[]"

    async def read(stream: int, making: asyncio.Semaphore, count: int = 1_000) -> int:
        return sum([1 async for _piece in _paced(pieces(stream, count), making)])

    async def main() -> tuple[int, int]:
        making = streams_making()
        readers = [asyncio.ensure_future(read(stream, making)) for stream in range(50)]
        for _ in range(3):  # every reader under way
            await asyncio.sleep(0)
        before = len(made)
        for _ in range(10):  # a small request's ten turns
            await asyncio.sleep(0)
        during = len(made) - before
        for reader in readers:
            reader.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
        return during, await read(99, making, count=5)

    during, alone = asyncio.run(main())
    assert 0 < during <= STREAMS_MAKING * 11
    assert alone == 5  # every turn was given back by the readers cancelled
