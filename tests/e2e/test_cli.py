"""The partner-desk command as a support agent runs it in a terminal."""

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from tests.conftest import killed_if_running

EXE = str(Path(sys.executable).with_name("partner-desk"))


def run_cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [EXE, *args], capture_output=True, text=True, timeout=timeout, check=False
    )


def test_iban_valid_against_the_embedded_sandbox():
    result = run_cli("iban", "DE89 3704 0044 0532 0130 00")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "IBAN      DE89 3704 0044 0532 0130 00",
        "Offline   valid; country DE, bank code 37040044",
        "API check (embedded sandbox)",
        "  BIC     COBADEFFXXX",
        "  Bank    Commerzbank",
        "  Address Commerzbank Köln, Germany",
        "  Country DE",
        "  SEPA    yes",
    ]


def test_invalid_iban_gets_a_clear_message_and_a_non_zero_exit():
    result = run_cli("iban", "DE89370400440532013001")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.strip() == (
        "Invalid IBAN DE89370400440532013001: the check digits do not match: "
        "a character is mistyped"
    )


def test_iban_against_a_base_url(sandbox_url):
    result = run_cli("iban", "DE80100900011234567890", "--base-url", sandbox_url)
    assert result.returncode == 2
    assert re.fullmatch(
        rf"API check \({re.escape(sandbox_url)}\) failed: Unknown bank: No bank data for "
        r"DE80100900011234567890: its bank code 10090001 is not in the registry "
        r"\(Error: [0-9a-f-]{36}\)\n",
        result.stderr,
    )
    unreachable = run_cli("iban", "DE89370400440532013000", "--base-url", "http://127.0.0.1:9")
    assert unreachable.returncode == 1
    assert "Cannot reach http://127.0.0.1:9" in unreachable.stderr


def test_sandbox_command_announces_its_port_and_serves():
    with subprocess.Popen(
        [EXE, "sandbox", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ},
    ) as process:
        _check_announced_sandbox(process)


