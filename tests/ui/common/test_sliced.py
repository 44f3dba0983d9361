"""Long work in slices: work that raises ends, and keeps nothing of what it made."""

import logging
import weakref

import pytest

from app.ui.common.sliced import SlicedWork
from tests.conftest import Lines


class Made:
    """Something the work made (a sort's keys, say)."""


def test_work_that_raises_ends_is_said_and_keeps_nothing_it_made(qtbot, monkeypatch):
    made: list[weakref.ref[Made]] = []

    def work():
        held = Made()
        made.append(weakref.ref(held))
        yield
        raise MemoryError

    log = logging.getLogger("partner_desk.ui")
    lines = Lines()
    monkeypatch.setattr(log, "propagate", False)
    log.addHandler(lines)
    try:
        failures: list[Exception] = []
        finished: list[bool] = []
        sliced = SlicedWork()
        sliced.finished.connect(lambda: finished.append(True))
        sliced.start("Sorting…", work(), lambda _rows: pytest.fail("no rows"), failures.append)
        qtbot.waitUntil(lambda: not sliced.running, timeout=10_000)
    finally:
        log.removeHandler(lines)
    assert [type(failure) for failure in failures] == [MemoryError] and finished == [True]
    assert len(lines.lines) == 1 and lines.lines[0].startswith("Sorting failed\nTraceback")
    # out of memory, the recovery needs back what the work made: its traceback is dropped
    assert failures[0].__traceback__ is None and made[0]() is None
