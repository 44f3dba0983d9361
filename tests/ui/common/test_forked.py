"""Work in a forked copy of the process: its result read back whole, a failure told as
None, a copy ended at once when cancelled, and none left behind."""

from __future__ import annotations

import contextlib
import os
import platform
import signal
import subprocess
import sys
import time

import psutil
import pytest

from app.ui.common import forked

pytestmark = pytest.mark.skipif(not forked.AVAILABLE, reason="forked copies: Linux only")


def _ended(copy: forked.Forked) -> None:
    while not copy.poll():  # the copy's end is final: this cannot miss it
        time.sleep(0.001)


def children_once_reaped(before: set[psutil.Process]) -> set[psutil.Process]:
    """This process's children once every ended copy is reaped: a copy's exit is collected
    on a thread, a moment after its outcome is read (reaped, a child stays so: no miss)."""
    deadline = time.monotonic() + 30  # a bound, not a measure
    while not (children := set(psutil.Process().children())) <= before:
        if time.monotonic() > deadline:
            break
        time.sleep(0.005)
    return children


def test_the_copy_s_result_is_read_back_whole_through_the_pipe():
    payload = os.urandom(3 * forked.READ_SIZE + 17)  # more than the pipe holds at once
    before = set(psutil.Process().children())  # the test run's own (a sandbox)
    copy = forked.Forked(lambda _say: payload)
    _ended(copy)
    assert copy.result() == payload
    assert children_once_reaped(before) == before  # the copy was reaped


def test_the_copy_s_outcome_is_read_before_the_copy_is_gone():
    """A copy says it is done, closes its pipe, and only then ends (a large process takes tens
    of milliseconds to end): the outcome is read without waiting for that, and the copy is
    reaped once it is gone. Here the copy cannot end until the test lets its own child go."""
    before = set(psutil.Process().children())
    hold, let_go = os.pipe()

    def done_then_held(_say) -> bytes:
        holder = os.fork()
        if holder == 0:  # every descriptor closed but its own: the copy's pipe too
            os.closerange(3, hold)
            os.closerange(hold + 1, 1 << 16)
            os.read(hold, 1)  # until the test closes its end
            os._exit(0)
        os.close(let_go)
        forked._to_reap.append(holder)  # the copy reaps it before it ends, as its own copies
        return b"done"

    copy = forked.Forked(done_then_held)
    os.close(hold)
    try:
        _ended(copy)
        assert copy.result() == b"done"
        (child,) = set(psutil.Process().children()) - before
        assert child.status() != psutil.STATUS_ZOMBIE  # still there, held: not waited for
    finally:
        os.close(let_go)  # the holder ends, then the copy
    assert children_once_reaped(before) == before


def test_a_copy_s_own_copies_do_not_hold_its_pipe_open():
    """The sort's first copy forks the second: the second must not keep the first's pipe open,
    or the window would read the first's end only once the second is gone."""
    before = set(psutil.Process().children())
    hold, let_go = os.pipe()

    def held(_say) -> bytes:
        os.close(let_go)
        os.read(hold, 1)  # until the test closes its end
        return b""

    def forks_a_held_copy(_say) -> bytes:
        inner = forked.Forked(held)
        os.close(let_go)
        forked._to_reap.append(inner._pid)  # this copy ends only once that one has
        return b"done"

    copy = forked.Forked(forks_a_held_copy)
    os.close(hold)
    try:
        deadline = time.monotonic() + 30  # a bound, not a measure: the end is read at once
        while not copy.poll() and time.monotonic() < deadline:
            time.sleep(0.001)
        assert copy.result() == b"done"
    finally:
        os.close(let_go)
    assert children_once_reaped(before) == before


def test_a_copy_that_fails_after_its_work_is_written_gives_no_result(monkeypatch):
    """Success is the copy's own word, set once all it wrote is written: a copy ended before
    that (killed, out of memory) has failed, whatever it wrote."""

    def written_then_killed(say) -> bytes:
        say(b"all of it")
        os.kill(os.getpid(), signal.SIGKILL)
        return b""

    copy = forked.Forked(written_then_killed)
    _ended(copy)
    assert copy.received() == b"all of it"
    assert copy.result() is None


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


LARGE_BLOCKS = """
import resource, time
from app.core.heap import keep_freed_memory
from app.ui.common import forked
assert keep_freed_memory()  # as the window has it once a statement is read
def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
def allocate():  # 48 MiB in blocks of 4 MiB (a million rows' sort keys are 8 MB), then freed
    blocks = [bytearray(4 << 20) for _ in range(12)]
    del blocks
def later_rounds(_say=None):
    allocate(); allocate()
    before = faults()
    for _ in range(3):
        allocate()
    return str(faults() - before).encode()
copy = forked.Forked(later_rounds)
while not copy.poll():  # the copy's end is final: this cannot miss it
    time.sleep(0.001)
print(later_rounds().decode(), copy.result().decode())
"""
LARGE_BLOCK_PAGES = 3 * 48 * 1024 * 1024 // 4096  # of the three rounds counted


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's settings")
def test_a_copy_reuses_the_large_blocks_it_frees_where_the_window_maps_each_anew():
    """The window maps each block of a megabyte or more apart (app.core.heap), every one
    faulted in anew; a copy doing a sort's work gets them from the heap and reuses them."""
    answer = subprocess.run(
        [sys.executable, "-c", LARGE_BLOCKS], capture_output=True, text=True, check=True
    )
    in_the_window, in_the_copy = map(int, answer.stdout.split())
    if in_the_window < LARGE_BLOCK_PAGES // 4:
        pytest.skip("this glibc reuses large blocks by itself: nothing to tell apart")
    assert in_the_copy < LARGE_BLOCK_PAGES // 10
