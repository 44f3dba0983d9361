"""Regression guard for PySide6 6.12.0 (DESIGN.md): killTimer corrupted None's refcount and
the app aborted after a few thousand qasync iterations. This spins well past that."""

import asyncio

from tests.ui.conftest import run_on


def test_qasync_loop_survives_50000_iterations(qloop):
    async def spin() -> int:
        count = 0
        for _ in range(50_000):
            await asyncio.sleep(0)
            count += 1
        return count

    assert run_on(qloop, spin(), timeout=300) == 50_000


def test_scheduled_callbacks_and_timers_keep_running(qloop):
    fired = []

    async def schedule() -> None:
        loop = asyncio.get_running_loop()
        for index in range(5_000):
            loop.call_soon(fired.append, index)
        await asyncio.sleep(0.05)
        for index in range(200):
            loop.call_later(0.001, fired.append, index)
        deadline = loop.time() + 10
        while len(fired) < 5_200 and loop.time() < deadline:
            await asyncio.sleep(0.01)

    run_on(qloop, schedule())
    assert len(fired) == 5_200
