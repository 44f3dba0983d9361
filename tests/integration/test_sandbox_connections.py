"""Idle and half-open connections cannot take the sandbox offline: a connection that sends no
whole request head in time is closed, and past the connection limit the longest-waiting one
makes room for a new one."""

import socket
import time

import httpx
import pytest

from app.sandbox.app import SandboxSettings
from app.sandbox.server import BackgroundSandbox


@pytest.fixture(scope="module")
def guarded():
    server = BackgroundSandbox(
        SandboxSettings(
            demo_statement_records=10, head_seconds=1.0, max_connections=20, stall_seconds=1.0
        )
    )
    server.start()
    yield server
    server.stop()


def half_open(url: str) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=5)
    sock.sendall(b"GET /v1/healthcheck HTTP/1.1\r\nHost: sandbox\r\n")  # no blank line
    return sock


def test_a_connection_without_a_whole_request_head_is_closed(guarded):
    sock = half_open(guarded.url)
    started = time.monotonic()
    assert sock.recv(1) == b""  # the sandbox closed it
    assert 0.8 < time.monotonic() - started < 4
    sock.close()


def test_many_idle_connections_do_not_keep_others_out(guarded):
    idle = [half_open(guarded.url) for _ in range(60)]
    try:
        started = time.monotonic()
        answer = httpx.get(f"{guarded.url}/v1/healthcheck", timeout=5)
        assert answer.status_code == 200
        assert time.monotonic() - started < 0.9  # long before the idle ones time out
    finally:
        for sock in idle:
            sock.close()


def raw_request(url: str, head: bytes) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)  # fills quickly
    sock.settimeout(10)
    sock.connect((host, int(port)))
    sock.sendall(head)
    return sock


def test_a_reader_who_takes_nothing_of_an_answer_is_dropped(guarded):
    accounts = httpx.get(
        f"{guarded.url}/v1/clients/C0000001/accounts",
        auth=("demo", "demo"),
        headers={"x-partner-code": "PD"},
    ).json()
    path = f"/v1/clients/C0000001/accounts/{accounts[1]['id']}/statement"  # a million records
    sock = raw_request(
        guarded.url,
        f"GET {path}?date_from=2000-01-01&date_to=2999-12-31 HTTP/1.1\r\nHost: s\r\n"
        "Authorization: Basic ZGVtbzpkZW1v\r\nx-partner-code: PD\r\n\r\n".encode(),
    )
    time.sleep(3)  # reads nothing: past the 1 s the sandbox waits for a stalled reader
    received = 0
    while chunk := sock.recv(1024 * 1024):  # what was on its way, then the end
        received += len(chunk)
    sock.close()
    assert 0 < received < 50 * 1024 * 1024  # closed early, not the whole statement (280 MB)
    answer = httpx.get(f"{guarded.url}/v1/healthcheck", timeout=5)
    assert answer.status_code == 200


def test_a_request_body_that_does_not_arrive_in_time_is_refused(guarded, monkeypatch):
    from app.sandbox import http

    monkeypatch.setattr(http, "BODY_SECONDS", 0.5)
    sock = raw_request(
        guarded.url,
        b"POST /v1/clients HTTP/1.1\r\nHost: s\r\nAuthorization: Basic ZGVtbzpkZW1v\r\n"
        b"x-partner-code: PD\r\nx-request-id: slow-body\r\n"
        b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{",
    )
    started = time.monotonic()
    answer = b""
    while b"within" not in answer and (chunk := sock.recv(65536)):
        answer += chunk
    sock.close()
    assert answer.startswith(b"HTTP/1.1 400 ")
    assert b"The body did not arrive within 0.5 s" in answer
    assert time.monotonic() - started < 3


def test_a_request_in_flight_during_a_reset_does_nothing_and_says_so(guarded):
    import threading

    from tests.conftest import person_body

    faults = httpx.post(
        f"{guarded.url}/_sandbox/faults",
        json={"mode": "delay", "delay_ms": 1500, "count": 1, "path_contains": "/v1/clients"},
    )
    assert faults.status_code == 200, faults.text
    answers = []

    def create() -> None:
        answers.append(
            httpx.post(
                f"{guarded.url}/v1/clients",
                json={"client_type": "PERSON", "client": person_body(external_id="reset-race")},
                auth=("demo", "demo"),
                headers={"x-partner-code": "PD", "x-request-id": "in-flight"},
                timeout=10,
            )
        )

    creating = threading.Thread(target=create)
    creating.start()
    time.sleep(0.5)
    assert httpx.post(f"{guarded.url}/_sandbox/reset").status_code == 200
    creating.join(10)
    (answer,) = answers
    assert answer.status_code == 400
    assert (
        "reset while this request arrived: nothing was done" in (answer.json()["failure_message"])
    )
