"""The qasync loop, completed with what asyncio's own loops set up when they run."""

from __future__ import annotations

import sys
from typing import Any


def adopt_async_generators(loop: Any) -> None:
    """qasync does not install asyncio's async-generator hooks. Without them an async
    generator dropped mid-iteration (a download cancelled between two chunks, deep inside
    httpx) is finalised by the garbage collector outside any task and its clean-up fails;
    with them the loop closes it in a task of its own, as asyncio's loops do."""
    sys.set_asyncgen_hooks(
        firstiter=loop._asyncgen_firstiter_hook, finalizer=loop._asyncgen_finalizer_hook
    )
