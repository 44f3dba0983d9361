"""Work in a forked copy of the process: its result read back whole, a failure told as
None, a copy ended at once when cancelled, and none left behind."""

from __future__ import annotations

import os
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
