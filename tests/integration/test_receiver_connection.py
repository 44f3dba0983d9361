"""The receiver's HTTP/1.1 connection over loopback, as raw bytes: what it answers to
pipelined requests, to bodies that come late, too large or after a 100-continue, and to a
request that asks for the connection to end (`app.webhooks.connection`)."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator

import pytest

from app.core import webhooks as wh
from app.webhooks import receiver as receiver_module
from app.webhooks.receiver import BackgroundReceiver
from app.webhooks.signature import load_public_key
from app.webhooks.store import EventStore, open_store
from tests.webhook_helpers import PUBLIC_PEM, delivery, event_body


@pytest.fixture
def store(tmp_path) -> Iterator[EventStore]:
    opened = open_store(str(tmp_path / "events.db"))
    yield opened
    opened.close()


@pytest.fixture
def address(store) -> Iterator[tuple[str, int]]:
    running = BackgroundReceiver(store, load_public_key(PUBLIC_PEM))
    url = running.start()
    host, port = url.removeprefix("http://").split("/")[0].split(":")
    yield host, int(port)
    running.stop()


def request(method: str, path: str, body: bytes = b"", **headers: str) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: r"]
    lines += [f"{name.replace('_', '-')}: {value}" for name, value in headers.items()]
    if body and "Transfer_Encoding" not in headers:
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def posted(body: dict) -> bytes:
    headers, raw = delivery(body)
    return request("POST", "/webhooks", raw, **{k.replace("-", "_"): v for k, v in headers.items()})


class Answers:
    """The answers read from one connection, one at a time."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buffer = b""

    def _more(self) -> None:
        received = self.sock.recv(65536)
        if not received:
            raise AssertionError(f"closed by the server; unread: {self.buffer[:200]!r}")
        self.buffer += received

    def next(self, head_only: bool = False) -> tuple[int, dict[str, str], bytes]:
        """The next answer's status, its headers (lower-case names) and its body."""
        while b"\r\n\r\n" not in self.buffer:
            self._more()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        headers = dict(line.lower().split(": ", 1) for line in header_lines)
        length = 0 if head_only else int(headers.get("content-length", "0"))
        while len(self.buffer) < length:
            self._more()
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        return int(status_line.split(" ")[1]), headers, body

    def closed(self) -> bool:
        try:
            return self.sock.recv(1) == b""
        except ConnectionResetError:
            return True


def connect(address: tuple[str, int]) -> socket.socket:
    return socket.create_connection(address, timeout=30)


def test_pipelined_requests_are_answered_each_in_turn(address, store):
    first = event_body()
    with connect(address) as sock:
        sock.sendall(
            request("GET", "/health")
            + posted(first)
            + request("HEAD", "/health")
            + posted(first)
            + request("GET", "/elsewhere")
            + posted(event_body(occurred_at="yesterday"))
        )
        answers = Answers(sock)
        assert answers.next()[::2] == (200, b'{"result": "ok"}')
        status, _, body = answers.next()
        assert (status, json.loads(body)) == (
            200,
            {"result": "stored", "event_id": first["event_id"]},
        )
        status, headers, body = answers.next(head_only=True)
        assert (status, headers["content-length"]) == (200, "16")
        assert json.loads(answers.next()[2])["result"] == "duplicate"
        status, _, body = answers.next()
        assert (status, json.loads(body)["failure_message"]) == (
            404,
            "Deliveries are POSTed to /webhooks",
        )
        status, _, body = answers.next()
        assert status == 400 and json.loads(body)["failure_message"].startswith("occurred_at:")
    assert store.count() == 1


def test_thousands_of_requests_in_one_stream_are_all_answered(address):
    """Each answered as soon as it is read, and the next read on: none waits on a task, and
    none is read inside the answer of the one before (a depth a request)."""
    count = 3000
    with connect(address) as sock:
        sending = threading.Thread(
            target=sock.sendall, args=(request("GET", "/health") * count,), daemon=True
        )
        sending.start()  # the answers are read meanwhile: the receiver stops reading else
        answers = Answers(sock)
        statuses = [answers.next()[0] for _ in range(count)]
        sending.join()
    assert statuses == [200] * count


def test_a_body_that_does_not_come_in_time_is_refused_and_the_connection_serves_on(
    store, monkeypatch
):
    monkeypatch.setattr(receiver_module, "BODY_SECONDS", 0.5)
    running = BackgroundReceiver(store)
    url = running.start()
    host, port = url.removeprefix("http://").split("/")[0].split(":")
    try:
        with connect((host, int(port))) as sock:
            sock.sendall(request("POST", "/webhooks", Content_Length="100") + b"{")
            answers = Answers(sock)
            status, _, body = answers.next()
            assert status == 400
            assert json.loads(body)["failure_message"] == "The body did not arrive within 0.5 s"
            sock.sendall(b" " * 99)  # the rest, come late: read and dropped
            headers, raw = delivery(event_body(), signed=False)
            sock.sendall(
                request(
                    "POST", "/webhooks", raw, **{k.replace("-", "_"): v for k, v in headers.items()}
                )
            )
            assert json.loads(answers.next()[2])["result"] == "stored"
    finally:
        running.stop()
    assert store.count() == 1


def test_a_sender_that_waits_for_100_continue_is_told_to_go_on(address, store):
    headers, raw = delivery(event_body())
    named = {k.replace("-", "_"): v for k, v in headers.items()}
    head = request(
        "POST", "/webhooks", Expect="100-continue", Content_Length=str(len(raw)), **named
    )
    with connect(address) as sock:
        sock.sendall(head)
        answers = Answers(sock)
        assert answers.next()[0] == 100  # before any of the body was sent
        sock.sendall(raw)
        status, _, body = answers.next()
    assert (status, json.loads(body)["result"]) == (200, "stored")
    assert store.count() == 1


def test_a_body_larger_than_allowed_is_refused_before_it_all_comes(address, store):
    too_large = f"The body is larger than {wh.BODY_MAX // 1024} KiB"
    with connect(address) as sock:
        # declared: refused on its head alone (its sender sends none of it)
        sock.sendall(request("POST", "/webhooks", Content_Length=str(wh.BODY_MAX + 1)))
        status, _, body = Answers(sock).next()
        assert (status, json.loads(body)["failure_message"]) == (400, too_large)
    with connect(address) as sock:
        # in chunks, no length said: refused once past the bound, the rest not waited for
        sock.sendall(request("POST", "/webhooks", Transfer_Encoding="chunked"))
        chunk = b"%x\r\n%s\r\n" % (16 * 1024, b" " * 16 * 1024)
        sock.sendall(chunk * (wh.BODY_MAX // (16 * 1024) + 1))
        status, _, body = Answers(sock).next()
        assert (status, json.loads(body)["failure_message"]) == (400, too_large)
    assert store.count() == 0


def test_a_request_that_asks_for_the_end_of_its_connection_gets_it_after_its_answer(address):
    with connect(address) as sock:
        sock.sendall(request("GET", "/health", Connection="close") + request("GET", "/health"))
        answers = Answers(sock)
        status, headers, _ = answers.next()
        assert (status, headers["connection"]) == (200, "close")
        assert answers.closed()  # the request after it is not read
