"""The qasync loop, completed with what asyncio's own loops set up when they run."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import qasync
    from PySide6.QtWidgets import QApplication


def new_event_loop(app: QApplication) -> qasync.QEventLoop:
    """The loop the desk runs on: qasync's, with asyncio's async-generator hooks and an
    executor whose threads end with their calls (qasync's own keeps ten QThreads that outlive
    a loop nobody closed: "QThread: Destroyed while thread is still running" at exit)."""
    import qasync

    from app.ui.shell.call_threads import ThreadPerCall

    loop = qasync.QEventLoop(app)
    adopt_async_generators(loop)
    loop.set_default_executor(ThreadPerCall())
    return loop


def adopt_async_generators(loop: Any) -> None:
    """qasync does not install asyncio's async-generator hooks. Without them an async
    generator dropped mid-iteration (a download cancelled between two chunks, deep inside
    httpx) is finalised by the garbage collector outside any task and its clean-up fails;
    with them the loop closes it in a task of its own, as asyncio's loops do."""
    sys.set_asyncgen_hooks(
        firstiter=loop._asyncgen_firstiter_hook, finalizer=loop._asyncgen_finalizer_hook
    )
