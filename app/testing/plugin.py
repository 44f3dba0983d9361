"""The tester's kit: a pytest plugin that ships with Partner Desk (``pip install
'partner-desk[testing]'``; registered as ``partner_desk`` through the pytest11 entry point).
It works beside pytest-qt's ``qtbot``. Documented in the README ("Testing with pytest-qt") and
docs/testing.md.

Fixtures:
- ``desk_sandbox`` — the embedded sandbox in a process of its own for the session; each test
  starts from its seed data again, with no fault set and an empty journal. ``url``,
  ``fault(method, path, status, body=None, *, times=1, delay=0.0)``, ``requests()``,
  ``advance(seconds)``.
- ``desk`` — the main window signed in to the sandbox as the demo user (or to
  ``--desk-base-url`` as ``--desk-user``, the password from PARTNER_DESK_PASSWORD), with
  settings, data folder and keyring of its own; closed cleanly after the test. ``window``,
  ``areas()``, ``open(area)``, ``idle(timeout)``, ``widget(name)``.
- ``desk_boxes`` — message boxes recorded (``title``, ``text``, ``icon``) and answered with
  their default button, or with ``desk_boxes.answer`` ("yes", "no", "ok", "cancel", …).

Tests marked ``sandbox_only`` (faults, the clock) are skipped against another server. When a
test that used ``desk`` fails, a picture of the window and its request log are saved in the
test's temporary folder and named in the report.

Nothing of Qt or of the desk is imported until a fixture is used: the plugin loads in every
pytest run of whoever installed the desk.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from app.ui.shell.harness import BoxRecord, DeskLoop
    from app.ui.shell.main_window import MainWindow

PASSWORD_ENV = "PARTNER_DESK_PASSWORD"  # noqa: S105 - the name of a variable, not a secret
SANDBOX_USER = "demo"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("partner-desk", "Partner Desk's tester's kit")
    group.addoption(
        "--desk-base-url",
        default=None,
        help="run the desk fixtures against this server instead of the embedded sandbox "
        "(tests marked sandbox_only are skipped)",
    )
    group.addoption(
        "--desk-gateway-url",
        default=None,
        help="the card gateway's address with --desk-base-url (default: beside the API)",
    )
    group.addoption(
        "--desk-user",
        default=SANDBOX_USER,
        help=f"the user with --desk-base-url; the password comes from ${PASSWORD_ENV}",
    )
    group.addoption(
        "--desk-partner-code",
        default="partner-desk",
        help="the x-partner-code with --desk-base-url",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "sandbox_only: needs the embedded sandbox (faults, its clock): skipped with "
        "--desk-base-url",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--desk-base-url") is None:
        return
    skip = pytest.mark.skip(reason="sandbox_only: runs against the embedded sandbox only")
    for item in items:
        if item.get_closest_marker("sandbox_only") is not None:
            item.add_marker(skip)


# ---------------------------------------------------------------- the sandbox


class DeskSandbox:
    """The embedded sandbox of the session, and its control calls."""

    def __init__(self, url: str) -> None:
        import httpx

        self.url = url
        self._http = httpx.Client(base_url=url, timeout=30)

    def fault(
        self,
        method: str,
        path: str,
        status: int,
        body: dict[str, Any] | list[Any] | str | None = None,
        *,
        times: int = 1,
        delay: float = 0.0,
    ) -> None:
        """The next ``times`` requests whose method is ``method`` and whose path (without its
        query) matches the glob ``path`` get ``status`` with ``body`` (a dict sent as JSON, a
        str sent as it is; None: the service's usual error body), ``delay`` seconds late."""
        fault: dict[str, Any] = {
            "status": status,
            "count": times,
            "mode": "before",
            "method": method,
            "path": path,
            "delay_ms": round(delay * 1000),
        }
        if body is not None:
            fault["body"] = body
        self._control("POST", "/_sandbox/faults", fault)

    def requests(self) -> list[dict[str, Any]]:
        """The journal, oldest first: ``method``, ``path``, ``status``, ``request_id``, and
        for an error answer its ``body``."""
        answer: list[dict[str, Any]] = self._control("GET", "/_sandbox/requests")
        return answer

    def advance(self, seconds: float) -> None:
        """Move the sandbox's clock; what fell due has run when this returns."""
        self._control("POST", "/_sandbox/clock", {"advance_seconds": seconds})

    def restart(self) -> None:
        """The seed data again, no fault, an empty journal (before each test)."""
        self._control("POST", "/_sandbox/reset")
        self._control("DELETE", "/_sandbox/faults")
        self._control("DELETE", "/_sandbox/requests")

    def _control(self, method: str, path: str, body: Any = None) -> Any:
        answer = self._http.request(method, path, json=body)
        if answer.status_code != 200:
            message = answer.json().get("failure_message", answer.text)
            raise ValueError(f"{method} {path}: {message}")
        return answer.json()

    def close(self) -> None:
        self._http.close()


@pytest.fixture(scope="session")
def _desk_sandbox_process(pytestconfig: pytest.Config) -> Iterator[DeskSandbox]:
    if pytestconfig.getoption("--desk-base-url") is not None:
        pytest.skip("the embedded sandbox is not used with --desk-base-url")
    from app.cli import own_command
    from app.serving.child import SandboxProcess

    process = SandboxProcess(own_command())
    sandbox = DeskSandbox(process.start())
    try:
        yield sandbox
    finally:
        sandbox.close()
        process.stop()


@pytest.fixture
def desk_sandbox(_desk_sandbox_process: DeskSandbox) -> DeskSandbox:
    """The embedded sandbox, from its seed data again for this test."""
    _desk_sandbox_process.restart()
    return _desk_sandbox_process


# ---------------------------------------------------------------- the window


@pytest.fixture(scope="session")
def desk_loop(qapp: Any) -> Iterator[DeskLoop]:
    """The desk's loop for the session (pytest-qt's ``qapp`` is its application)."""
    from app.ui.shell.harness import DeskLoop

    loop = DeskLoop(qapp)
    yield loop
    loop.close()


class Desk:
    """The main window of a test, signed in."""

    def __init__(self, window: MainWindow, loop: DeskLoop) -> None:
        self.window = window
        self._loop = loop

    def areas(self) -> list[str]:
        """The names of the areas, in the navigation's order."""
        return self.window.area_names()

    def open(self, area: str) -> None:
        """Show the area of that name (as clicking it in the navigation does)."""
        if area not in self.areas():
            raise LookupError(f"no area is named {area!r}: {', '.join(self.areas())}")
        self.window.show_area(area)

    def idle(self, timeout: float = 10.0) -> None:
        """Return when no call is in flight and no load runs (a pause in typing counts as
        work); TimeoutError past ``timeout`` seconds."""
        from app.ui.shell.harness import settled

        # with desk_boxes, a box answered lets its action go on: that is waited for too
        self._loop.run(settled(self.window.idle), timeout)

    def action(self, name: str) -> Any:
        """The menu action with that object name (``action.refresh``…; ``trigger()`` it)."""
        from app.ui.shell.harness import find_action

        return find_action(self.window, name)

    def widget(self, name: str) -> Any:
        """The one visible widget with that object name, in the window or a dialog it shows
        (docs/testing.md lists them); LookupError when there is none, or more than one."""
        from app.ui.shell.harness import find_widget

        return find_widget(name)


@pytest.fixture
def desk(
    request: pytest.FixtureRequest, qapp: Any, desk_loop: DeskLoop, tmp_path: Path
) -> Iterator[Desk]:
    """The main window signed in, with settings, data folder and keyring of its own."""
    import asyncio

    from app.testing.isolation import separate_home
    from app.testing.memory_keyring import memory_keyring
    from app.ui.shell.harness import delete_closed_windows, settings_in, stop_tasks
    from app.ui.shell.main_window import Backend, MainWindow

    base_url = request.config.getoption("--desk-base-url")
    url = None if base_url is not None else request.getfixturevalue("desk_sandbox").url
    with separate_home("partner-desk-test-"), memory_keyring(), desk_loop.counted_as_running():
        settings = settings_in(tmp_path / "desk-settings.ini")
        before = set(asyncio.all_tasks(desk_loop.loop))
        window = MainWindow(Backend("Test sandbox", lambda: url or ""), settings=settings)
        window.show()
        desk = Desk(window, desk_loop)
        request.node.stash[_DESK] = desk
        try:
            if base_url is None:
                desk_loop.run(window.connect_backend(), 60)
            else:
                desk_loop.run(window.use_profile(_server_profile(request.config), _password()), 60)
            yield desk
        finally:
            window.close()
            desk_loop.run(window.aclose(), 30)
            stop_tasks(desk_loop.loop, before)
            window.deleteLater()
            delete_closed_windows()


def _server_profile(config: pytest.Config) -> Any:
    from app.ui.connection.profiles import ServerProfile

    return ServerProfile(
        name="Test server",
        base_url=config.getoption("--desk-base-url"),
        partner_code=config.getoption("--desk-partner-code"),
        user=config.getoption("--desk-user"),
        gateway_url=config.getoption("--desk-gateway-url") or "",
    )


def _password() -> str:
    password = os.environ.get(PASSWORD_ENV)
    if password is None:
        pytest.fail(f"--desk-base-url: set {PASSWORD_ENV} to the user's password", pytrace=False)
    return password


# ---------------------------------------------------------------- message boxes


class DeskBoxes:
    """The message boxes shown during the test, oldest first, each answered at once."""

    def __init__(self, recorder: Any) -> None:
        self._recorder = recorder

    @property
    def answer(self) -> str | None:
        """The button every box is answered with when it has it ("yes", "no", "ok", "cancel",
        "discard", …); None: each box's default button."""
        chosen = self._recorder.answer
        return None if chosen is None else str(chosen.name).lower()

    @answer.setter
    def answer(self, name: str | None) -> None:
        from app.ui.shell.harness import standard_button

        self._recorder.answer = None if name is None else standard_button(name)

    @property
    def records(self) -> list[BoxRecord]:
        return list(self._recorder.records)

    def __len__(self) -> int:
        return len(self._recorder.records)

    def __getitem__(self, index: int) -> BoxRecord:
        record: BoxRecord = self._recorder.records[index]
        return record

    def __iter__(self) -> Iterator[BoxRecord]:
        return iter(list(self._recorder.records))


@pytest.fixture
def desk_boxes(qapp: Any) -> Iterator[DeskBoxes]:
    """Message boxes are recorded and answered instead of waiting for a person."""
    from app.ui.shell.harness import BoxRecorder

    recorder = BoxRecorder(qapp)
    try:
        yield DeskBoxes(recorder)
    finally:
        recorder.remove()


# ---------------------------------------------------------------- a failed test's record

_DESK = pytest.StashKey["Desk"]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    desk = item.stash.get(_DESK, None)
    if desk is not None and report.when == "call" and report.failed:
        # in the test's own temporary folder, which pytest keeps for a failed test
        folder = Path(item.funcargs["tmp_path"])  # type: ignore[attr-defined]
        saved = _save_record(desk, folder, re.sub(r"[^\w.-]+", "_", item.name)[:100])
        report.sections.append(("Partner Desk", "saved for this failure:\n" + "\n".join(saved)))
    return report


def _save_record(desk: Desk, folder: Path, name: str) -> list[str]:
    from app.ui.shell.harness import save_pictures

    saved = [f"the window: {picture}" for picture in save_pictures(folder, name)]
    log = folder / f"{name}.requests.txt"
    log.write_text("\n".join(desk.window.request_log.model.lines()) + "\n", encoding="utf-8")
    saved.append(f"the request log: {log}")
    return saved
