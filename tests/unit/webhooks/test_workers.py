"""The receiver's copies: one that cannot be forked leaves nothing open behind it."""

from __future__ import annotations

import errno
import os
import sys

import pytest

from app.serving.sockets import bind
from app.webhooks import workers
from tests.leak_check import MadeDescriptors

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork, /proc")


def test_a_copy_that_cannot_be_forked_leaves_no_socket_or_pipe_open(monkeypatch):
    def no_process() -> int:
        raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_process)
    sock = bind("127.0.0.1", 0)
    try:
        descriptors = MadeDescriptors(monkeypatch)
        with pytest.raises(BlockingIOError):
            workers._start_copy(
                2, sock, lambda: None, None, {}, workers.Tally(2), workers.StopRequest()
            )
        assert descriptors.made and descriptors.still_open() == []
    finally:
        sock.close()


def test_one_worker_where_connections_are_not_handed_between_processes(monkeypatch):
    monkeypatch.setattr(sys, "platform", "darwin")
    assert workers.default_workers() == 1
