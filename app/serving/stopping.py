"""Stopping a server in the foreground: SIGTERM and Ctrl-C taken as a request to stop.
Without uvicorn, so that a command can take the signals before it imports its server."""

from __future__ import annotations

import signal
from collections.abc import Callable
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import uvicorn


class StopRequest:
    """SIGTERM and SIGINT taken as a request to stop: the server is told to exit, when there
    is one, and nothing is raised. An exception raised from a handler lands wherever the
    signal finds the process — in logging's fork hooks it left their lock held, and a later
    log line waited for it for ever — and uvicorn raises both signals again once it has shut
    down, which would otherwise end the process the default way (status -15 for SIGTERM)
    before what it holds is closed (the receiver's store, its copies waited for)."""

    def __init__(self) -> None:
        self.asked = False
        self.server: uvicorn.Server | None = None
        self.also: Callable[[], None] | None = None  # told at once too (the receiver's copies)

    def __call__(self, _signal: int, _frame: object) -> None:
        self.asked = True
        if self.server is not None:
            self.server.should_exit = True
        if self.also is not None:
            self.also()

    def watch(self, server: uvicorn.Server) -> None:
        """Tell ``server`` to exit on a stop request, and this request when uvicorn takes the
        signals while it serves (`app.serving.runner.serve_unless_stopped`)."""
        self.server = server
        uvicorn_exit = server.handle_exit

        def handle_exit(sign: int, frame: FrameType | None) -> None:
            # uvicorn's handler while it serves (it calls this one once it has shut down):
            # what is to be told at once is, not after this process's grace
            uvicorn_exit(sign, frame)
            self(sign, frame)

        server.handle_exit = handle_exit  # type: ignore[method-assign,assignment]


_taken: StopRequest | None = None


def stop_signals_taken() -> StopRequest:
    """SIGTERM and Ctrl-C taken, for the rest of the process, as a request to stop — the same
    request however often asked (the main thread only). A server's command takes them first
    thing and never gives them back: a signal while it starts, or a second one while it
    ends, is that request, where the default action ended it with status -15 (or Ctrl-C
    with a traceback)."""
    global _taken
    if _taken is None:
        _taken = StopRequest()
        for sign in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sign, _taken)
    return _taken


def stop_signals_held() -> None:
    """The server has stopped and its process is about to exit: SIGTERM and Ctrl-C are
    ignored from now on. Python's finalization gives a signal with a handler of Python's its
    default action back (not one ignored), and one sent again and again while it ran ended
    the process with -15 (or -2) after a clean stop. Ignored, not blocked: a mask is the
    calling thread's, and a thread still there at the end (the receiver's copy watchers)
    took the signal, the default way, once the main thread blocked it."""
    for sign in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sign, signal.SIG_IGN)
