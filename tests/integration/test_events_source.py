"""The desk's receiver of the embedded sandbox's events, started beside the first loads: a
start runs to its end even when the one who asked is cancelled (a receiver half started would
run on unseen), and closing during a start waits for it and stops what it started."""

import asyncio

import pytest

from app.webhooks.source import EventsSource
from tests.conftest import run


def _subscriptions(sandbox_url: str) -> list[str]:
    import httpx

    found = httpx.get(f"{sandbox_url}/_sandbox/webhooks/subscriptions", timeout=10).json()
    return sorted(each["url"] for each in found)


def _subscribed(sandbox_url: str, receiver_url: str) -> bool:
    return receiver_url in _subscriptions(sandbox_url)


def test_a_start_whose_caller_is_cancelled_still_ends_started(sandbox_url, tmp_path):
    source = EventsSource(tmp_path / "events.db", sandbox_url=sandbox_url)

    async def scenario() -> None:
        asking = asyncio.ensure_future(source.start())
        await asyncio.sleep(0)  # under way
        asking.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asking
        await source.start()  # the same start, gone on to its end
        try:
            assert source.receiver is not None
            assert source.subscription_id is not None
            assert _subscribed(sandbox_url, source.receiver.url)
        finally:
            await source.aclose()

    run(scenario())
    assert source.receiver is None and source.store is None


def test_closing_during_a_start_waits_for_it_and_stops_what_it_started(sandbox_url, tmp_path):
    """The leak check after the test finds any receiver's thread left running."""
    source = EventsSource(tmp_path / "events.db", sandbox_url=sandbox_url)
    before = _subscriptions(sandbox_url)

    async def scenario() -> None:
        starting = asyncio.ensure_future(source.start())
        await asyncio.sleep(0)  # under way: the store is being opened
        assert not starting.done()
        await source.aclose()
        assert starting.done()
        await starting

    run(scenario())
    assert source.receiver is None and source.store is None
    assert _subscriptions(sandbox_url) == before


def test_a_start_that_failed_is_tried_again(sandbox_url, tmp_path):
    from app.webhooks.store import StoreError

    blocked = tmp_path / "a file, not a folder"
    blocked.write_text("")
    source = EventsSource(blocked / "events.db", sandbox_url=sandbox_url)

    async def scenario() -> None:
        with pytest.raises(StoreError):
            await source.start()
        assert source.problem
        blocked.unlink()
        blocked.mkdir()
        await source.start()
        try:
            assert source.subscription_id is not None
        finally:
            await source.aclose()

    run(scenario())
