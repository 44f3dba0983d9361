"""The tester's kit (app/testing/plugin.py), tested as a tester uses it: suites of their own
run in a separate pytest process with only the installed plugin — the README's example as it
is written, the same suite against another server, message boxes answered, a failure's
record saved, and a process that ends cleanly."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

README = Path(__file__).parents[1] / "README.md"


def readme_example() -> str:
    text = README.read_text(encoding="utf-8")
    marker = "<!-- example: tests/test_plugin.py runs this block as it is -->"
    block = re.search(re.escape(marker) + r"\n```python\n(.*?)```", text, flags=re.DOTALL)
    assert block is not None, "the README's example is gone"
    return block.group(1)


SUITE = """
import pytest
from PySide6.QtWidgets import QMessageBox


def test_the_window_is_signed_in_with_its_areas(desk):
    assert "Clients" in desk.areas() and "Transfers" in desk.areas()
    desk.open("IBAN lookup")
    desk.idle()
    assert desk.widget("ibanInput").isVisible()
    with pytest.raises(LookupError, match="no visible widget is named 'nothing'"):
        desk.widget("nothing")
    with pytest.raises(LookupError, match="no area is named 'Nowhere'"):
        desk.open("Nowhere")


@pytest.mark.sandbox_only
def test_a_slow_answer_and_the_clock(desk, desk_sandbox, desk_boxes):
    desk_sandbox.fault("GET", "/v1/healthcheck", 503, "not json", delay=0.1)
    desk_sandbox.advance(60)
    desk.window.refresh_current()
    desk.idle()
    slow = [r for r in desk_sandbox.requests() if r["path"] == "/v1/healthcheck"][-1]
    assert (slow["status"], slow["body"]) == (503, "not json")
    assert desk.window.health_label.text().startswith("Health: unavailable")


def test_a_box_is_answered_with_the_button_asked_for(qtbot, desk, desk_boxes):
    desk_boxes.answer = "no"
    box = QMessageBox(QMessageBox.Icon.Question, "Send?", "Really?",
                      QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, desk.window)
    answers = []
    box.finished.connect(answers.append)
    box.open()
    qtbot.waitUntil(lambda: bool(answers))
    assert answers == [QMessageBox.StandardButton.No]
    assert [(b.title, b.text, b.icon, b.answered) for b in desk_boxes] == [
        ("Send?", "Really?", "question", "No")
    ]
    box.deleteLater()


@pytest.mark.sandbox_only
def test_idle_waits_for_the_call_after_an_answered_confirmation(desk, desk_sandbox, desk_boxes):
    desk.open("Accounts")
    desk.widget("accountsClientId").setText("C0000001")
    desk.widget("showAccounts").click()
    desk.idle()
    desk.widget("accountsTable").selectRow(0)
    desk_boxes.answer = "yes"
    desk_sandbox.fault("POST", "*", 500, delay=0.3)
    desk.widget("disableAccount").click()
    desk.idle()
    assert [(b.title, b.answered) for b in desk_boxes] == [
        ("Disable account", "Yes"),
        ("Internal error", "OK"),
    ]
    assert desk.action("action.refresh").shortcut().toString() == "F5"


def test_that_fails_on_purpose(desk):
    desk.open("Clients")
    desk.idle()
    assert False, "on purpose"
"""


@pytest.fixture
def tester(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester._monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    return pytester


def run(tester: pytest.Pytester, *args: str) -> pytest.RunResult:
    # a process of its own, as a tester's suite runs: only the installed plugin is there
    return tester.runpytest_subprocess("-p", "no:randomly", "-p", "no:cacheprovider", *args)


@pytest.mark.slow
def test_the_readme_example_and_a_suite_of_every_fixture_against_the_sandbox(tester):
    """One process, as a tester's run: the README's example as written passes, every fixture
    works, a failure leaves its record, and the process ends cleanly."""
    tester.makepyfile(test_readme=readme_example(), test_suite=SUITE)
    result = run(tester, "-W", "error")
    result.assert_outcomes(passed=5, failed=1)
    output = result.stdout.str()
    assert "test_readme.py ." in output  # the README's example passed
    picture = re.search(r"the window: (\S+\.png)", output)
    log = re.search(r"the request log: (\S+\.txt)", output)
    assert picture and log, output
    assert Path(picture.group(1)).read_bytes().startswith(b"\x89PNG")
    lines = Path(log.group(1)).read_text(encoding="utf-8").splitlines()
    assert any("\tGET\t/v2/clients\t200\t" in line for line in lines)
    everything = output + result.stderr.str()
    assert "QThread" not in everything and "Traceback" not in everything


@pytest.mark.slow
def test_against_another_server_sandbox_only_tests_are_skipped(tester, sandbox_url):
    tester.makepyfile(test_readme=readme_example(), test_suite=SUITE)
    tester._monkeypatch.setenv("PARTNER_DESK_PASSWORD", "demo")
    result = run(tester, "--desk-base-url", sandbox_url, "--desk-user", "demo", "-rs")
    result.assert_outcomes(passed=2, failed=1, skipped=3)
    assert "sandbox_only: runs against the embedded sandbox only" in result.stdout.str()
