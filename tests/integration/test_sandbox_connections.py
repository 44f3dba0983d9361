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
        SandboxSettings(demo_statement_records=10, head_seconds=1.0, max_connections=20)
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
