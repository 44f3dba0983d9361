"""The executor of the desk's loop: blocking calls in threads that end with them."""

from __future__ import annotations

import concurrent.futures
import threading
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


class ThreadPerCall(concurrent.futures.Executor):
    """Runs each call (a file read, a store opened, the sandbox started) in a thread of its
    own that ends with the call: no thread waits idle for the next, and shutting down joins
    the ones still working."""

    def __init__(self, name: str = "partner-desk-call") -> None:
        self._name = name
        self._lock = threading.Lock()
        self._threads: set[threading.Thread] = set()
        self._closed = False

    def submit(
        self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs
    ) -> concurrent.futures.Future[T]:
        future: concurrent.futures.Future[T] = concurrent.futures.Future()

        def call() -> None:
            try:
                if future.set_running_or_notify_cancel():
                    try:
                        result = fn(*args, **kwargs)
                    except BaseException as exc:
                        future.set_exception(exc)
                    else:
                        future.set_result(result)
            finally:
                with self._lock:
                    self._threads.discard(threading.current_thread())

        with self._lock:
            if self._closed:
                raise RuntimeError("cannot run a call after the loop's executor shut down")
            thread = threading.Thread(target=call, name=self._name, daemon=True)
            self._threads.add(thread)
        thread.start()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            self._closed = True
            running = list(self._threads)
        if wait:
            for thread in running:
                thread.join()
