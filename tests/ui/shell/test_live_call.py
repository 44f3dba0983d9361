"""The pacing of a call kept up to date with typing (the live fee), on a clock of the test's
own, so that it is exact on any machine: a call after the pause, at most one per spacing
while the typing goes on, one at a time."""

import asyncio
import heapq
import itertools

import pytest

from app.ui.shell.tasks import LiveCall, TaskGroup
from tests.ui.conftest import run_on

PAUSE, SPACING, ANSWER = 0.09, 0.3, 0.005


class VirtualClock:
    """Time moves only when the test moves it; what sleeps wakes in order of its time."""

    def __init__(self) -> None:
        self.time = 0.0
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    def now(self) -> float:
        return self.time

    async def sleep(self, seconds: float) -> None:
        woken = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self.time + seconds, next(self._order), woken))
        await woken

    async def advance(self, seconds: float) -> None:
        end = self.time + seconds
        await _let_tasks_run()
        while self._sleepers and self._sleepers[0][0] <= end:
            when, _, woken = heapq.heappop(self._sleepers)
            self.time = max(self.time, when)
            if not woken.done():
                woken.set_result(None)
            await _let_tasks_run()
        self.time = end


async def _let_tasks_run() -> None:
    for _ in range(20):  # what woke runs until it waits on the clock again
        await asyncio.sleep(0)


def typed(qloop, keys: int, interval: float, answer: float = ANSWER) -> tuple[list, list, int]:
    """Type ``keys`` keys ``interval`` apart, then wait a second: when each call was made,
    what input it was for, and the most calls ever on their way at once."""

    async def scenario() -> tuple[list, list, int]:
        clock = VirtualClock()
        tasks = TaskGroup()
        made: list[float] = []
        asked_for: list[int] = []
        typed_so_far = 0
        on_their_way = most = 0

        async def answer_of() -> None:
            nonlocal on_their_way, most
            on_their_way += 1
            most = max(most, on_their_way)
            await clock.sleep(answer)
            on_their_way -= 1

        def call():
            made.append(round(clock.now(), 3))
            asked_for.append(typed_so_far)
            return answer_of()

        live = LiveCall(tasks, PAUSE, SPACING, call, clock=clock)
        for _ in range(keys):
            typed_so_far += 1
            live.changed()
            await clock.advance(interval)
        await clock.advance(1.0)
        assert not live.pending
        await tasks.aclose()
        return made, asked_for, most

    return run_on(qloop, scenario())


def test_ten_keys_at_a_persons_pace_make_four_calls_the_last_soon_after_the_last_key(qloop):
    made, asked_for, most = typed(qloop, 10, 0.12)
    last_key = 9 * 0.12
    assert len(made) == 4
    assert made[-1] == pytest.approx(last_key + PAUSE)
    assert asked_for[-1] == 10  # the last call is for all that was typed
    assert most == 1
    assert all(later - earlier >= SPACING for earlier, later in itertools.pairwise(made))


def test_fast_typing_waits_for_the_pause_and_makes_one_call(qloop):
    made, asked_for, _most = typed(qloop, 10, 0.05)
    assert made == [pytest.approx(9 * 0.05 + PAUSE)]
    assert asked_for == [10]


def test_a_slow_answer_holds_the_next_call_until_it_has_come(qloop):
    """Typing goes on while an answer takes 0.5 s: never two on their way, and the last
    input is still asked for once the answer before it came."""
    made, asked_for, most = typed(qloop, 10, 0.12, answer=0.5)
    assert most == 1
    assert asked_for[-1] == 10
    assert all(later - earlier >= 0.5 for earlier, later in itertools.pairwise(made))


def test_input_that_cannot_be_asked_for_makes_no_call(qloop):
    async def scenario() -> int:
        clock = VirtualClock()
        tasks = TaskGroup()
        live = LiveCall(tasks, PAUSE, SPACING, lambda: None, clock=clock)
        live.changed()
        await clock.advance(1.0)
        pending = live.pending
        await tasks.aclose()
        return live.calls + pending

    assert run_on(qloop, scenario()) == 0


def test_stopping_drops_the_call_that_was_due(qloop):
    async def scenario() -> int:
        clock = VirtualClock()
        tasks = TaskGroup()
        live = LiveCall(tasks, PAUSE, SPACING, lambda: asyncio.sleep(0), clock=clock)
        live.changed()
        live.stop()
        await clock.advance(1.0)
        await tasks.aclose()
        return live.calls

    assert run_on(qloop, scenario()) == 0


def test_input_that_could_not_be_asked_for_does_not_hold_the_next_call_back(qloop):
    """A field cleared (nothing to ask) and then typed into: the first key is asked for
    after the pause, not a spacing after the clearing."""

    async def scenario() -> list[float]:
        clock = VirtualClock()
        tasks = TaskGroup()
        made: list[float] = []
        text = [""]

        def call():
            if not text[0]:
                return None
            made.append(round(clock.now(), 3))
            return clock.sleep(ANSWER)

        live = LiveCall(tasks, PAUSE, SPACING, call, clock=clock)
        live.changed()  # cleared
        await clock.advance(PAUSE + 0.01)
        text[0] = "1"
        live.changed()
        await clock.advance(1.0)
        await tasks.aclose()
        return made

    assert run_on(qloop, scenario()) == [pytest.approx(2 * PAUSE + 0.01)]


def test_a_key_while_a_due_call_waits_for_the_busy_loop_does_not_put_it_off(qloop):
    """The call came due while the loop was busy, and a key came before the loop ran it: it
    is made as soon as the loop runs, for the input with that key, not a pause later (which
    put the last call of a typed amount off by the spacing, 150 ms after the last key)."""

    async def scenario() -> tuple[list[float], list[str]]:
        clock = VirtualClock()
        tasks = TaskGroup()
        made: list[float] = []
        asked_for: list[str] = []
        text = ["1"]

        def call():
            made.append(round(clock.now(), 3))
            asked_for.append(text[0])
            return clock.sleep(ANSWER)

        live = LiveCall(tasks, PAUSE, SPACING, call, clock=clock)
        live.changed()
        await clock.advance(0)  # waiting for the pause
        clock.time = PAUSE + 0.03  # the loop busy past the call's time: not woken yet
        text[0] = "12"
        live.changed()  # a key meanwhile
        await clock.advance(1.0)
        await tasks.aclose()
        return made, asked_for

    made, asked_for = run_on(qloop, scenario())
    assert made == [pytest.approx(PAUSE + 0.03)]
    assert asked_for == ["12"]
