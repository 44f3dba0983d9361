"""Work done in a forked copy of this process, its result read back through a pipe (Linux).

Sorting a million loaded rows is a few hundred milliseconds of one C call that holds the
interpreter: on the GUI thread it must be cut into slices and merged, which costs twice the
sort itself. A forked copy has every column as the process had it at the fork, without a
byte copied, sorts on the other core in one call, and writes the result down a pipe that the
GUI thread reads between its paints. The copy runs Python only — no Qt, no collector (a
cycle of Qt wrappers finalised in the copy would call into a Qt it does not have), no exit
handlers — and ends with os._exit.

A copy says it succeeded by a flag in memory shared with the process that forked it, then
closes the pipe, and only then ends: ending a copy of a large process (its memory unmapped)
takes a few tens of milliseconds, which the window no longer waits on. The window reaps an
ended copy on a thread of its own; a copy reaps the copies it forked before it ends.
"""

from __future__ import annotations

import contextlib
import gc
import mmap
import os
import signal
import sys
import threading
from collections.abc import Callable

from app.core import heap

AVAILABLE = sys.platform.startswith("linux")  # macOS forbids most of its libraries after fork
if AVAILABLE:
    import fcntl
READ_SIZE = 1 << 20
# the pipe's room: a million sorted rows are 4 MB, which the window reads between its paints
# (every few milliseconds) — 64 kB at a time, Linux's default, took a quarter of a second
PIPE_SIZE = 1 << 20
_PR_SET_PDEATHSIG = 1  # prctl(2)


class Forked:
    """``work`` run in a forked copy; `poll` reads what it wrote, `result` is it once whole.
    The work is given ``say``, which writes bytes down the pipe at once (progress), before
    what it returns."""

    def __init__(self, work: Callable[[Callable[[bytes], None]], bytes]) -> None:
        """OSError when no pipe or process can be had (nothing is left open then)."""
        parent = os.getpid()
        status = mmap.mmap(-1, 1)  # shared: the copy sets it once its work is all written
        try:
            read_end, write_end = os.pipe()
        except OSError:
            status.close()
            raise
        with contextlib.suppress(OSError):  # a smaller pipe only means more reads
            fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, PIPE_SIZE)
        try:
            pid = os.fork()
        except OSError:
            os.close(read_end)
            os.close(write_end)
            status.close()
            raise
        if pid == 0:  # the copy: it never returns
            code = 1
            try:
                global _in_copy, _written_by_this_copy
                _in_copy = True
                _to_reap.clear()  # the window's copies are not this copy's children
                if _written_by_this_copy is not None:
                    # the pipe of the copy this one was forked by: kept open here, it would
                    # say that copy's end only once this one is gone
                    os.close(_written_by_this_copy)
                _written_by_this_copy = write_end
                gc.disable()
                heap.reuse_large_blocks()
                os.close(read_end)
                _end_with(parent)
                _write_all(write_end, work(lambda said: _write_all(write_end, said)))
                status[0] = _SUCCEEDED
                os.close(write_end)  # the window reads the end now, not once this copy is gone
                code = 0
                for child in _to_reap:
                    with contextlib.suppress(ChildProcessError):
                        os.waitpid(child, 0)
            finally:
                os._exit(code)
        os.close(write_end)
        os.set_blocking(read_end, False)
        self._pid: int | None = pid
        self._pipe = read_end
        self._status = status
        self._parts: list[bytes] = []
        self._succeeded = False

    def poll(self) -> bool:
        """Read what the copy has written so far; True once it has closed its end of the pipe
        (done, or ended): never blocks."""
        if self._pid is None:
            return True
        while True:
            try:
                part = os.read(self._pipe, READ_SIZE)
            except BlockingIOError:
                return False
            if not part:
                break
            self._parts.append(part)
        os.close(self._pipe)
        self._succeeded = self._status[0] == _SUCCEEDED
        self._status.close()
        _reap(self._pid)
        self._pid = None
        return True

    def wait(self) -> bytes | None:
        """Read until the copy has ended, blocking (in a copy, which has no window to keep
        painting): what `result` then is."""
        if self._pid is not None:
            os.set_blocking(self._pipe, True)
            self.poll()
        return self.result()

    def received(self) -> bytes:
        """What the copy has written so far (read by `poll`)."""
        return b"".join(self._parts)

    def result(self) -> bytes | None:
        """What the work returned; None if the copy failed, or has not ended."""
        return b"".join(self._parts) if self._succeeded else None

    def cancel(self) -> None:
        """End the copy now (nothing when it has ended)."""
        if self._pid is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(self._pid, signal.SIGKILL)
        os.close(self._pipe)
        self._status.close()
        os.waitpid(self._pid, 0)
        self._pid = None


_SUCCEEDED = 1
_in_copy = False  # this process is a copy: it reaps its own copies before it ends
_written_by_this_copy: int | None = None  # in a copy, its end of its pipe
_to_reap: list[int] = []  # a copy's copies that had not ended when last read


def _reap(pid: int) -> None:
    """Collect an ended copy's exit without waiting for it to be gone: at once if it is, else
    on a thread (the window), or before this copy ends (a copy)."""
    with contextlib.suppress(ChildProcessError):
        if os.waitpid(pid, os.WNOHANG)[0]:
            return
        if _in_copy:
            _to_reap.append(pid)
        else:
            threading.Thread(
                target=_wait_for, args=(pid,), name="forked-reaper", daemon=True
            ).start()


def _wait_for(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def _end_with(parent: int) -> None:
    """Have the kernel kill this copy when the process that forked it ends (a window closed
    by force, a copy that forked a copy of its own and was cancelled): it does not work on
    for no one."""
    import ctypes  # in the copy only

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # it ended before the kernel was told: end now
        os._exit(1)


def _write_all(pipe: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(pipe, view) :]
