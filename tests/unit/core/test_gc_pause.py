"""The collector during the window's start: paused until the first page is shown, then what
the start made is frozen out of its reach and it resumes; a bulk pause inside the start does
not resume it early."""

import gc
from collections.abc import Iterator

import pytest

from app.core import gc_pause


@pytest.fixture
def _unfrozen() -> Iterator[None]:
    yield
    gc.unfreeze()  # the next tests' objects are the collector's again
    gc.enable()


@pytest.mark.usefixtures("_unfrozen")
def test_the_start_pauses_the_collector_until_it_is_over_then_freezes_what_it_made():
    frozen_before = gc.get_freeze_count()
    gc_pause.pause_for_start()
    assert not gc.isenabled()
    with gc_pause.gc_paused():  # a bulk step during the start
        assert not gc.isenabled()
    assert not gc.isenabled()  # the start's pause goes on
    made = [[n] for n in range(1000)]  # what the start makes
    gc_pause.started()
    assert gc.isenabled()
    assert gc.get_freeze_count() >= frozen_before + len(made)
    gc_pause.started()  # once only: a second end changes nothing
    assert gc.isenabled()


@pytest.mark.usefixtures("_unfrozen")
def test_the_start_changes_nothing_when_the_collector_was_off_already():
    gc.disable()
    gc_pause.pause_for_start()
    gc_pause.started()
    assert not gc.isenabled()  # it stays as its owner left it
