"""The webhook store survives its database: a real PostgreSQL restarted, stopped, its
connections ended and its table locked by another session, under deliveries. An event
acknowledged with 2xx is stored; one not stored is never acknowledged (503, Retry-After), and
sent again it is stored once. The log says the store went away and came back, once each."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import logging
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from app.webhooks.delivery import Event, check
from app.webhooks.receiver import BackgroundReceiver
from app.webhooks.signature import load_public_key
from app.webhooks.store import POOL_SIZE, EventStore, StoreUnavailable, open_store
from tests.conftest import advance, person_body
from tests.postgres import Postgres
from tests.webhook_helpers import PUBLIC_PEM, delivery, event_body, eventually

# the store's absence is logged, as it should be; a real PostgreSQL stopped and locked: slow
pytestmark = [pytest.mark.allow_warning_logs, pytest.mark.slow]


@pytest.fixture
def store(postgres_database) -> Iterator[EventStore]:
    opened = open_store(postgres_database)
    yield opened
    opened.close()


@pytest.fixture
def receiver(store) -> Iterator[str]:
    running = BackgroundReceiver(store, load_public_key(PUBLIC_PEM))
    yield running.start()
    running.stop()


def send(url: str, bodies: list[dict[str, Any]]) -> list[httpx.Response]:
    """Each body delivered at once from a sender of its own; each answer waited for up to 30
    s: many times the store's bounds, so a delivery left without an answer fails the test."""
    answers: list[httpx.Response | None] = [None] * len(bodies)

    def one(index: int) -> None:
        headers, raw = delivery(bodies[index])
        answers[index] = httpx.post(url, content=raw, headers=headers, timeout=30)

    senders = [threading.Thread(target=one, args=(i,)) for i in range(len(bodies))]
    for sender in senders:
        sender.start()
    for sender in senders:
        sender.join()
    assert all(answer is not None for answer in answers), "a delivery got no answer"
    return [answer for answer in answers if answer is not None]


def stored_ids(store: EventStore) -> list[str]:
    return sorted(event.event_id for event in store.list(limit=10_000))


def store_log(caplog) -> list[tuple[str, str]]:
    return [
        (record.levelname, record.getMessage())
        for record in caplog.records
        if record.name == "partner_desk.webhooks"
    ]


def test_a_restarted_server_costs_nothing_and_the_receiver_goes_on(
    receiver, store, postgres_server: Postgres
):
    before = [event_body() for _ in range(5)]
    assert [a.status_code for a in send(receiver, before)] == [200] * 5
    postgres_server.restart()  # every connection of the pool is gone
    after = [event_body() for _ in range(5)]
    answers = send(receiver, after)
    assert [a.status_code for a in answers] == [200] * 5
    assert {a.json()["result"] for a in answers} == {"stored"}
    assert stored_ids(store) == sorted(b["event_id"] for b in before + after)


def _event(body: dict[str, Any]) -> Event:
    headers, raw = delivery(body)
    return check({k.lower(): v for k, v in headers.items()}, raw, None, dt.datetime.now(dt.UTC))


def test_a_restart_that_broke_every_connection_of_a_full_pool_costs_nothing(
    store, postgres_server: Postgres
):
    """Connections are not checked before use (a round trip a batch): a write that finds
    its connection broken is made again on another, past every broken one the pool holds."""
    with contextlib.ExitStack() as held:  # the pool fills up: each held at once
        for _ in range(POOL_SIZE):
            held.enter_context(store._pool.connection())
    postgres_server.restart()  # every one of them is gone
    events = [_event(event_body()) for _ in range(3)]
    assert store.add(events) == [True, True, True]
    assert stored_ids(store) == sorted(event.event_id for event in events)


def test_while_the_server_is_away_deliveries_are_refused_503_and_stored_once_sent_again(
    receiver, store, postgres_server: Postgres, caplog
):
    caplog.set_level(logging.INFO, logger="partner_desk.webhooks")
    bodies = [event_body() for _ in range(6)]
    with postgres_server.stopped():
        refused = send(receiver, bodies)
    assert [a.status_code for a in refused] == [503] * 6
    assert {a.headers["retry-after"] for a in refused} == {"5"}
    body = refused[0].json()
    assert body["failure_message"] == "The event store is unavailable; send the event again later"
    assert body["detail"]["title"] == "Store unavailable"
    # the senders try again once it is back: each is stored once
    again = send(receiver, bodies)
    assert [a.status_code for a in again] == [200] * 6
    assert {a.json()["result"] for a in again} == {"stored"}
    assert stored_ids(store) == sorted(b["event_id"] for b in bodies)
    # one line when it went away, one when it was back; no traceback, no line per delivery
    lines = store_log(caplog)
    assert len(lines) == 2, lines
    assert lines[0][0] == "WARNING" and "cannot be reached" in lines[0][1]
    assert lines[0][1].endswith("deliveries are answered 503 until it is back")
    assert lines[1][0] == "INFO"
    assert lines[1][1].startswith("the event store is back after ")
    assert lines[1][1].endswith("; 6 deliveries were refused meanwhile")
    assert not any(r.exc_info for r in caplog.records)


def test_a_connection_ended_by_the_server_is_replaced_before_use(
    receiver, store, postgres_server: Postgres, postgres_database
):
    assert send(receiver, [event_body()])[0].status_code == 200
    assert postgres_server.end_connections(postgres_database) >= 1
    body = event_body()
    answer = send(receiver, [body])[0]
    assert answer.status_code == 200 and answer.json()["result"] == "stored"
    assert body["event_id"] in stored_ids(store)


