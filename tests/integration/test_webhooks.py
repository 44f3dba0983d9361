"""Registration webhooks end to end: the sandbox's emitter, the receiver over loopback, and
its store on SQLite and on a real PostgreSQL server."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import logging
import os
import queue
import re
import resource
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from app.core import webhooks as wh
from app.sandbox.app import SandboxSettings
from app.sandbox.server import BackgroundSandbox
from app.webhooks import receiver as receiver_module
from app.webhooks.receiver import BackgroundReceiver, bind
from app.webhooks.signature import load_public_key
from app.webhooks.store import EventStore, open_store
from tests.conftest import Lines, advance, company_body, killed_if_running, person_body
from tests.integration.test_sandbox_connections import closed_by_the_server
from tests.webhook_helpers import PUBLIC_PEM, delivery, event_body, eventually

EXE = str(Path(sys.executable).with_name("partner-desk"))


# ---------------------------------------------------------------- stores


@pytest.fixture(params=["sqlite", "postgresql"])
def store_spec(request, tmp_path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "events.db")
    return request.getfixturevalue("postgres_database")


@pytest.fixture
def store(store_spec) -> Iterator[EventStore]:
    opened = open_store(store_spec)
    yield opened
    opened.close()


@pytest.fixture
def receiver(store) -> Iterator[str]:
    running = BackgroundReceiver(store, load_public_key(PUBLIC_PEM))
    yield running.start()
    running.stop()


def post(url: str, body: Any, **changes: Any) -> httpx.Response:
    headers, raw = delivery(body, **changes)
    return httpx.post(url, content=raw, headers=headers, timeout=10)


def test_a_delivery_is_stored_once_and_a_duplicate_is_counted(receiver, store):
    body = event_body()
    first = post(receiver, body)
    again = post(receiver, body)
    assert first.status_code == again.status_code == 200
    assert (first.json()["result"], again.json()["result"]) == ("stored", "duplicate")
    (event,) = store.list()
    assert event.event_id == body["event_id"] and event.duplicates == 1
    assert event.signature_verified and event.headers["user-agent"] == wh.USER_AGENT


def stored_event(body: dict[str, Any]) -> Any:
    from app.webhooks.delivery import check

    headers, raw = delivery(body, signed=False)
    lower = {name.lower(): value for name, value in headers.items()}
    return check(lower, raw, None, dt.datetime.now(dt.UTC))


def test_a_batch_with_an_event_repeated_stores_it_once_and_counts_each_repeat(store):
    first, second, known = (stored_event(event_body()) for _ in range(3))
    assert store.add([known]) == [True]
    outcome = store.add([first, known, first, second, first, known])
    assert outcome == [True, False, False, True, False, False]
    counted = {event.event_id: event.duplicates for event in store.list()}
    assert counted == {first.event_id: 2, second.event_id: 0, known.event_id: 2}


def test_every_field_of_a_batch_is_stored_as_it_was_checked(store):
    # a batch of every shape of event: a type not in the catalogue with no status, one with
    # no data id, text a database must escape; each column's values go as one list, nulls
    # and flags among them (PostgreSQL), or a value at a time (SQLite)
    from app.webhooks.delivery import check

    bodies = [
        event_body(),
        event_body(event_type="card.captured", data={"amount": 1}),
        event_body(data_id=None, status="active", note='quote " back \\ brace { , } end'),
        event_body(event_type="loan.moved", data={"id": "X-2", "status": "\u00e9t\u00e9"}),
        *(event_body() for _ in range(4)),
    ]
    events = []
    for index, body in enumerate(bodies):
        headers, raw = delivery(body, signed=index % 2 == 0)
        lower = {name.lower(): value for name, value in headers.items()}
        key = load_public_key(PUBLIC_PEM) if index % 2 == 0 else None
        events.append(check(lower, raw, key, dt.datetime.now(dt.UTC)))
    assert (events[1].status, events[2].data_id, events[1].known_type) == (None, None, False)
    assert [e.signature_verified for e in events[:2]] == [True, False]
    assert store.add(events) == [True] * len(events)
    stored = {event.event_id: event for event in store.list()}
    assert stored == {event.event_id: event for event in events}


def test_concurrent_deliveries_with_repeats_are_each_stored_once(receiver, store):
    bodies = [event_body() for _ in range(40)]
    sent = bodies + bodies[:10]  # ten of them twice, at the same time as the rest

    async def deliver_all() -> list[httpx.Response]:
        async with httpx.AsyncClient(timeout=30) as client:

            async def one(body: dict[str, Any]) -> httpx.Response:
                headers, raw = delivery(body)
                return await client.post(receiver, content=raw, headers=headers)

            return await asyncio.gather(*(one(body) for body in sent))

    answers = asyncio.run(deliver_all())
    assert {answer.status_code for answer in answers} == {200}
    results = [answer.json()["result"] for answer in answers]
    assert results.count("stored") == 40 and results.count("duplicate") == 10
    counted = {event.event_id: event.duplicates for event in store.list()}
    assert sorted(counted) == sorted(body["event_id"] for body in bodies)
    assert sum(counted.values()) == 10


def test_a_checked_header_given_twice_is_refused_and_nothing_is_stored(receiver, store):
    body = event_body()
    headers, raw = delivery(body)
    for name, wrong in (("X-Webhook-Signature", "AAAA"), ("X-Webhook-Message-Id", "x")):
        # the valid one last: taken alone, it would verify
        twice = [(n, v) for n, v in headers.items() if n != name]
        twice += [(name, wrong), (name, headers[name])]
        answer = httpx.post(receiver, content=raw, headers=twice, timeout=10)
        assert answer.status_code == 400
        assert answer.json()["failure_message"] == f"{name}: is given more than once"
    assert store.list() == []
    assert post(receiver, body).json()["result"] == "stored"  # alone, it is taken


def test_events_are_listed_by_occurred_at_whatever_their_arrival(receiver, store):
    base = dt.datetime(2026, 5, 1, 12, tzinfo=dt.UTC)
    later = event_body(moment=base + dt.timedelta(seconds=5), status="active")
    earlier = event_body(moment=base, status="done")
    unknown = event_body(event_type="card.captured", moment=base + dt.timedelta(seconds=1))
    for body in (later, earlier, unknown):
        assert post(receiver, body).status_code == 200
    assert [e.event_id for e in store.list()] == [
        earlier["event_id"],
        unknown["event_id"],
        later["event_id"],
    ]
    assert [e.status for e in store.list(event_type="private_reg.status_changed")] == [
        "done",
        "active",
    ]
    assert not store.list(event_type="card.captured")[0].known_type


def test_types_not_in_the_catalogue_are_each_said_once_and_only_so_many(
    tmp_path, caplog, monkeypatch
):
    from app.webhooks import receiver as receiver_module

    monkeypatch.setattr(receiver_module, "UNLISTED_SAID", 3)
    caplog.set_level(logging.INFO, logger="partner_desk.webhooks")
    store = open_store(str(tmp_path / "events.db"))
    running = BackgroundReceiver(store)
    url = running.start()
    try:
        types = ["card.captured", "card.captured", "a.b", "c.d", "e.f", "g.h", "a.b"]
        for event_type in types:
            assert post(url, event_body(event_type=event_type)).status_code == 200
        assert post(url, event_body()).status_code == 200  # in the catalogue: not said
    finally:
        running.stop()
        store.close()
    said = [r.getMessage() for r in caplog.records if r.name == "partner_desk.webhooks"]
    assert said == [
        "Stored an event of a type not in the catalogue: card.captured",
        "Stored an event of a type not in the catalogue: a.b",
        "Stored an event of a type not in the catalogue: c.d",
        "Stored events of more than 3 types not in the catalogue: further types are not said",
    ]
    assert len(events_stored_in(tmp_path)) == len(types) + 1  # every one stored all the same


def events_stored_in(tmp_path: Path) -> list[Any]:
    opened = open_store(str(tmp_path / "events.db"))
    try:
        return opened.list()
    finally:
        opened.close()


def test_a_sender_that_half_closes_after_its_delivery_is_told_it_was_stored(tmp_path):
    """The answer comes after the store's commit, turns after the sender's end of sending
    was read: it is still given (the connection was closed at once, and the sender, told
    nothing, would send again an event that was stored)."""
    store = open_store(str(tmp_path / "events.db"))
    running = BackgroundReceiver(store)
    url = httpx.URL(running.start())
    try:
        headers, raw = delivery(event_body(), signed=False)
        head = f"POST {url.path} HTTP/1.1\r\nHost: x\r\nContent-Length: {len(raw)}\r\n"
        head += "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        with socket.create_connection((url.host, url.port), timeout=30) as sock:
            sock.sendall(head.encode() + b"\r\n" + raw)
            sock.shutdown(socket.SHUT_WR)
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
    finally:
        running.stop()
        store.close()
    status, _, body = answer.partition(b"\r\n\r\n")
    assert status.startswith(b"HTTP/1.1 200 OK\r\n")
    assert json.loads(body)["result"] == "stored"


def test_a_refused_delivery_stores_nothing(receiver, store):
    good = event_body()
    headers, raw = delivery(good)
    tampered = httpx.post(receiver, content=raw.replace(b"done", b"dome"), headers=headers)
    unsigned = post(receiver, event_body(), signed=False)
    malformed = post(receiver, event_body(occurred_at="yesterday"))
    huge = httpx.post(receiver, content=b"x" * (wh.BODY_MAX + 1), headers=headers)
    mismatch = post(receiver, event_body(), X_Webhook_Event_Version="2")
    assert [r.status_code for r in (tampered, unsigned, malformed, huge, mismatch)] == [
        401,
        401,
        400,
        400,
        400,
    ]
    assert malformed.json()["failure_message"].startswith("occurred_at:")
    assert store.count() == 0
    assert httpx.get(receiver).status_code == 405


# ---------------------------------------------------------------- the emitter


@pytest.fixture(scope="module")
def sandbox_url() -> Iterator[str]:
    server = BackgroundSandbox(SandboxSettings(frozen_clock=True, demo_statement_records=0))
    yield server.start()
    server.stop()


def _subscribe(sandbox_url: str, url: str, filter_text: str = "*", signed: bool = True) -> dict:
    """A subscription to the session's sandbox, from a quiet moment: the reviews of clients
    other tests made end first, so that only this test's events reach ``url``."""
    advance(sandbox_url, 6)
    body: dict[str, Any] = {"url": url, "filter": filter_text}
    if signed:
        body["public_key_pem"] = httpx.get(f"{sandbox_url}/_sandbox/webhooks/public-key").text
    answer = httpx.post(f"{sandbox_url}/_sandbox/webhooks/subscriptions", json=body)
    assert answer.status_code == 200, answer.text
    return answer.json()


