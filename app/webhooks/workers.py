"""The receiver in the foreground (``partner-desk webhooks serve``), in one process or in
several that share its port.

One process verifies and stores deliveries on one core; a sender's burst is then bounded by
that core. With ``workers`` above 1 (Linux), the program forks that many minus one copies of
itself before anything starts a thread; each listens on the same port (SO_REUSEPORT, the
kernel spreading connections among them), opens the store on its own and commits on its
own: the database's unique event_id keeps one event stored once, whichever copy took it,
and each copy answers only after its own commit, as one process does. A copy ends when the
first process does, however it ends (it watches a pipe whose other end only the first holds),
and the first waits for its copies before it exits.
"""

from __future__ import annotations

import asyncio
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

from cryptography.hazmat.primitives.asymmetric import rsa

from app.serving.runner import serve_unless_stopped
from app.serving.sockets import bind
from app.serving.stopping import StopRequest
from app.webhooks.receiver import listening_url, receiver_server
from app.webhooks.store import EventStore

log = logging.getLogger("partner_desk.webhooks")

STOP_SECONDS = 10.0  # a copy finishes its answers and ends within this, or it is killed


def default_workers() -> int:
    """Two processes where the kernel spreads a port's connections and there are two cores
    to run them on; one elsewhere."""
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
) -> None:
    """Serve until interrupted; announce the address once connections are accepted. The
    store is opened in each process (a database connection does not survive a fork)."""
    workers = workers if hasattr(os, "fork") and threading.active_count() == 1 else 1
    sock = bind(host, port, shared=workers > 1)
    url = listening_url(host, sock)
    copies: list[int] = []  # each copy's process
    stopping = threading.Event()  # the first process is ending: its copies end with it
    stop = StopRequest()  # the copies inherit it, each its own
    previous = {sign: signal.signal(sign, stop) for sign in (signal.SIGTERM, signal.SIGINT)}
    held: list[int] = []  # the pipe ends the copies watch, while open
    # a stop tells the copies at once, so that they end beside this process, not after it
    stop.also = partial(_tell_copies, held)
    try:
        for number in range(2, workers + 1):
            if stop.asked:
                break
            try:
                pid, pipe = _start_copy(number, host, sock, open_store, key, held, stop)
                copies.append(pid)
                held.append(pipe)
            except OSError as exc:  # no process to be had: served by those there are
                log.warning(
                    "worker %d could not be started (%s): %d serving", number, exc, number - 1
                )
                break
        _watch_copies(copies, stopping, stop)  # threads only now: every copy is forked
        store = open_store()
        try:
            serve_unless_stopped(
                stop,
                receiver_server(store, key),
                sock,
                lambda: announce(f"Webhook receiver listening on {url}"),
            )
        finally:
            store.close()
    finally:
        stopping.set()
        sock.close()
        _stop_copies(copies, held)
        # only now: a second signal while the copies are awaited must not end this process
        # the default way, leaving them behind
        for sign, handler in previous.items():
            signal.signal(sign, handler)


def _start_copy(
    number: int,
    host: str,
    sock: socket.socket,
    open_store: Callable[[], EventStore],
    key: rsa.RSAPublicKey | None,
    earlier: list[int],
    stop: StopRequest,
) -> tuple[int, int]:
    """Fork copy ``number`` on a socket of its own on the same port: its process, and the end
    of the pipe it watches (closed, it ends)."""
    own = bind(host, sock.getsockname()[1], shared=True, joining=True)
    try:
        watched, held = os.pipe()
    except OSError:
        own.close()
        raise
    try:
        pid = os.fork()
    except OSError:
        for descriptor in (watched, held):
            os.close(descriptor)
        own.close()
        raise
    if pid == 0:  # the copy: it never returns
        code = 1
        try:
            stop.also = None  # the first process's to tell, not this copy's
            os.close(held)
            for other in earlier:  # the pipe ends of the copies before it: not its to hold
                os.close(other)
            sock.close()
            _serve_copy(number, own, watched, open_store, key, stop)
            code = 0
        except BaseException:
            traceback.print_exc()
        finally:
            logging.shutdown()
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    os.close(watched)
    own.close()
    return pid, held


def _serve_copy(
    number: int,
    sock: socket.socket,
    watched: int,
    open_store: Callable[[], EventStore],
    key: rsa.RSAPublicKey | None,
    stop: StopRequest,
) -> None:
    for handler in logging.getLogger().handlers:  # an operator sees which process speaks
        handler.setFormatter(
            logging.Formatter(f"%(asctime)s %(name)s [worker {number}] %(levelname)s %(message)s")
        )
    store = open_store()
    server = receiver_server(store, key)

    def started() -> None:
        loop = asyncio.get_running_loop()

        def watch_first() -> None:
            # only the first process holds the other end: its end, however it ended, is ours
            with contextlib.suppress(OSError):
                while os.read(watched, 4096):
                    pass
            with contextlib.suppress(RuntimeError):  # the loop has ended already
                loop.call_soon_threadsafe(setattr, server, "should_exit", True)

        threading.Thread(target=watch_first, name="first-watch", daemon=True).start()

    try:
        serve_unless_stopped(stop, server, sock, started)
    finally:
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


def _tell_copies(held: list[int]) -> None:
    """Tell each copy to end: the pipe it watches closes. Each end is closed once (taken off
    the list first), whether by a signal's handler or by the stop, whichever comes first."""
    while held:
        with contextlib.suppress(OSError):
            os.close(held.pop())


def _stop_copies(copies: list[int], held: list[int]) -> None:
    """Tell each copy to end, if not told yet, then wait for it, killing one that lingers."""
    _tell_copies(held)
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