def _check_announced_sandbox(process: subprocess.Popen[str]) -> None:
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        match = re.fullmatch(r"Sandbox listening on (http://127\.0\.0\.1:(\d+))", line)
        assert match, line
        assert int(match.group(2)) > 0
        response = httpx.get(f"{match.group(1)}/v1/healthcheck", timeout=10)
        assert response.json() == {"result": "ok"}
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.mark.parametrize("sign", [signal.SIGTERM, signal.SIGINT])
def test_the_sandbox_stops_gracefully_when_told_as_soon_as_it_says_it_listens(sign):
    """It says so before it has built its server (what connects waits in the backlog): a
    signal then ended it the default way, status -15 for SIGTERM."""
    process = subprocess.Popen(
        [EXE, "sandbox", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline().startswith("Sandbox listening on http://")
        process.send_signal(sign)
        _out, errors = process.communicate(timeout=60)
    finally:
        killed_if_running(process)
    assert process.returncode == 0, errors
    assert "Traceback" not in errors


@pytest.mark.parametrize("sign", [signal.SIGTERM, signal.SIGINT])
@pytest.mark.parametrize("over_and_over", [False, True])
def test_the_sandbox_stops_gracefully_on_sigterm_or_ctrl_c(sign, over_and_over):
    """As the receiver does: uvicorn raised SIGTERM again once it had shut down, and the
    sandbox ended killed by it (status -15) after a graceful stop. Signals sent again and
    again until it exits change nothing after the first: Python's finalization gave them
    their default action back, and one landing then ended it with -15 (or -2)."""
    process = subprocess.Popen(
        [EXE, "sandbox", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().split()[-1]
        assert httpx.get(f"{url}/v1/healthcheck", timeout=30).status_code == 200  # serving
        process.send_signal(sign)
        deadline = time.monotonic() + 60  # a bound, not a measure
        while over_and_over and process.poll() is None:
            assert time.monotonic() < deadline
            time.sleep(0.002)
            process.send_signal(sign)
        _out, errors = process.communicate(timeout=30)
    finally:
        killed_if_running(process)
    assert process.returncode == 0
    assert "Traceback" not in errors


def test_a_second_ctrl_c_ends_the_sandbox_s_stop_at_once_and_says_no_fault():
    """The first Ctrl-C waits for uploads held back; a second ends the wait at once, as
    uvicorn does: each request cut is answered 503 (never acted on), and nothing is logged
    as a fault — uvicorn logged a traceback for each, and one for the lifespan."""
    process = subprocess.Popen(
        [EXE, "sandbox", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    held: list[socket.socket] = []
    try:
        assert process.stdout is not None
        url = process.stdout.readline().split()[-1]
        assert httpx.get(f"{url}/v1/healthcheck", timeout=30).status_code == 200
        for n in range(3):
            sock = socket.create_connection(("127.0.0.1", int(url.rsplit(":", 1)[1])), timeout=30)
            held.append(sock)
            sock.sendall(
                b"POST /v1/attachments HTTP/1.1\r\nHost: s\r\nAuthorization: Basic ZGVtbzpkZW1v"
                b"\r\nx-partner-code: PD\r\nx-request-id: held-%d\r\nContent-Type: "
                b"multipart/form-data; boundary=b\r\nContent-Length: 100000\r\n\r\n--b" % n
            )
        assert httpx.get(f"{url}/v1/healthcheck", timeout=30).status_code == 200  # read them
        process.send_signal(signal.SIGINT)
        port = int(url.rsplit(":", 1)[1])
        deadline = time.monotonic() + 30  # a bound, not a measure
        while time.monotonic() < deadline:  # the stop has begun: no new connection is taken
            try:
                socket.create_connection(("127.0.0.1", port), timeout=30).close()
            except ConnectionRefusedError:
                break
            time.sleep(0.01)
        process.send_signal(signal.SIGINT)
        _out, errors = process.communicate(timeout=30)  # a bound: the 30 s bodies not waited
        answers = []
        for sock in held:
            answer = b""
            with contextlib.suppress(ConnectionResetError):
                while chunk := sock.recv(65536):
                    answer += chunk
            answers.append(answer)
    finally:
        for sock in held:
            sock.close()
        killed_if_running(process)
    assert process.returncode == 0
    assert "Traceback" not in errors and "ERROR" not in errors, errors
    assert all(not answer or answer.startswith(b"HTTP/1.1 503 ") for answer in answers)


def test_sandbox_refuses_a_bad_port():
    result = run_cli("sandbox", "--port", "70000")
    assert result.returncode == 2
    assert "--port must be from 0 to 65535" in result.stderr


@pytest.mark.parametrize("args", [["--help"], ["iban", "--help"], ["sandbox", "--help"]])
def test_help(args):
    result = run_cli(*args)
    assert result.returncode == 0
    assert "partner-desk" in result.stdout


def test_the_iban_check_refuses_addresses_it_must_not_call():
    plain = run_cli("iban", "DE89370400440532013000", "--base-url", "http://bank.example")
    assert plain.returncode == 2
    assert plain.stderr.strip() == (
        "partner-desk iban: base URL: use https: only this computer may be reached by http"
    )
    secret = run_cli(
        "iban", "DE89370400440532013000", "--base-url", "https://agent:Hunter2@bank.example"
    )
    assert secret.returncode == 2
    assert "must not carry a user or password" in secret.stderr
    assert "Hunter2" not in secret.stderr + secret.stdout


@pytest.mark.slow
def test_a_server_that_answers_one_byte_a_second_cannot_hang_the_command():
    """A real socket that accepts and then trickles its answer: the command gives up at its
    deadline with a clear message."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    port = server.getsockname()[1]
    stop = threading.Event()

    def trickle():
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except OSError:
                continue
            with connection:
                for byte in b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + b"x" * 1000:
                    if stop.wait(0.5):
                        break
                    try:
                        connection.sendall(bytes([byte]))
                    except OSError:
                        break

    worker = threading.Thread(target=trickle, daemon=True)
    worker.start()
    try:
        result = run_cli(
            "iban",
            "DE89370400440532013000",
            "--base-url",
            f"http://127.0.0.1:{port}",
            "--deadline",
            "2",
        )
    finally:
        stop.set()
        server.close()
    assert result.returncode == 1
    assert f"No complete answer from http://127.0.0.1:{port} within 2 s (x-request-id " in (
        result.stderr
    )


def serve_once(status: int, body: bytes) -> tuple[str, threading.Thread]:
    """A server answering every request with this status and JSON body."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    worker = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
    )  # a short poll: shutdown() waits for the next one
    worker.start()
    worker.server = server  # type: ignore[attr-defined]
    return f"http://127.0.0.1:{server.server_address[1]}", worker


def test_the_server_text_cannot_drive_the_terminal():
    hostile = "\x1b]0;pwned\x07\x1b[2J\nInjected line: transfer approved"
    refusal = json.dumps(
        {"failure_message": hostile, "detail": {"error_id": "e1\n", "title": "Unknown\x1b[31m"}}
    ).encode()
    url, worker = serve_once(400, refusal)
    try:
        result = run_cli("iban", "DE89370400440532013000", "--base-url", url)
    finally:
        worker.server.shutdown()
        worker.server.server_close()
    assert result.returncode == 2
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1  # no line of the server's making
    bank = {"bic": "X", "bank": "Bank\x1b[2J" + "x" * 5000, "address": "A\nB", "country": "DE",
            "sepa": True}  # fmt: skip
    url, worker = serve_once(200, json.dumps(bank).encode())
    try:
        result = run_cli("iban", "DE89370400440532013000", "--base-url", url)
    finally:
        worker.server.shutdown()
        worker.server.server_close()
    assert result.returncode == 0
    assert "\x1b" not in result.stdout and "  Address A?B" in result.stdout
    assert max(len(line) for line in result.stdout.splitlines()) < 220


def _gateway_order(sandbox_url: str) -> dict:
    with httpx.Client(base_url=f"{sandbox_url}/gateway", auth=("demo", "demo")) as gateway:

        def post(path: str, body: object = None) -> dict:
            answer = gateway.post(path, json=body, headers={"x-request-id": os.urandom(8).hex()})
            assert answer.status_code == 200, answer.text
            return answer.json()

        order = post(
            "/orders/",
            {
                "client": {"email": "cli@example.lt"},
                "currency": "EUR",
                "products": [{"title": "Seat", "price": "12.50"}],
                "skip_capture": True,
            },
        )
        path = order["api_do_url"].split("/gateway", 1)[1]
        post(
            path,
            {"card_number": "4111111111111111", "exp_month": 12, "exp_year": 2099, "cvv": "123"},
        )
        return post(f"/orders/{order['id']}/capture/", {"total": "10.00"})


def test_gateway_order_prints_status_amounts_and_history(sandbox_url):
    order = _gateway_order(sandbox_url)
    result = subprocess.run(
        [EXE, "gateway", "order", order["id"], "--base-url", f"{sandbox_url}/gateway"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PARTNER_DESK_PASSWORD": "demo"},
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:7] == [
        f"Order      {order['id']}",
        "Status     charged",
        "Scenario   Two-Step",
        "Amount     12.50 EUR",
        "Reserved   0.00 EUR",
        "Captured   10.00 EUR",
        "Refunded   0.00 EUR",
    ]
    assert "Card       visa •••• 1111" in lines
    assert "4111111111111111" not in result.stdout
    history = lines[lines.index("History") + 1 :]
    assert [line.split()[3] for line in history] == [
        "created",
        "authorized",
        "captured",
        "released",
    ]
    assert "2.50 EUR" in history[-1]


def test_gateway_order_unknown_and_without_a_password(sandbox_url):
    env = {**os.environ, "PARTNER_DESK_PASSWORD": "demo"}
    unknown = subprocess.run(
        [EXE, "gateway", "order", "no-such-order", "--base-url", f"{sandbox_url}/gateway"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
    )
    assert unknown.returncode == 2
    assert re.fullmatch(
        r"Order no-such-order: Not found: order no-such-order not found \(Error: [0-9a-f-]{36}\)\n",
        unknown.stderr,
    )
    env.pop("PARTNER_DESK_PASSWORD")
    no_password = subprocess.run(
        [EXE, "gateway", "order", "x", "--base-url", f"{sandbox_url}/gateway"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert no_password.returncode == 2
    assert "PARTNER_DESK_PASSWORD" in no_password.stderr
    wrong = subprocess.run(
        [EXE, "gateway", "order", "x", "--base-url", f"{sandbox_url}/gateway"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**env, "PARTNER_DESK_PASSWORD": "wrong"},
    )
    assert wrong.returncode == 1 and "Unauthorized" in wrong.stderr


def test_gateway_order_from_the_environment_address(sandbox_url):
    order = _gateway_order(sandbox_url)
    env = {
        **os.environ,
        "PARTNER_DESK_GATEWAY_URL": f"{sandbox_url}/gateway",
        "PARTNER_DESK_PASSWORD": "demo",
    }
    result = subprocess.run(
        [EXE, "gateway", "order", order["id"]],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1] == "Status     charged"


def _project_version() -> str:
    import tomllib

    with open(Path(__file__).parents[2] / "pyproject.toml", "rb") as handle:
        return str(tomllib.load(handle)["project"]["version"])


def test_version_is_the_projects():
    result = run_cli("--version")
    assert result.returncode == 0
    assert result.stdout == f"partner-desk {_project_version()}\n"


def test_selftest_runs_one_call_of_each_kind_and_passes():
    result = run_cli("selftest")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert [line.split()[:2] for line in lines[:-1]] == [
        ["ok", "sandbox"],
        ["ok", "health"],
        ["ok", "iban"],
        ["ok", "clients"],
        ["ok", "accounts"],
        ["ok", "statement"],
        ["ok", "fee"],
        ["ok", "camt.053"],
    ]
    assert lines[-1] == "All checks passed"


def test_the_windows_sandbox_runs_in_its_own_process_and_ends_with_its_parent():
    from app.cli import own_command
    from app.serving.child import SandboxProcess

    sandbox = SandboxProcess(own_command())
    url = sandbox.start()
    child = sandbox._process
    assert child is not None and child.pid != os.getpid()
    answer = httpx.get(f"{url}/v1/healthcheck", auth=("demo", "demo"), timeout=10)
    assert answer.status_code == 200
    sandbox.stop()  # closing its stdin is enough: it was not killed
    assert child.returncode == 0
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{url}/v1/healthcheck", timeout=2)


PARENT = """
from app.cli import own_command
from app.serving.child import SandboxProcess
print(SandboxProcess(own_command()).start(), flush=True)
input()  # until killed
"""


def test_a_sandbox_whose_parent_was_killed_ends_too():
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert parent.stdout is not None and parent.stdin is not None
    with parent.stdout, parent.stdin:  # closed however the test ends
        url = parent.stdout.readline().strip()
        assert httpx.get(f"{url}/v1/healthcheck", auth=("demo", "demo"), timeout=10).is_success
        parent.kill()  # no chance to stop its child
        parent.wait(timeout=10)
        # a generous bound only to fail a sandbox that never ends
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                httpx.get(f"{url}/v1/healthcheck", timeout=1)
            except httpx.ConnectError:
                break  # nobody listens: it ended
            except httpx.TransportError:
                pass  # it is ending: a connection taken and dropped without an answer
            time.sleep(0.1)
        else:
            pytest.fail("the sandbox outlived its parent")


def test_the_receiver_refuses_a_weak_signing_key(tmp_path):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    weak = rsa.RSAPublicNumbers(65537, (1 << 511) | 1).public_key()
    key_file = tmp_path / "weak.pem"
    key_file.write_bytes(
        weak.public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    result = run_cli("webhooks", "serve", "--port", "0", "--public-key", str(key_file))
    assert result.returncode == 2
    assert result.stderr == (
        f"partner-desk webhooks: --public-key {key_file}: an RSA key of 512 bits is too weak "
        "to trust: at least 2048 bits are needed\n"
    )


def test_a_reader_that_goes_away_ends_the_command_without_a_traceback(sandbox_url):
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "app.cli",
            "iban",
            "DE89370400440532013000",
            "--base-url",
            sandbox_url,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # as `| head` does: every line written now meets a closed pipe
    errors = process.stderr.read()
    process.stderr.close()
    assert process.wait(timeout=60) == 1
    assert "Traceback" not in errors