def test_a_table_locked_by_another_session_is_answered_503_within_the_bounds(
    receiver, store, postgres_server: Postgres, postgres_database
):
    bodies = [event_body() for _ in range(18)]
    with postgres_server.locked(postgres_database):
        answers = send(receiver, bodies)  # each answered, none waits without end
    assert [a.status_code for a in answers] == [503] * 18
    assert stored_ids(store) == []
    again = send(receiver, bodies)
    assert [a.status_code for a in again] == [200] * 18
    assert len(stored_ids(store)) == 18


def test_the_events_can_be_read_again_once_the_server_is_back(
    store, postgres_server: Postgres, postgres_database
):
    from app.webhooks.source import EventsSource

    body = event_body(data_id="BACK-1")
    running = BackgroundReceiver(store, load_public_key(PUBLIC_PEM))
    url = running.start()
    try:
        assert send(url, [body])[0].status_code == 200
    finally:
        running.stop()
    source = EventsSource(postgres_database)

    async def read() -> list[str]:
        return [e.data_id or "" for e in await source.events()]

    async def scenario() -> None:
        assert await read() == ["BACK-1"]
        with (
            postgres_server.stopped(),
            pytest.raises(StoreUnavailable, match="cannot be reached"),
        ):
            await read()
        assert await read() == ["BACK-1"]  # the same source: no reopening
        await source.aclose()

    asyncio.run(scenario())


def test_two_receivers_on_one_database_store_each_event_once(postgres_database):
    stores = [open_store(postgres_database), open_store(postgres_database)]
    receivers = [BackgroundReceiver(each, load_public_key(PUBLIC_PEM)) for each in stores]
    urls = [each.start() for each in receivers]
    try:
        bodies = [event_body() for _ in range(20)]
        answers = [send(url, bodies) for url in urls]  # the same deliveries reach both
        for first, second in zip(*answers, strict=True):
            assert first.status_code == second.status_code == 200
            assert {first.json()["result"], second.json()["result"]} == {"stored", "duplicate"}
        events = stores[0].list(limit=100)
        assert sorted(e.event_id for e in events) == sorted(b["event_id"] for b in bodies)
        assert {e.duplicates for e in events} == {1}
    finally:
        for each in receivers:
            each.stop()
        for each in stores:
            each.close()


def test_registration_events_sent_during_an_outage_all_arrive_once(
    sandbox_url, postgres_server: Postgres, postgres_database
):
    """End to end: the sandbox's emitter retries what the receiver refused while its database
    was away, and every event arrives exactly once."""
    advance(sandbox_url, 6)  # other tests' clients end their reviews first, unheard here
    pem = httpx.get(f"{sandbox_url}/_sandbox/webhooks/public-key").text
    store = open_store(postgres_database)
    running = BackgroundReceiver(store, load_public_key(pem.encode()))
    url = running.start()
    subscription = httpx.post(
        f"{sandbox_url}/_sandbox/webhooks/subscriptions",
        json={"url": url, "filter": "private_reg.*", "public_key_pem": pem},
    ).json()
    try:
        references = [f"OUT-{n}" for n in range(10)]
        for reference in references:
            answer = httpx.post(
                f"{sandbox_url}/v2/clients",
                json={
                    "external_reference": reference,
                    "client_type": "PERSON",
                    "person": person_body(70),
                },
                auth=("demo", "demo"),
                headers={"x-partner-code": "t", "x-request-id": reference},
            )
            assert answer.status_code == 200, answer.text
        with postgres_server.stopped():
            advance(sandbox_url, 6)  # the reviews end: ten events go out, each refused
            deliveries = until_settled(sandbox_url, url, attempts=1)
        assert all(d["state"] == "pending" for d in deliveries)
        advance(sandbox_url, 60)  # past the backoff and the Retry-After: sent again
        deliveries = until_settled(sandbox_url, url, attempts=2)
        assert [d["state"] for d in deliveries] == ["delivered"] * 10
        events = store.list(limit=100)
        assert sorted(e.data_id or "" for e in events) == references  # each stored once
        first_attempts = {
            d["event_id"]: d["attempts"][0]["status"] or d["attempts"][0]["error"]
            for d in deliveries
        }
        assert set(first_attempts.values()) <= {503, "timeout"}  # refused, never acknowledged
        # sent again only when its first try's outcome was unknown to the sender: a try that
        # timed out while the store came back may have been stored — then it is counted, once
        assert {e.event_id for e in events if e.duplicates} <= {
            event_id for event_id, first in first_attempts.items() if first == "timeout"
        }
        assert {e.duplicates for e in events} <= {0, 1}
    finally:
        httpx.delete(f"{sandbox_url}/_sandbox/webhooks/subscriptions/{subscription['id']}")
        running.stop()
        store.close()


def until_settled(sandbox_url: str, url: str, *, attempts: int) -> list[dict[str, Any]]:
    """The sandbox's deliveries to ``url`` once each has made ``attempts`` attempts (or is
    delivered): the record of what happened, not a guess at how long it takes."""

    def mine() -> list[dict[str, Any]]:
        found = httpx.get(f"{sandbox_url}/_sandbox/webhooks/deliveries").json()
        return [d for d in found if d["url"] == url]

    eventually(
        lambda: (
            len(mine()) == 10
            and all(len(d["attempts"]) >= attempts or d["state"] == "delivered" for d in mine())
        ),
        timeout=60,
    )
    return sorted(mine(), key=lambda d: json.loads(d["body"])["data"]["id"])
