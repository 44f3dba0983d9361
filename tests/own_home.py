"""A home of the run's own (a pytest plugin of the suite's, loaded by tests/conftest.py and
tested with pytester in tests/test_own_home.py): before anything runs, every user folder
variable points into a temporary home, so that no test, and no process a test starts, touches
the settings, data, documents or keyring of the person running the suite. After the run,
what that person's own home holds where the desk would write is compared with what it held
before; any change fails the run, naming the paths."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from app.testing.isolation import FileState, changes_between, separate_home, user_files


def pytest_configure(config: pytest.Config) -> None:
    home = Path.home()
    config.stash[_USER_HOME] = home, user_files(home)
    stack = contextlib.ExitStack()
    stack.enter_context(separate_home("partner-desk-tests-"))
    config.add_cleanup(stack.close)


@pytest.hookimpl(trylast=True)  # after the session's fixtures are torn down
def pytest_sessionfinish(session: pytest.Session) -> None:
    home, before = session.config.stash[_USER_HOME]
    changed = changes_between(before, user_files(home))
    if changed:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"the run changed the user's own files in {home}:", red=True)
            for line in changed:
                reporter.write_line(f"  {line}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


_USER_HOME = pytest.StashKey[tuple[Path, FileState]]()


@pytest.fixture(scope="session")
def user_home(pytestconfig: pytest.Config) -> Path:
    """The home of the person running the suite (not the run's own)."""
    return pytestconfig.stash[_USER_HOME][0]
