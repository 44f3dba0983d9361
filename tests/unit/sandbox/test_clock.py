"""The sandbox's clock and scheduler: time-driven changes run when their time comes."""

import asyncio
import datetime as dt

import pytest

from app.sandbox.clock import Clock, Scheduler

START = dt.datetime(2026, 1, 5, 9, 0, tzinfo=dt.UTC)


def test_a_frozen_clock_moves_only_when_advanced():
    clock = Clock(frozen_at=START)
    assert clock.now() == START == clock.now()
    clock.advance(dt.timedelta(days=2))
    assert clock.now() == START + dt.timedelta(days=2)
    with pytest.raises(ValueError, match="forward"):
        clock.advance(dt.timedelta(seconds=-1))


def test_jobs_run_in_the_order_they_fall_due_with_their_own_moment():
    clock = Clock(frozen_at=START)
    scheduler = Scheduler(clock)
    ran = []
    scheduler.at(START + dt.timedelta(seconds=5), lambda moment: ran.append(("b", moment)))
    scheduler.at(START + dt.timedelta(seconds=2), lambda moment: ran.append(("a", moment)))
    scheduler.at(START + dt.timedelta(days=1), lambda moment: ran.append(("c", moment)))
    assert scheduler.run_due() == 0
    clock.advance(dt.timedelta(seconds=10))
    assert scheduler.run_due() == 2
    assert ran == [("a", START + dt.timedelta(seconds=2)), ("b", START + dt.timedelta(seconds=5))]
    assert len(scheduler) == 1 and scheduler.next_due() == START + dt.timedelta(days=1)


@pytest.mark.allow_warning_logs
def test_a_failing_job_is_dropped_and_the_rest_run():
    clock = Clock(frozen_at=START)
    scheduler = Scheduler(clock)
    ran = []

    def broken(moment):
        raise RuntimeError("boom")

    scheduler.at(START, broken, "broken")
    scheduler.at(START, ran.append)
    assert scheduler.run_due() == 2
    assert ran == [START] and len(scheduler) == 0


def test_the_runner_fires_jobs_in_real_time_with_no_request():
    async def scenario():
        scheduler = Scheduler(Clock())
        fired = asyncio.Event()
        runner = asyncio.create_task(scheduler.run())
        await asyncio.sleep(0.05)  # the runner sleeps; a new job wakes it early
        scheduler.at(scheduler.clock.now() + dt.timedelta(milliseconds=50), lambda _m: fired.set())
        await asyncio.wait_for(fired.wait(), 2)
        runner.cancel()

    asyncio.run(scenario())