def _unsubscribe_all(sandbox_url: str) -> None:
    for each in httpx.get(f"{sandbox_url}/_sandbox/webhooks/subscriptions").json():
        httpx.delete(f"{sandbox_url}/_sandbox/webhooks/subscriptions/{each['id']}")


def _client(sandbox_url: str, kind: str = "PERSON", reference: str | None = "EXT-7") -> str:
    body: dict[str, Any] = {"client_type": kind}
    if reference is not None:
        body["external_reference"] = reference
    if kind == "PERSON":
        body["person"] = person_body(88)
    else:
        body["company"] = company_body()
    answer = httpx.post(
        f"{sandbox_url}/v2/clients",
        json=body,
        auth=("demo", "demo"),
        headers={"x-partner-code": "t", "x-request-id": uuid.uuid4().hex},
    )
    assert answer.status_code == 200, answer.text
    return str(answer.json()["id"])


@pytest.fixture
def sandbox_receiver(sandbox_url, tmp_path) -> Iterator[tuple[str, EventStore]]:
    pem = httpx.get(f"{sandbox_url}/_sandbox/webhooks/public-key").text.encode()
    store = open_store(tmp_path / "events.db")
    running = BackgroundReceiver(store, load_public_key(pem))
    url = running.start()
    _subscribe(sandbox_url, url)
    yield url, store
    _unsubscribe_all(sandbox_url)
    running.stop()
    store.close()


def test_registration_changes_arrive_signed_with_every_header_as_written(
    sandbox_url, sandbox_receiver
):
    url, store = sandbox_receiver
    client_id = _client(sandbox_url)
    advance(sandbox_url, 6)  # the review ends: inprogress -> done
    eventually(lambda: store.count() == 1)
    (event,) = store.list()
    assert event.signature_verified
    assert event.event_type == "private_reg.status_changed"
    assert (event.status, event.data_id) == ("done", "EXT-7")
    headers = event.headers
    assert headers["content-type"] == "application/json; charset=utf-8"
    assert headers["user-agent"] == "Core-Webhooks/1.0"
    assert headers["x-webhook-event-version"] == "1"
    assert headers["x-webhook-message-id"] == event.event_id
    assert uuid.UUID(event.event_id).version == 7
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}", headers["x-webhook-timestamp"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", event.occurred_at)
    assert 0 <= int(headers["nonce"]) < 2**63
    body = json.loads(event.body)
    assert set(body) == {"event_id", "event_type", "resource", "action", "occurred_at", "data"}
    # the control call moves it; the same status again is no change and sends nothing
    for status in ("active", "active", "inprogress"):
        httpx.post(f"{sandbox_url}/_sandbox/clients/{client_id}/status", json={"status": status})
    eventually(lambda: store.count() == 3)
    # the sandbox's record of what it sent: three messages in all, each delivered
    assert [d["state"] for d in _deliveries(sandbox_url, url)] == ["delivered"] * 3
    assert [e.status for e in store.list()] == ["done", "active", "inprogress"]


