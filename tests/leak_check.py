"""The check that fails a test which leaves anything behind (a pytest plugin of the suite's,
loaded by tests/conftest.py and tested with pytester in tests/test_leak_check.py).

- Sockets and threads are compared before and after each test, its fixtures' clean-up
  included: one still open, or still running, fails the test that left it.
- The garbage is collected right after each test, so that an unclosed resource's warning
  fails the test that left it, not whichever runs next when the collector happens to run
  (pytest #9825); and after each module, its fixtures' garbage. What outlives a test is then
  frozen, out of the collector's way until its module is done: a collection looks only at
  what the test made, not at the whole heap.
- A leak fails only a test that passed: one that failed stopped before its clean-up.
"""

from __future__ import annotations

import gc
import os
import socket
import stat
import threading
from collections.abc import Iterator
from typing import Any, NamedTuple

import pytest


class OpenSocket(NamedTuple):
    descriptor: int
    inode: int
    family: int
    local: Any
    peer: Any
    listening: bool


def _descriptors() -> list[int]:
    folder = "/proc/self/fd" if os.path.isdir("/proc/self/fd") else "/dev/fd"
    return [int(name) for name in os.listdir(folder)]


def open_sockets() -> set[OpenSocket]:
    """This process's sockets but those a server accepted: each of those ends when its client
    goes, on the server's own time (the sandbox runs in this process)."""
    found = []
    for descriptor in _descriptors():
        try:
            info = os.fstat(descriptor)
            if not stat.S_ISSOCK(info.st_mode):
                continue
            with socket.socket(fileno=os.dup(descriptor)) as copy:
                listening = bool(copy.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN))
                local = copy.getsockname()
                try:
                    peer = copy.getpeername()
                except OSError:
                    peer = None
                found.append(
                    OpenSocket(descriptor, info.st_ino, copy.family, local, peer, listening)
                )
        except OSError:  # closed meanwhile, or not one to look into
            continue
    served = {s.local for s in found if s.listening and s.local}
    return {s for s in found if s.listening or not (s.peer and s.local in served)}


class MadeDescriptors:
    """The descriptors made by the calls wrapped (`os.pipe`, `socket.socketpair`) while a
    test runs, each with the file it named: one still open is one whose number still names
    that file. Not a count of the process's descriptors: other tests' garbage, closed by
    the collector meanwhile, made that count fall (a failed run)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self._made: list[tuple[int, int]] = []
        made_pipe, made_pair = os.pipe, socket.socketpair

        def pipe() -> tuple[int, int]:
            ends = made_pipe()
            self._record(*ends)
            return ends

        def socketpair(*args: Any, **kwargs: Any) -> tuple[socket.socket, socket.socket]:
            ends = made_pair(*args, **kwargs)
            self._record(*(end.fileno() for end in ends))
            return ends

        monkeypatch.setattr(os, "pipe", pipe)
        monkeypatch.setattr(socket, "socketpair", socketpair)

    def _record(self, *descriptors: int) -> None:
        self._made += [(descriptor, os.fstat(descriptor).st_ino) for descriptor in descriptors]

    @property
    def made(self) -> int:
        return len(self._made)

    def still_open(self) -> list[int]:
        """Those made and not closed since (a number closed may name another's file now)."""
        found = []
        for descriptor, inode in self._made:
            try:
                if os.fstat(descriptor).st_ino == inode:
                    found.append(descriptor)
            except OSError:  # closed
                continue
        return found


def running_threads() -> set[threading.Thread]:
    # a thread Python did not start shows up once it runs Python code, and stays listed
    return {t for t in threading.enumerate() if not isinstance(t, threading._DummyThread)}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(
        "leak_thread_join_seconds",
        "how long a thread a test started may take to end before it counts as left running",
        default="5",
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    """Keeps each phase's report on the test, for `passed`."""
    report = yield
    item.stash.setdefault(_REPORTS, {})[report.when] = report
    return report


_REPORTS = pytest.StashKey[dict[str, pytest.TestReport]]()


def passed(item: pytest.Item) -> bool:
    """The test's set-up and body passed: a leak is then the test's own."""
    reports = item.stash.get(_REPORTS, {})
    return all(reports[when].passed for when in ("setup", "call") if when in reports)


@pytest.fixture(scope="module", autouse=True)
def _module_garbage() -> Iterator[None]:
    """Torn down after the module's other fixtures, within the last test's clean-up."""
    yield
    gc.unfreeze()  # what the module kept, its fixtures' included, can go now
    gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True)
def _leaves_nothing_behind(request: pytest.FixtureRequest) -> Iterator[None]:
    sockets, threads = open_sockets(), running_threads()
    yield
    gc.collect()
    gc.freeze()
    leaks = []
    join_seconds = float(request.config.getini("leak_thread_join_seconds"))
    for thread in running_threads() - threads:
        thread.join(timeout=join_seconds)  # a call ending as the test ends is let finish
        if thread.is_alive():
            leaks.append(f"thread {thread.name!r} still running")
    leaks += [f"socket left open: {s}" for s in sorted(open_sockets() - sockets)]
    if leaks and passed(request.node):
        pytest.fail("the test left behind:\n" + "\n".join(leaks), pytrace=False)
