"""The check after every test fails the test that leaked, and only that one: run on a small
suite of its own in a separate process, whose tests leave things behind on purpose."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

PROJECT = Path(__file__).parents[1]

LEAKY_SUITE = """
import asyncio
import socket
import threading

import pytest
from PySide6.QtWidgets import QLabel

from tests.ui.conftest import run_on

STOP = threading.Event()
KEPT = []


def test_clean():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))


def test_leaves_a_socket_open():
    KEPT.append(socket.socket())


def test_leaves_a_thread_running():
    threading.Thread(target=STOP.wait, name="leaky", daemon=True).start()


def test_drops_a_socket_without_closing_it():
    cycle = [socket.socket()]
    cycle.append(cycle)  # only the collector frees it: its warning comes when it runs


def test_fails_and_leaks():
    KEPT.append(socket.socket())
    raise AssertionError("its own failure")


def test_leaves_a_window_open(qtbot):
    label = QLabel("left open")
    label.show()
    KEPT.append(label)


def test_leaves_a_task_running(qloop):
    async def start():
        KEPT.append(asyncio.ensure_future(asyncio.sleep(3600)))

    run_on(qloop, start())
"""


@pytest.fixture
def leaky_suite(pytester: pytest.Pytester) -> pytest.RunResult:
    pytester.makeconftest('pytest_plugins = ["tests.leak_check", "tests.ui.conftest"]\n')
    pytester.makepyfile(test_leaky=LEAKY_SUITE)
    environment = {"PYTHONPATH": str(PROJECT), "QT_QPA_PLATFORM": "offscreen"}
    for name, value in environment.items():
        pytester._monkeypatch.setenv(name, value)
    return pytester.runpytest_subprocess(
        "-p",
        "no:randomly",
        "-p",
        "no:cacheprovider",
        "-W",
        "error",
        "--tb=line",
        "-q",
        "-o",
        "leak_thread_join_seconds=0.2",  # its leaky thread never ends: no need to wait
    )


def test_a_leak_fails_the_test_that_made_it_and_only_that_one(leaky_suite):
    output = leaky_suite.stdout.str()
    leaky_suite.assert_outcomes(passed=6, failed=1, errors=5)
    errors = {
        line.split("::")[-1].split(" ")[0]
        for line in output.splitlines()
        if line.startswith("ERROR ")
    }
    assert errors == {
        "test_leaves_a_socket_open",
        "test_leaves_a_thread_running",
        "test_drops_a_socket_without_closing_it",
        "test_leaves_a_window_open",
        "test_leaves_a_task_running",
    }
    assert "socket left open" in output
    assert "thread 'leaky' still running" in output
    assert "ResourceWarning: unclosed <socket.socket" in output
    assert "window still open: QLabel" in output
    assert "task still running: <coroutine object sleep" in output
    # a test that failed on its own is not charged with its leak as well
    assert "FAILED test_leaky.py::test_fails_and_leaks" in output
    errors_named = [line for line in output.splitlines() if "ERROR" in line]
    assert not any("test_fails_and_leaks" in line for line in errors_named)