def test_companies_emit_corp_reg_and_data_id_is_omitted_without_a_reference(
    sandbox_url, sandbox_receiver
):
    _url, store = sandbox_receiver
    _client(sandbox_url, "COMPANY", reference="CORP-1")
    v1 = httpx.post(  # a version 1 client has no external reference
        f"{sandbox_url}/v1/clients",
        json={"client_type": "PERSON", "client": person_body(89)},
        auth=("demo", "demo"),
        headers={"x-partner-code": "t", "x-request-id": uuid.uuid4().hex},
    )
    assert v1.status_code == 200, v1.text
    advance(sandbox_url, 6)
    eventually(lambda: store.count() == 2)
    by_type = {event.event_type: event for event in store.list()}
    assert by_type["corp_reg.status_changed"].data_id == "CORP-1"
    person = by_type["private_reg.status_changed"]
    assert person.data_id is None and "id" not in json.loads(person.body)["data"]


def test_each_subscription_gets_its_own_message_and_the_filter_chooses(sandbox_url, tmp_path):
    stores = [open_store(tmp_path / f"s{index}.db") for index in range(3)]
    receivers = [BackgroundReceiver(store) for store in stores]
    urls = [each.start() for each in receivers]
    try:
        _subscribe(sandbox_url, urls[0], "*", signed=False)
        _subscribe(sandbox_url, urls[1], "*.status_changed", signed=False)
        _subscribe(sandbox_url, urls[2], "corp_reg.*", signed=False)
        _client(sandbox_url)
        advance(sandbox_url, 6)
        eventually(lambda: stores[0].count() == 1 and stores[1].count() == 1)
        # a subscription is chosen when the event is emitted: none was made for the third
        assert _deliveries(sandbox_url, urls[2]) == []
        assert stores[2].count() == 0
        first, second = stores[0].list()[0], stores[1].list()[0]
        assert first.event_id != second.event_id
        assert "x-webhook-signature" not in first.headers and not first.signature_verified
        refused = httpx.post(
            f"{sandbox_url}/_sandbox/webhooks/subscriptions",
            json={"url": urls[0], "filter": "a.b.c"},
        )
        assert refused.status_code == 400
    finally:
        _unsubscribe_all(sandbox_url)
        for each in receivers:
            each.stop()
        for store in stores:
            store.close()


# ---------------------------------------------------------------- retries


