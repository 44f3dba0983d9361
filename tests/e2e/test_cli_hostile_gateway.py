"""`partner-desk gateway order` against a hostile gateway: an answer past the contract's bounds
is one clear line naming the field and the request ID (exit 1), never a traceback or an
endless print; no control character of a server reaches the terminal; an id that would name
another path is a usage error (exit 2) and nothing is sent."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.gateway_helpers import ORDER, ORDER_ID, order_with

EXE = str(Path(sys.executable).with_name("partner-desk"))


class Hostile:
    """A gateway answering every request with ``status`` and ``body``; what it was asked."""

    def __init__(self) -> None:
        self.status, self.body = 200, b"{}"
        self.paths: list[str] = []
        hostile = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                hostile.paths.append(self.path)
                self.send_response(hostile.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(hostile.body)))
                self.end_headers()
                self.wfile.write(hostile.body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        # a short poll: shutdown() waits for the next one
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@pytest.fixture
def gateway() -> Iterator[Hostile]:
    server = Hostile()
    yield server
    server.close()


def order(gateway: Hostile, order_id: str = ORDER_ID) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [EXE, "gateway", "order", order_id, "--base-url", gateway.url],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PARTNER_DESK_PASSWORD": "p"},
        check=False,
    )


def test_an_answer_with_a_huge_amount_is_one_line_naming_the_field(gateway):
    gateway.body = json.dumps(order_with(amount="X")).replace('"X"', '"1E+999999999"').encode()
    result = order(gateway)
    assert result.returncode == 1
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"Order {ORDER_ID}: The answer to GET /orders/{ORDER_ID}/ does not ")
    assert "fit the contract: amount: " in line and "(x-request-id " in line
    assert "Traceback" not in result.stderr and len(result.stderr) < 500


@pytest.mark.parametrize(
    "changes",
    [
        {"card__last4": "\x1b[2J\x1b[31m1111"},
        {"card__last4": "4111111111111111"},
        {"created_at": "9999-12-31T23:00:00-05:00"},
        {"paid_at": "0001-01-01T00:00:00+01:00"},
    ],
)
def test_an_answer_past_the_bounds_is_refused_and_never_printed_raw(gateway, changes):
    gateway.body = json.dumps(order_with(**changes)).encode()
    result = order(gateway)
    assert result.returncode == 1
    assert "\x1b" not in result.stdout + result.stderr
    assert "4111111111111111" not in result.stdout + result.stderr
    assert "does not fit the contract" in result.stderr and "Traceback" not in result.stderr


def test_no_control_character_of_a_server_reaches_the_terminal(gateway):
    gateway.status = 400
    gateway.body = json.dumps(
        {
            "failure_message": "No such order\x1b]0;pwned\x07\r\x1b[2K\u202edecoy",
            "detail": {"error_id": "e-1\x1b[5m", "title": "Not\tfound\x9b31m"},
        }
    ).encode()
    result = order(gateway)
    assert result.returncode == 2
    assert result.stderr.startswith(f"Order {ORDER_ID}: Not?found?31m: No such order?]0;pwned?")
    for character in ("\x1b", "\x07", "\r", "\u202e", "\x9b"):
        assert character not in result.stderr


def test_the_order_as_the_gateway_sends_it_is_printed(gateway):
    gateway.body = json.dumps(ORDER).encode()
    result = order(gateway)
    assert result.returncode == 0, result.stderr
    assert "Card       visa •••• 1111" in result.stdout
    assert "Amount     1.00 EUR" in result.stdout


@pytest.mark.parametrize("order_id", [".", "..", "%2e%2e", ".%2E"])
def test_an_id_that_would_name_another_path_is_a_usage_error_and_nothing_is_sent(gateway, order_id):
    result = order(gateway, order_id)
    assert result.returncode == 2
    assert result.stderr == (
        f"partner-desk gateway: order id: {order_id!r} cannot be an ID: it would name another "
        "path\n"
    )
    assert gateway.paths == []
