"""The receiver in the foreground (``partner-desk webhooks serve``), in one process or in
several on one port.

One process verifies and stores deliveries on one core; a sender's burst is then bounded by
that core. With ``workers`` above 1 (Linux), the program forks that many minus one copies of
itself before anything starts a thread. The first process alone listens on the port and
hands each connection to the process with the fewest open (`app.serving.spread`); each copy
opens the store on its own and commits on its own: the database's unique event_id keeps one
event stored once, whichever copy took it, and each copy answers only after its own commit,
as one process does. A copy ends when the first process does, however it ends (its end of
the socket pair the connections come through closes), and the first waits for its copies
before it exits.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Protocol

from cryptography.hazmat.primitives.asymmetric import rsa

from app.serving.runner import serve_unless_stopped
from app.serving.sockets import bind
from app.serving.spread import HandedSocket, SpreadingSocket, Tally
from app.serving.stopping import StopRequest, stop_signals_taken
from app.webhooks.receiver import GRACE_SECONDS, listening_url, receiver_server
from app.webhooks.store import EventStore

if TYPE_CHECKING:
    import uvicorn


class ServerFor(Protocol):
    """A receiver's server over a store, telling ``on_closed`` of each connection that ends
    (`receiver_server` with the process's key and grace)."""

    def __call__(self, store: EventStore, *, on_closed: Callable[[], None]) -> uvicorn.Server: ...


log = logging.getLogger("partner_desk.webhooks")

STOP_SECONDS = 10.0  # a copy finishes its answers and ends within this, or it is killed


def default_workers() -> int:
    """Two processes on Linux (where connections are handed between processes as
    `app.serving.spread` does) with two cores to run them on; one elsewhere."""
    if not sys.platform.startswith("linux"):
        return 1
    return 2 if len(os.sched_getaffinity(0)) >= 2 else 1


def serve_forever(
    open_store: Callable[[], EventStore],
    key: rsa.RSAPublicKey | None,
    *,
    host: str,
    port: int,
    announce: Callable[[str], None],
    workers: int = 1,
    grace_seconds: float = GRACE_SECONDS,
) -> None:
    """Serve until interrupted; announce the address once connections are accepted. The
    store is opened in each process (a database connection does not survive a fork). A stop
    waits ``grace_seconds`` for the answers under way."""
    serving: ServerFor = partial(receiver_server, key=key, grace_seconds=grace_seconds)
    workers = workers if hasattr(os, "fork") and threading.active_count() == 1 else 1
    listening = bind(host, port)
    url = listening_url(host, listening)
    copies: list[int] = []  # each copy's process
    stopping = threading.Event()  # the first process is ending: its copies end with it
    # taken since the command began (app.cli.main), for good: a stop while it starts, or a
    # second one while it ends, is the same request; the copies inherit it, each its own
    stop = stop_signals_taken()
    tally = Tally(workers)
    # this process's end of each copy's socket pair, by the copy's place in the tally, while
    # open: a stop closes them at once, so that the copies end beside this process
    channels: dict[int, socket.socket] = {}
    stop.also = partial(_tell_copies, channels)
    try:
        for number in range(2, workers + 1):
            if stop.asked:
                break
            try:
                pid, channels[number - 1] = _start_copy(
                    number, listening, open_store, serving, channels, tally, stop
                )
                copies.append(pid)
            except OSError as exc:  # no process to be had: served by those there are
                log.warning(
                    "worker %d could not be started (%s): %d serving", number, exc, number - 1
                )
                break
        _watch_copies(copies, stopping, stop)  # threads only now: every copy is forked
        if channels:
            listening = SpreadingSocket(listening, tally, channels)
        store = open_store()
        try:
            serve_unless_stopped(
                stop,
                serving(store, on_closed=partial(tally.closed_one, 0)),
                listening,
                lambda: announce(f"Webhook receiver listening on {url}"),
            )
        finally:
            store.close()
    finally:
        stopping.set()
        listening.close()
        _stop_copies(copies, channels)


def _start_copy(
    number: int,
    listening: socket.socket,
    open_store: Callable[[], EventStore],
    serving: ServerFor,
    earlier: dict[int, socket.socket],
    tally: Tally,
    stop: StopRequest,
) -> tuple[int, socket.socket]:
    """Fork copy ``number``, served the connections the first process hands it over a
    socket pair: its process, and this process's end of the pair (closed, the copy ends)."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        pid = os.fork()
    except OSError:
        ours.close()
        theirs.close()
        raise
    if pid == 0:  # the copy: it never returns
        code = 1
        try:
            stop.also = None  # the first process's to tell, not this copy's
            ours.close()
            for other in earlier.values():  # the copies' before it: not its to hold
                other.close()
            listening.close()
            _serve_copy(number, theirs, open_store, serving, tally, stop)
            code = 0
        except BaseException:
            traceback.print_exc()
        finally:
            logging.shutdown()
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    theirs.close()
    return pid, ours


def _serve_copy(
    number: int,
    channel: socket.socket,
    open_store: Callable[[], EventStore],
    serving: ServerFor,
    tally: Tally,
    stop: StopRequest,
) -> None:
    for handler in logging.getLogger().handlers:  # an operator sees which process speaks
        handler.setFormatter(
            logging.Formatter(f"%(asctime)s %(name)s [worker {number}] %(levelname)s %(message)s")
        )
    closed = partial(tally.closed_one, number - 1)
    store = open_store()
    server = serving(store, on_closed=closed)
    # the pair's end: the first process ended, however it ended, or was asked to stop
    handed = HandedSocket(
        channel,
        taken=partial(tally.taken_one, number - 1),
        closed=closed,
        ended=partial(setattr, server, "should_exit", True),
    )
    try:
        serve_unless_stopped(stop, server, handed, lambda: None)
    finally:
        handed.close()
        store.close()


def _watch_copies(copies: list[int], stopping: threading.Event, stop: StopRequest) -> None:
    """Say in the log when a copy ends while the first process serves on (killed, or failed):
    the others go on serving the port, one process fewer."""

    def watch(number: int, pid: int) -> None:
        try:
            _pid, status = os.waitpid(pid, 0)
        except ChildProcessError:  # reaped by the stop
            return
        if stopping.is_set() or stop.asked:  # ended as asked (Ctrl-C reaches every process)
            return
        code = os.waitstatus_to_exitcode(status)
        how = f"exit status {code}"
        if code < 0:
            with contextlib.suppress(ValueError):  # a signal with no name keeps its number
                how = f"killed by {signal.Signals(-code).name}"
        log.warning("worker %d ended on its own (%s): the others serve on", number, how)

    for number, pid in enumerate(copies, start=2):
        watcher = threading.Thread(target=watch, args=(number, pid), name=f"worker-{number}-watch")
        watcher.daemon = True  # never holds the first process's exit
        watcher.start()


def _tell_copies(channels: dict[int, socket.socket]) -> None:
    """Tell each copy to end: its socket pair closes. Each is closed once (taken off first),
    whether by a signal's handler or by the stop, whichever comes first."""
    while channels:
        _number, channel = channels.popitem()
        channel.close()


def _stop_copies(copies: list[int], channels: dict[int, socket.socket]) -> None:
    """Tell each copy to end, if not told yet, then wait for it, killing one that lingers."""
    _tell_copies(channels)
    deadline = time.monotonic() + STOP_SECONDS
    for pid in copies:
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(pid, os.WNOHANG)[0] == 0:
                if time.monotonic() >= deadline:
                    log.warning("worker %d did not end in %.0f s: killed", pid, STOP_SECONDS)
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    break
                time.sleep(0.05)
