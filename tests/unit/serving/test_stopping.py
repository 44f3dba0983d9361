"""A server's process, once its server has stopped, ends with status 0 however many stop
signals still come (app.serving.stopping.stop_signals_held)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

# a server's command as it ends: the signals taken first thing, a thread still there at the
# end (the receiver's copy watchers may be), the server stopped, then the process exits
ENDING = """
import threading, time
from app.serving.stopping import stop_signals_held, stop_signals_taken
stop_signals_taken()
threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
stop_signals_held()
print("held", flush=True)
"""


@pytest.mark.parametrize("sign", [signal.SIGTERM, signal.SIGINT])
def test_signals_sent_without_pause_while_the_process_ends_change_nothing(sign):
    """Sent as fast as they can be until the process is gone: through Python's finalization,
    which gives a handled signal its default action back. Blocked in the main thread only,
    they went to the other thread and ended the process with -15 (or -2), nearly every time."""
    for _ in range(5):
        process = subprocess.Popen(
            [sys.executable, "-c", ENDING], stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        assert process.stdout is not None
        assert process.stdout.readline() == b"held\n"
        deadline = time.monotonic() + 30  # a bound: it ends within milliseconds
        while process.poll() is None and time.monotonic() < deadline:
            try:
                process.send_signal(sign)
            except ProcessLookupError:  # gone between the look and the signal
                break
        _out, errors = process.communicate(timeout=30)
        assert (process.returncode, errors) == (0, b"")
