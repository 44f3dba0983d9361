"""Work in a forked copy of the process: its result read back whole, a failure told as
None, a copy ended at once when cancelled, and none left behind."""

from __future__ import annotations

import contextlib
import os
import signal
import time

import psutil
import pytest

from app.ui.common import forked

pytestmark = pytest.mark.skipif(not forked.AVAILABLE, reason="forked copies: Linux only")


def _ended(copy: forked.Forked) -> None:
    while not copy.poll():  # the copy's end is final: this cannot miss it
        time.sleep(0.001)


def test_the_copy_s_result_is_read_back_whole_through_the_pipe():
    payload = os.urandom(3 * forked.READ_SIZE + 17)  # more than the pipe holds at once
    before = set(psutil.Process().children())  # the test run's own (a sandbox)
    copy = forked.Forked(lambda _say: payload)
    _ended(copy)
    assert copy.result() == payload
    assert set(psutil.Process().children()) == before  # the copy was reaped


def test_the_copy_sees_the_values_as_they_were_at_the_fork():
    values = list(range(100_000))
    copy = forked.Forked(lambda _say: str(sum(values)).encode())
    values.clear()  # the copy has its own, as they were
    _ended(copy)
    assert copy.result() == str(sum(range(100_000))).encode()


def test_what_the_copy_says_is_read_as_it_goes_and_before_its_result():
    def talks(say) -> bytes:
        say(b"1\n")
        say(b"2\n")
        return b"done"

    copy = forked.Forked(talks)
    _ended(copy)
    assert copy.received() == b"1\n2\ndone"
    assert copy.result() == b"1\n2\ndone"


def test_a_copy_that_fails_gives_no_result():
    def fails(_say) -> bytes:
        raise ValueError("no")

    copy = forked.Forked(fails)
    _ended(copy)
    assert copy.result() is None


def test_a_cancelled_copy_ends_at_once_and_is_reaped():
    def forever(_say) -> bytes:
        while True:
            time.sleep(1)

    before = set(psutil.Process().children())  # the test run's own (a sandbox)
    copy = forked.Forked(forever)
    assert copy.poll() is False
    (child,) = set(psutil.Process().children()) - before
    copy.cancel()
    assert not child.is_running()
    assert copy.result() is None
    copy.cancel()  # twice is harmless


def _gone(pid: int) -> bool:
    """Ended: gone, or a zombie no one reaps yet (an orphan's, here)."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_a_copy_ends_when_the_process_that_forked_it_ends():
    """A copy that forked a copy of its own (the sort's second part) and is cancelled takes
    that one with it: the kernel ends it, rather than leaving it to work on for no one."""

    def forks_another(say) -> bytes:
        inner = forked.Forked(lambda inner_say: inner_say(b"%d\n" % os.getpid()) or forever())
        while not inner.received():
            inner.poll()
            time.sleep(0.001)
        say(inner.received())
        return forever()

    def forever() -> bytes:
        while True:
            time.sleep(1)

    copy = forked.Forked(forks_another)
    while not copy.received().endswith(b"\n"):  # what was said stays said: cannot be missed
        assert not copy.poll(), "the copy ended before its own copy began"
        time.sleep(0.001)
    inner_pid = int(copy.received())
    try:
        assert not _gone(inner_pid)
        copy.cancel()
        deadline = time.monotonic() + 30  # a bound, not a measure: the kernel's signal is at once
        while not _gone(inner_pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert _gone(inner_pid)
    finally:  # failed, the orphan is not left sleeping
        with contextlib.suppress(ProcessLookupError):
            os.kill(inner_pid, signal.SIGKILL)