class ScriptedReceiver:
    """Answers each delivery with the next scripted status (or waits: "slow")."""

    def __init__(self, script: list[Any]) -> None:
        self.script = list(script)
        self.seen: list[tuple[dict[str, str], bytes]] = []

        async def receive(request: Request) -> Response:
            self.seen.append((dict(request.headers), await request.body()))
            step = self.script.pop(0) if self.script else 200
            if step == "slow":
                await asyncio.sleep(3)
                step = 200
            status, headers = step if isinstance(step, tuple) else (step, {})
            return Response("ok", status_code=status, headers=headers)

        self._sock = bind("127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}/hook"
        app = Starlette(routes=[Route("/hook", receive, methods=["POST"])])
        self._server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        self._thread = threading.Thread(
            target=lambda: asyncio.run(self._server.serve(sockets=[self._sock])), daemon=True
        )
        self._thread.start()
        eventually(lambda: self._server.started)

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(5)


def _default_retry_settings(sandbox_url: str) -> None:
    """The sandbox's retry settings as it starts, for the tests after one that changed them."""
    httpx.post(
        f"{sandbox_url}/_sandbox/webhooks/settings",
        json={"base_seconds": 1, "exponent": 2, "max_attempts": 5, "timeout_seconds": 5},
    )


def _deliveries(sandbox_url: str, url: str) -> list[dict[str, Any]]:
    found = httpx.get(f"{sandbox_url}/_sandbox/webhooks/deliveries").json()
    return [d for d in found if d["url"] == url]


@pytest.mark.allow_warning_logs
@pytest.mark.slow
def test_retries_on_500_429_408_and_timeouts_with_backoff_then_never_on_404(sandbox_url):
    settings = {"base_seconds": 2, "exponent": 3, "max_attempts": 6, "timeout_seconds": 0.5}
    assert httpx.post(f"{sandbox_url}/_sandbox/webhooks/settings", json=settings).json() == {
        "base_seconds": 2.0,
        "exponent": 3.0,
        "max_attempts": 6,
        "timeout_seconds": 0.5,
    }
    scripted = ScriptedReceiver([500, 429, 408, "slow", 503, 200])
    try:
        _subscribe(sandbox_url, scripted.url, signed=True)
        _client(sandbox_url)
        advance(sandbox_url, 5)
        eventually(lambda: len(scripted.seen) == 1)
        waits = [2, 6, 18, 54, 162]  # base * exponent^(attempt-1), on the sandbox's clock
        for number, wait in enumerate(waits, start=2):
            eventually(
                lambda n=number: (
                    len(_deliveries(sandbox_url, scripted.url)[0]["attempts"]) == n - 1
                    and _deliveries(sandbox_url, scripted.url)[0]["next_try"] is not None
                )
            )
            now = advance(sandbox_url, wait - 0.5)["now"]
            (record,) = _deliveries(sandbox_url, scripted.url)
            assert len(record["attempts"]) == number - 1  # not before its time
            assert dt.datetime.fromisoformat(record["next_try"]) > dt.datetime.fromisoformat(now)
            advance(sandbox_url, 0.5)
            eventually(lambda n=number: len(scripted.seen) >= n, timeout=10)
        eventually(lambda: _deliveries(sandbox_url, scripted.url)[0]["state"] == "delivered")
        (record,) = _deliveries(sandbox_url, scripted.url)
        assert [a["status"] for a in record["attempts"]] == [500, 429, 408, None, 503, 200]
        assert record["attempts"][3]["error"] == "timeout"
        ids = {headers["x-webhook-message-id"] for headers, _ in scripted.seen}
        bodies = {body for _, body in scripted.seen}
        nonces = [headers["nonce"] for headers, _ in scripted.seen]
        assert len(ids) == 1 and len(bodies) == 1 and len(set(nonces)) == len(nonces)
    finally:
        _unsubscribe_all(sandbox_url)
        scripted.stop()
    permanent = ScriptedReceiver([404])
    try:
        _subscribe(sandbox_url, permanent.url, signed=False)
        _client(sandbox_url)
        advance(sandbox_url, 5)
        eventually(lambda: _deliveries(sandbox_url, permanent.url)[0]["state"] == "abandoned")
        (record,) = _deliveries(sandbox_url, permanent.url)
        assert record["next_try"] is None and len(record["attempts"]) == 1  # never retried
        assert len(permanent.seen) == 1
    finally:
        _unsubscribe_all(sandbox_url)
        permanent.stop()
        _default_retry_settings(sandbox_url)


def test_a_retry_after_is_waited_for_before_the_next_attempt(sandbox_url):
    # the receiver's store is away: 503 and Retry-After 30, past the first backoff of 1 s
    busy = ScriptedReceiver([(503, {"Retry-After": "30"}), (503, {"Retry-After": "x"}), 200])
    try:
        _subscribe(sandbox_url, busy.url, signed=False)
        _client(sandbox_url)
        advance(sandbox_url, 5)
        eventually(lambda: len(_deliveries(sandbox_url, busy.url)[0]["attempts"]) == 1)
        now = advance(sandbox_url, 29)["now"]  # within the 30 s asked for
        (record,) = _deliveries(sandbox_url, busy.url)
        assert len(record["attempts"]) == 1
        assert dt.datetime.fromisoformat(record["next_try"]) > dt.datetime.fromisoformat(now)
        advance(sandbox_url, 1.5)
        eventually(lambda: len(_deliveries(sandbox_url, busy.url)[0]["attempts"]) == 2)
        # a Retry-After that is no number of seconds is the usual backoff (2 s after two)
        advance(sandbox_url, 2)
        eventually(lambda: _deliveries(sandbox_url, busy.url)[0]["state"] == "delivered")
        statuses = [a["status"] for a in _deliveries(sandbox_url, busy.url)[0]["attempts"]]
        assert statuses == [503, 503, 200]
    finally:
        _unsubscribe_all(sandbox_url)
        busy.stop()


def test_attempts_stop_at_the_limit(sandbox_url):
    httpx.post(
        f"{sandbox_url}/_sandbox/webhooks/settings",
        json={"base_seconds": 1, "exponent": 1, "max_attempts": 3, "timeout_seconds": 1},
    )
    failing = ScriptedReceiver([500] * 10)
    try:
        _subscribe(sandbox_url, failing.url, signed=False)
        _client(sandbox_url)
        advance(sandbox_url, 5)
        for done in range(1, 4):
            eventually(
                lambda n=done: len(_deliveries(sandbox_url, failing.url)[0]["attempts"]) == n
            )
            advance(sandbox_url, 1)
        eventually(lambda: _deliveries(sandbox_url, failing.url)[0]["state"] == "abandoned")
        assert len(failing.seen) == 3
    finally:
        _unsubscribe_all(sandbox_url)
        failing.stop()
        _default_retry_settings(sandbox_url)


# ---------------------------------------------------------------- kill -9


def _serve(
    db: str, *options: str, files: int | None = None, group: bool = False
) -> tuple[subprocess.Popen[str], str]:
    """The receiver in a process of its own (allowed ``files`` open files, if given; in a
    process group of its own, as a terminal's, with ``group``)."""

    def limited() -> None:
        _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (files, hard))

    process = subprocess.Popen(
        [EXE, "webhooks", "serve", "--port", "0", "--db", db, *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=None if files is None else limited,
        start_new_session=group,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    match = re.fullmatch(r"Webhook receiver listening on (http://\S+)\n", line)
    assert match, (line, process.stderr.read() if process.poll() is not None else "")
    return process, match.group(1)


def a_delivery_is_stored(url: str) -> bool:
    """A sender's delivery, past whatever else holds the receiver's connections, is stored."""
    answer = post(url, event_body(event_type="parcel.arrived"), signed=False)
    return answer.status_code == 200 and answer.json()["result"] == "stored"


def test_connections_past_the_files_a_receiver_may_open_never_keep_deliveries_out(tmp_path):
    """A burst of connections that send nothing, more than the receiver may open files: the
    longest waiting make room, so a delivery after them is stored; the receiver never runs
    out of files (asyncio would log a traceback per try, thousands a second)."""
    process, url = _serve(str(tmp_path / "events.db"), files=512)
    host, port = url.removeprefix("http://").split("/")[0].split(":")
    idle: list[socket.socket] = []
    try:
        for _ in range(1_200):
            idle.append(socket.create_connection((host, int(port)), timeout=30))
        slow = socket.create_connection((host, int(port)), timeout=30)
        idle.append(slow)  # a head and part of a body, then nothing: waiting for its client
        slow.sendall(b"POST /webhooks HTTP/1.1\r\nHost: r\r\nContent-Length: 100\r\n\r\n{")
        assert a_delivery_is_stored(url)
    finally:
        for sock in idle:
            sock.close()
        process.terminate()
        _out, errors = process.communicate(timeout=30)
    assert "out of system resource" not in errors
    assert "Too many open files" not in errors


def test_connections_sending_a_body_slowly_make_room_for_deliveries(tmp_path, monkeypatch):
    """A head, then one byte of the body and nothing more: such connections wait on their
    client as idle ones do, and past the limit the longest waiting makes room."""
    monkeypatch.setattr(receiver_module, "MAX_CONNECTIONS", 20)
    store = open_store(str(tmp_path / "events.db"))
    running = BackgroundReceiver(store)
    url = running.start()
    host, port = url.removeprefix("http://").split("/")[0].split(":")
    slow: list[socket.socket] = []
    try:
        for _ in range(60):
            sock = socket.create_connection((host, int(port)), timeout=30)
            slow.append(sock)
            sock.sendall(b"POST /webhooks HTTP/1.1\r\nHost: r\r\nContent-Length: 100\r\n\r\n{")
        assert a_delivery_is_stored(url)
        assert closed_by_the_server(slow[0])  # the longest waiting was closed, unanswered
    finally:
        for sock in slow:
            sock.close()
        running.stop()
        store.close()


@contextlib.contextmanager
def _readers_that_stopped_reading(
    running: BackgroundReceiver, url: str, count: int
) -> Iterator[Callable[[], int]]:
    """``count`` connections, one after the other, each sending requests and reading none
    of the answers (each a 405 that repeats a 15,000-character method) until the receiver's
    answers to it wait on it; gives how many of its connections wait so. Requests go on
    until then, however many: the kernel's send buffer, which grows as it sees fit, took
    all the answers to a fixed number of them now and then, and nothing waited."""
    host, port = url.removeprefix("http://").split("/")[0].split(":")
    requests = (b"X" * 15_000 + b" /webhooks HTTP/1.1\r\nHost: r\r\n\r\n") * 16
    connections = running._runner.server.server_state.connections  # type: ignore[union-attr]

    def stalled() -> int:
        return sum(connection._stall_timer is not None for connection in connections)

    readers: list[socket.socket] = []
    try:
        for number in range(1, count + 1):  # each stalled before the next comes
            sock = socket.socket()
            readers.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 536)  # a small window
            sock.connect((host, int(port)))
            sock.setblocking(False)
            at, deadline = 0, time.monotonic() + 30
            while stalled() < number and time.monotonic() < deadline:
                try:  # the requests over and over, each whole
                    at = (at + sock.send(requests[at : at + 65536])) % len(requests)
                except BlockingIOError:  # the receiver reads no more: its answers wait
                    time.sleep(0.01)
        yield stalled
    finally:
        for sock in readers:
            sock.close()


def test_connections_that_stop_reading_their_answers_make_room_for_deliveries(
    tmp_path, monkeypatch
):
    """Connections that read none of their answers: those wait on them, as a head or a body
    does, and past the limit the longest waiting makes room (they used to count as being
    answered, and every new connection was closed)."""
    monkeypatch.setattr(receiver_module, "MAX_CONNECTIONS", 4)
    store = open_store(str(tmp_path / "events.db"))
    running = BackgroundReceiver(store)
    url = running.start()
    try:
        with _readers_that_stopped_reading(running, url, 4) as stalled:
            assert stalled() == 4  # as many as the limit: the delivery makes five
            assert a_delivery_is_stored(url)
    finally:
        running.stop()
        store.close()


def test_a_stop_waits_for_no_reader_that_stopped_reading(tmp_path):
    """A stop lets go at once of the connections whose answers wait on readers that stopped
    taking them: its grace is for answers under way, and those would only run it out."""
    store = open_store(str(tmp_path / "events.db"))
    running = BackgroundReceiver(store)
    url = running.start()
    cancelled = Lines()
    uvicorn_log = logging.getLogger("uvicorn.error")  # configured by the server: heard after
    uvicorn_log.addHandler(cancelled)
    try:
        with _readers_that_stopped_reading(running, url, 2) as stalled:
            assert stalled() == 2
            running.stop(timeout=30)
    finally:
        uvicorn_log.removeHandler(cancelled)
        store.close()
    assert not [line for line in cancelled.lines if "timeout graceful shutdown" in line]


def test_a_receiver_killed_mid_stream_loses_nothing_it_acknowledged(store_spec):
    process, url = _serve(store_spec)
    acknowledged: list[str] = []
    stop = threading.Event()

    def sender() -> None:
        with httpx.Client(timeout=5) as client:
            while not stop.is_set():
                headers, raw = delivery(event_body(), signed=False)
                try:
                    answer = client.post(url, content=raw, headers=headers)
                except httpx.HTTPError:
                    return  # the receiver is gone
                if answer.status_code == 200:
                    acknowledged.append(json.loads(raw)["event_id"])

    senders = [threading.Thread(target=sender) for _ in range(8)]
    for each in senders:
        each.start()
    eventually(lambda: len(acknowledged) >= 50, timeout=20)
    os.kill(process.pid, signal.SIGKILL)
    # the senders stop before the receiver's copy is awaited: a copy ends its open
    # connections' requests before it ends, and senders posting on would keep it serving
    stop.set()
    for each in senders:
        each.join(10)
    process.communicate(timeout=30)  # a bound, not a measure
    store = open_store(store_spec)
    try:
        stored = {e.event_id for e in store.list(limit=10_000)}
    finally:
        store.close()
    assert set(acknowledged) <= stored
    assert len(acknowledged) >= 50


def test_two_receiver_processes_share_the_port_and_store_each_event_once(store_spec):
    process, url = _serve(store_spec, "--workers", "2")
    try:
        (copy,) = psutil.Process(process.pid).children()
        # a type not in the catalogue is said once by each process that took one; each event
        # is sent twice, each time on a connection of its own, so the first process hands
        # them to both processes
        bodies = [event_body(event_type="parcel.arrived", data_id=f"W-{n}") for n in range(40)]
        first = [post(url, body, signed=False) for body in bodies]
        again = [post(url, body, signed=False) for body in bodies]
    finally:
        process.terminate()
        _out, errors = process.communicate(timeout=30)
    assert [answer.json()["result"] for answer in first] == ["stored"] * 40
    assert [answer.json()["result"] for answer in again] == ["duplicate"] * 40
    assert not copy.is_running()  # the copy ended with the first process
    stored_by = re.findall(r"webhooks (\[worker 2\] )?INFO Stored an event", errors)
    assert sorted(stored_by) == ["", "[worker 2] "]  # both processes took deliveries
    store = open_store(store_spec)
    try:
        events = store.list(limit=1000)
    finally:
        store.close()
    assert sorted(event.data_id or "" for event in events) == sorted(f"W-{n}" for n in range(40))
    assert {event.duplicates for event in events} == {1}


def test_the_receivers_copy_ends_when_the_first_process_is_killed(tmp_path):
    process, _url = _serve(str(tmp_path / "events.db"), "--workers", "2")
    (copy,) = psutil.Process(process.pid).children()
    os.kill(process.pid, signal.SIGKILL)
    process.communicate(timeout=30)  # its output ends once the copy, which shares it, ends
    copy.wait(timeout=30)
    assert not copy.is_running()


def _peers(of: psutil.Process) -> set[tuple[str, int]]:
    """The client ends of the process's connections."""
    return {tuple(c.raddr) for c in of.net_connections() if c.raddr}


def _settled_connection(url: str, then: bytes = b"") -> socket.socket:
    """A keep-alive connection to the receiver, answered once: it is where it stays (the
    first process hands a connection over before it reads anything of it). ``then``, sent
    in the same write, is read by the server before the answer has left it (h11 reads what
    follows an answered request as soon as the answer is complete)."""
    host, port = url.removeprefix("http://").split("/")[0].split(":")
    sock = socket.create_connection((host, int(port)), timeout=30)
    sock.sendall(b"GET /health HTTP/1.1\r\nHost: r\r\n\r\n" + then)
    answer = b""
    while not answer.endswith(b'{"result": "ok"}'):
        received = sock.recv(4096)
        assert received, answer
        answer += received
    assert answer.startswith(b"HTTP/1.1 200 "), answer
    return sock


@contextlib.contextmanager
def _body_held_back_on_the_first(
    process: subprocess.Popen[str], url: str
) -> Iterator[list[socket.socket]]:
    """Connections to a receiver (of one or two processes), the last sending a head and a
    byte of its body to the first process, then nothing (those handed to the copy are
    closed); closed at the end, and the receiver killed if it still runs."""
    first = psutil.Process(process.pid)
    copies = first.children()  # none with one process

    def on_the_first_alone(sock: socket.socket) -> bool:
        # the copy's if the copy has it: the first process closes its descriptor of a
        # connection just after handing it over, so for a moment (longer if it is then
        # preempted, and the copy answers meanwhile) both have it
        return sock.getsockname() in _peers(first).difference(*map(_peers, copies))

    held: list[socket.socket] = []
    try:
        while not held or not on_the_first_alone(held[-1]):
            if held:
                held.pop().close()  # the copy's: it would hold the copy's stop as well
            # the head read before the stop can come: a connection whose request is not read
            # yet is closed at once by a stop, not waited for
            head = b"POST /webhooks HTTP/1.1\r\nHost: r\r\nContent-Length: 100\r\n\r\n{"
            held.append(_settled_connection(url, then=head))
        yield held
    finally:
        for sock in held:
            sock.close()
        killed_if_running(process)


def test_two_receiver_processes_take_connections_in_turn_and_one_closed_makes_room(tmp_path):
    """The first process hands each connection to the process with the fewest open: eight
    are split four and four (the kernel's hash, SO_REUSEPORT, split 32 as 21/11); once the
    copy's four are closed, the next four all go to the copy."""
    process, url = _serve(str(tmp_path / "events.db"), "--workers", "2")
    first = psutil.Process(process.pid)
    (copy,) = first.children()
    held: list[socket.socket] = []
    try:
        held += [_settled_connection(url) for _ in range(8)]
        on_copy = [sock for sock in held if sock.getsockname() in _peers(copy)]
        assert len(on_copy) == 4
        # the first's alone: a connection just handed over may still be open here a moment
        on_first = _peers(first) - _peers(copy)
        assert sum(sock.getsockname() in on_first for sock in held) == 4
        gone = {sock.getsockname() for sock in on_copy}
        for sock in on_copy:
            held.remove(sock)
            sock.close()
        eventually(lambda: not gone & _peers(copy), timeout=30)  # the copy closed its ends
        more = [_settled_connection(url) for _ in range(4)]
        held += more
        assert {sock.getsockname() for sock in more} <= _peers(copy)
    finally:
        for sock in held:
            sock.close()
        process.terminate()
        process.communicate(timeout=30)
    assert process.returncode == 0


def test_no_other_program_can_join_the_port_of_a_receiver_of_several_processes(tmp_path):
    """Shared with SO_REUSEPORT, the port could be joined by any program of the same user,
    which would then take a share of the deliveries; the first process holds it alone."""
    process, url = _serve(str(tmp_path / "events.db"), "--workers", "2")
    try:
        port = int(url.removeprefix("http://").split("/")[0].split(":")[1])
        with socket.socket() as intruder:
            intruder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            intruder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            with pytest.raises(OSError, match="Address already in use"):
                intruder.bind(("127.0.0.1", port))
    finally:
        process.terminate()
        process.communicate(timeout=30)


def test_a_stop_ends_the_copies_at_once_while_the_first_process_waits(tmp_path):
    """SIGTERM while a sender holds a body back on the first process: that process waits
    for it, and its copy, told at once, has ended meanwhile — it used to take deliveries
    until the first process was done. The grace is long, so that the first still waits
    however slowly the copy ends on a loaded machine (its end of grace: the next test)."""
    process, url = _serve(str(tmp_path / "events.db"), "--workers", "2", "--grace", "600")
    (copy,) = psutil.Process(process.pid).children()
    with _body_held_back_on_the_first(process, url) as held:
        stopped = time.monotonic()
        process.terminate()
        copy.wait(timeout=30)
        copy_ended = time.monotonic() - stopped
        held[-1].setblocking(False)
        try:
            early = held[-1].recv(1000)
        except BlockingIOError:  # neither answered nor closed: still waited for
            early = None
        held[-1].close()  # the sender goes away: nothing is left to wait for
        _out, errors = process.communicate(timeout=30)
    assert early is None, f"{early!r} {copy_ended:.2f} s after the stop, the copy ended; {errors}"
    assert "Traceback" not in errors
    assert process.returncode == 0


@pytest.mark.parametrize(("workers", "grace"), [("1", "0"), ("2", "0.5")])
def test_a_stop_answers_what_its_grace_cut_short_503_and_ends(tmp_path, workers, grace):
    """A body held back past the stop's grace: its delivery is answered 503, to be sent
    again (never acknowledged), and the receiver ends with status 0."""
    db = str(tmp_path / "events.db")
    process, url = _serve(db, "--workers", workers, "--grace", grace)
    with _body_held_back_on_the_first(process, url) as held:
        process.terminate()
        held[-1].settimeout(30)
        answer = held[-1].recv(1000)
        _out, errors = process.communicate(timeout=30)
    assert answer.startswith(b"HTTP/1.1 503 "), answer
    assert b"\r\nretry-after: " in answer.lower(), answer
    assert "Traceback" not in errors
    assert process.returncode == 0
    store = open_store(db)
    try:
        assert store.count() == 0
    finally:
        store.close()


def test_a_grace_of_0_stops_at_once_and_says_nothing_when_nothing_is_under_way(tmp_path):
    process, _url = _serve(str(tmp_path / "events.db"), "--workers", "2", "--grace", "0")
    process.terminate()
    _out, errors = process.communicate(timeout=30)
    assert (process.returncode, errors) == (0, "")  # not "Cancel 0 running task(s)"


def test_a_stop_while_the_receiver_waits_for_its_store_ends_it_before_it_listens(tmp_path):
    """SIGTERM while the receiver starts (here: waiting for another program's lock on its
    store) is a request to stop like any other: status 0, and it never listens. It used
    to end the default way (-15), its signals taken only once the store was open."""
    db = tmp_path / "events.db"
    holder = sqlite3.connect(db, isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")  # another program writing: the receiver waits
        process = subprocess.Popen(
            [EXE, "webhooks", "serve", "--port", "0", "--db", str(db), "--workers", "2"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        starting = psutil.Process(process.pid)
        deadline = time.monotonic() + 60  # a bound: the store is opened within a second
        # its store open (and waited for, as long as the lock is held): it is starting
        while str(db) not in {f.path for f in starting.open_files()}:
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.01)
        process.send_signal(signal.SIGTERM)
    finally:
        with contextlib.suppress(sqlite3.Error):
            holder.execute("ROLLBACK")
        holder.close()
    out, errors = process.communicate(timeout=60)
    assert (process.returncode, out) == (0, "")
    assert "Traceback" not in errors


@pytest.mark.parametrize("sign", [signal.SIGTERM, signal.SIGINT])
def test_signals_sent_over_and_over_while_it_stops_still_end_it_with_status_0(tmp_path, sign):
    """A stop asked for again and again (an impatient operator, a supervisor's retries):
    the first is the stop, the others change nothing — the handlers used to be given back
    at the end, and one landing then ended the receiver with -15 (or -2)."""
    process, _url = _serve(str(tmp_path / "events.db"), "--workers", "2")
    deadline = time.monotonic() + 60
    while process.poll() is None:
        assert time.monotonic() < deadline
        process.send_signal(sign)
        time.sleep(0.002)
    _out, errors = process.communicate(timeout=30)
    assert process.returncode == 0
    assert "Traceback" not in errors


def test_ctrl_c_in_its_terminal_stops_every_process_as_asked_and_says_nothing_of_it(tmp_path):
    """Ctrl-C reaches the whole process group: the copy ends on it at once while the first
    waits for a body held back, and that is the stop asked for, not a copy "ended on its
    own"."""
    process, url = _serve(str(tmp_path / "events.db"), "--workers", "2", group=True)
    with _body_held_back_on_the_first(process, url):
        os.killpg(process.pid, signal.SIGINT)
        _out, errors = process.communicate(timeout=30)
    assert process.returncode == 0
    assert "ended on its own" not in errors


UNREADABLE = "The request could not be read as HTTP/1.1"


@pytest.mark.parametrize(
    ("sent", "said"),
    [
        (b"POST /webhooks HTTP/1.1\r\nContent-Length: -1\r\n\r\n", UNREADABLE),
        # a head read, its app answering at once, then a garbled body: the app's answer
        # came after the 400 and raised in h11, a traceback each time
        (
            b"POST /elsewhere HTTP/1.1\r\nHost: r\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n",
            UNREADABLE,
        ),
        # framed one way by a proxy and another by h11: closed, not read on
        (
            b"POST /webhooks HTTP/1.1\r\nHost: r\r\nContent-Length: 5\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            f"{UNREADABLE}: Content-Length and Transfer-Encoding are both given; give one",
        ),
    ],
)
def test_what_is_not_http_is_refused_in_the_error_shape(tmp_path, sent, said):
    store = open_store(str(tmp_path / "events.db"))
    running = BackgroundReceiver(store)
    url = running.start()
    heard = Lines()
    uvicorn_log = logging.getLogger("uvicorn.error")
    uvicorn_log.addHandler(heard)
    answers = []
    try:
        host, port = url.removeprefix("http://").split("/")[0].split(":")
        for _ in range(5):
            with socket.create_connection((host, int(port)), timeout=30) as sock:
                sock.sendall(sent)
                answer = b""
                while chunk := sock.recv(65536):
                    answer += chunk
                answers.append(answer)
    finally:
        running.stop()  # what its tasks log, they have logged by then
        uvicorn_log.removeHandler(heard)
        store.close()
    for answer in answers:
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 400 ") and b"application/json" in head
        refusal = json.loads(body)
        assert refusal["failure_message"] == said
        assert refusal["detail"]["title"] == "Invalid delivery"
    assert not [line for line in heard.lines if "Exception" in line or "Traceback" in line]


def test_a_second_ctrl_c_ends_the_stop_at_once_and_says_no_fault(tmp_path):
    """The first Ctrl-C waits for a body held back (a bounded grace); a second one ends the
    wait at once, as uvicorn does: what was cut is not acknowledged, and the forced end is
    not logged as a fault of the app with a traceback (it used to be, from the lifespan)."""
    process, url = _serve(str(tmp_path / "events.db"))
    host, port = url.removeprefix("http://").split("/")[0].split(":")
    held = socket.create_connection((host, int(port)), timeout=30)
    try:
        held.sendall(b"POST /webhooks HTTP/1.1\r\nHost: r\r\nContent-Length: 100\r\n\r\n{")
        assert a_delivery_is_stored(url)  # serving, the held request under way
        process.send_signal(signal.SIGINT)

        def refusing() -> bool:  # the stop has begun: no new connection is taken
            try:
                socket.create_connection((host, int(port)), timeout=30).close()
            except ConnectionRefusedError:
                return True
            return False

        eventually(refusing)
        process.send_signal(signal.SIGINT)
        _out, errors = process.communicate(timeout=30)  # a bound: the grace is not waited out
        with contextlib.suppress(ConnectionResetError):  # closed with its byte unread
            assert not held.recv(100).startswith(b"HTTP/1.1 200")  # cut, never acknowledged
    finally:
        held.close()
        killed_if_running(process)
    assert process.returncode == 0
    assert "Traceback" not in errors and "lifespan" not in errors


def _log_line(process: subprocess.Popen[str], text: str) -> str:
    """The receiver's first log line holding ``text`` (the log is read on a thread of its
    own, so that a line never said fails the test within a bound instead of hanging it)."""
    lines: queue.Queue[str] = queue.Queue()
    stream = process.stderr
    assert stream is not None

    def read() -> None:
        with contextlib.suppress(ValueError, OSError):  # closed by communicate() at the end
            for line in stream:
                lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    while True:
        try:
            line = lines.get(timeout=60)  # a bound, not a measure
        except queue.Empty:
            raise AssertionError(f"the receiver said nothing with {text!r}") from None
        if text in line:
            return line


def test_a_copy_killed_on_its_own_is_said_and_the_first_process_serves_on(tmp_path):
    process, url = _serve(str(tmp_path / "events.db"), "--workers", "2")
    try:
        (copy,) = psutil.Process(process.pid).children()
        copy.kill()
        copy.wait(timeout=30)
        said = _log_line(process, "worker 2 ended")
        assert said.rstrip().endswith(
            "webhooks WARNING worker 2 ended on its own (killed by SIGKILL): the others serve on"
        )
        answers = [post(url, event_body(), signed=False).status_code for _ in range(5)]
        assert answers == [200] * 5  # the first process alone, on the same port
    finally:
        process.terminate()
        process.communicate(timeout=30)
    assert process.returncode == 0


def test_a_stop_asked_for_while_the_copies_start_ends_every_process_at_once(tmp_path):
    # SIGTERM as soon as the copy exists: before either serves, or as they begin. It used to
    # be raised inside logging's fork hooks, lost, and the receiver served on.
    command = [EXE, "webhooks", "serve", "--port", "0", "--db", str(tmp_path / "e.db")]
    process = subprocess.Popen(
        [*command, "--workers", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children")
    deadline = time.monotonic() + 60  # a bound, not a measure: the fork comes in milliseconds
    # read without pause, so that the signal lands while the fork itself is finishing; the
    # copy's fork is final: this cannot miss it
    while not children.read_text() and process.poll() is None and time.monotonic() < deadline:
        pass
    copies = psutil.Process(process.pid).children()
    assert copies, "the receiver forked no copy"
    process.send_signal(signal.SIGTERM)
    _out, errors = process.communicate(timeout=30)
    assert process.returncode == 0
    assert "Exception" not in errors and "Traceback" not in errors
    for copy in copies:
        assert not copy.is_running()


def test_a_port_another_receiver_listens_on_is_refused_not_shared(tmp_path):
    process, url = _serve(str(tmp_path / "a.db"), "--workers", "2")
    try:
        port = url.split(":")[2].split("/")[0]
        command = [EXE, "webhooks", "serve", "--port", port, "--db", str(tmp_path / "b.db")]
        second = subprocess.run(
            [*command, "--workers", "2"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        process.terminate()
        process.communicate(timeout=30)
    assert second.returncode == 1
    assert second.stderr.startswith(f"partner-desk webhooks: cannot listen on 127.0.0.1:{port}:")
    assert "Address already in use" in second.stderr


def test_a_store_that_cannot_be_opened_is_said_in_one_line(tmp_path):
    folder = tmp_path / "a-folder.db"
    folder.mkdir()
    for command in (["serve", "--port", "0"], ["list"]):
        result = subprocess.run(
            [EXE, "webhooks", *command, "--db", str(folder)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 1
        assert result.stderr.startswith(
            f"partner-desk webhooks: cannot open the event store {folder}"
        )
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_listing_a_store_that_is_not_there_creates_nothing(tmp_path):
    missing = tmp_path / "no-folder" / "events.db"
    result = subprocess.run(
        [EXE, "webhooks", "list", "--db", str(missing)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert result.stderr == f"partner-desk webhooks: there is no event store at {missing}\n"
    assert not missing.parent.exists()


def test_listing_before_anything_was_received_lists_nothing_and_creates_nothing(tmp_path):
    home = {**os.environ, "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}
    result = subprocess.run(
        [EXE, "webhooks", "list"], capture_output=True, text=True, timeout=60, env=home
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert list(tmp_path.rglob("*.db")) == []


@pytest.mark.parametrize("grace", ["-1", "3601", "nan", "3600.0001"])
def test_a_grace_out_of_range_is_refused_before_anything_is_made(tmp_path, grace):
    db = tmp_path / "e.db"
    result = subprocess.run(
        [EXE, "webhooks", "serve", "--port", "0", "--db", str(db), "--grace", grace],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"partner-desk webhooks: --grace must be from 0 to 3600 seconds, not {grace}\n"
    )
    assert not db.exists()


@pytest.mark.parametrize("workers", ["0", "17"])
def test_a_number_of_workers_out_of_range_is_refused(tmp_path, workers):
    command = [EXE, "webhooks", "serve", "--port", "0", "--db", str(tmp_path / "e.db")]
    result = subprocess.run(
        [*command, "--workers", workers],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr == (
        f"partner-desk webhooks: --workers must be from 1 to 16, not {workers}\n"
    )


def test_the_cli_lists_what_the_receiver_stored(tmp_path):
    db = str(tmp_path / "cli.db")
    process, url = _serve(db)
    try:
        body = event_body(data_id="CLI-1")
        assert post(url, body, signed=False).status_code == 200
    finally:
        process.terminate()
        process.communicate(timeout=10)
    listed = subprocess.run(
        [EXE, "webhooks", "list", "--db", db, "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    (line,) = listed.stdout.splitlines()
    event = json.loads(line)
    assert (event["event_id"], event["data_id"], event["status"]) == (
        body["event_id"],
        "CLI-1",
        "done",
    )
    plain = subprocess.run(
        [EXE, "webhooks", "list", "--db", db], capture_output=True, text=True, timeout=60
    )
    assert body["event_id"] in plain.stdout and "unsigned" in plain.stdout


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"url": "http://a/", "filter": None}, "filter: must be a string"),
        ({"url": "http://a/", "filter": ["*"]}, "filter: must be a string"),
        ({"url": "http://[::1"}, "url: is not a valid address"),
        ({"url": "http://127.0.0.1:99999/x"}, "url: is not a valid address"),
        ({"url": "http://127.0.0.1:abc/x"}, "url: is not a valid address"),
        ({"url": "http://127.0.0.1:8199/x\r\nX-Evil: 1"}, "spaces or control characters"),
        ({"url": "http://a b/x"}, "spaces or control characters"),
        ({"url": "http://u:p@127.0.0.1:8199/x"}, "must not carry a user or password"),
        ({"url": "ftp://a/"}, "http or https"),
    ],
)
def test_a_subscription_to_an_unusable_address_is_refused(sandbox_url, body, message):
    answer = httpx.post(f"{sandbox_url}/_sandbox/webhooks/subscriptions", json=body)
    assert answer.status_code == 400
    assert message in answer.json()["failure_message"]


def test_duplicate_keys_in_a_sandbox_body_are_refused(sandbox_url):
    answer = httpx.post(
        f"{sandbox_url}/_sandbox/webhooks/subscriptions",
        content=b'{"url": "http://a/", "url": "http://b/"}',
        headers={"content-type": "application/json"},
    )
    assert answer.status_code == 400 and "appears twice" in answer.json()["failure_message"]


def test_a_stalled_request_is_cut_off_and_others_are_served(store):
    import socket

    running = BackgroundReceiver(store, head_seconds=0.5)
    url = running.start()
    try:
        host, port = url.split("//")[1].split("/")[0].split(":")
        stalled = socket.create_connection((host, int(port)))
        stalled.sendall(b"POST /webhooks HTTP/1.1\r\nHost: x\r\n")
        stalled.settimeout(5)
        assert stalled.recv(100) == b""  # closed by the receiver, not left hanging
        stalled.close()
        assert post(url, event_body(), signed=False).status_code == 200
    finally:
        running.stop()


def test_pending_deliveries_are_bounded_past_which_a_new_one_is_not_sent(sandbox_url, monkeypatch):
    from app.sandbox import webhooks

    monkeypatch.setattr(webhooks, "MAX_PENDING", 2)
    httpx.post(
        f"{sandbox_url}/_sandbox/webhooks/settings",
        json={"base_seconds": 3600, "exponent": 1, "max_attempts": 5, "timeout_seconds": 1},
    )
    failing = ScriptedReceiver([500] * 10)
    try:
        _subscribe(sandbox_url, failing.url, signed=False)
        for _ in range(3):
            _client(sandbox_url)
        advance(sandbox_url, 5)  # three reviews end: three deliveries due
        eventually(lambda: len(_deliveries(sandbox_url, failing.url)) == 3)
        eventually(lambda: len(failing.seen) == 2)  # the two pending ones were tried
        states = [d["state"] for d in _deliveries(sandbox_url, failing.url)]
        assert sorted(states) == ["abandoned", "pending", "pending"]
        dropped = next(
            d for d in _deliveries(sandbox_url, failing.url) if d["state"] == "abandoned"
        )
        assert dropped["attempts"][0]["error"] == "not sent: 2 deliveries are waiting already"
    finally:
        _unsubscribe_all(sandbox_url)
        failing.stop()
        _default_retry_settings(sandbox_url)
