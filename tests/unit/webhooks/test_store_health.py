"""The receiver's writer while its store is away: every delivery refused (never said stored),
the store asked again at most once a second meanwhile, one log line each way; and SQLite held
locked by another writer is unavailable within its bound, not waited for without end."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import sqlite3
from collections.abc import Sequence

import pytest

from app.webhooks.delivery import Event, check
from app.webhooks.receiver import StoreHealth, Writer
from app.webhooks.store import StoreUnavailable, open_store
from tests.webhook_helpers import delivery, event_body


def event() -> Event:
    headers, raw = delivery(event_body(), signed=False)
    return check({k.lower(): v for k, v in headers.items()}, raw, None, dt.datetime.now(dt.UTC))


class AwayStore:
    """A store whose server is away until ``back`` is set."""

    where = "postgresql://db/events"

    def __init__(self) -> None:
        self.back = False
        self.asked = 0
        self.events: list[Event] = []

    def add(self, events: Sequence[Event]) -> list[bool]:
        self.asked += 1
        if not self.back:
            raise StoreUnavailable("the event store at postgresql://db/events cannot be reached")
        self.events.extend(events)
        return [True] * len(events)

    def close(self) -> None:
        pass


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def outcome(writer: Writer) -> bool | BaseException:
    told: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
    writer.put(event(), told)
    try:
        return await told
    except StoreUnavailable as exc:
        return exc


@pytest.mark.allow_warning_logs
def test_away_then_back_refuses_each_delivery_asks_once_a_second_and_logs_once_each_way(caplog):
    caplog.set_level(logging.INFO, logger="partner_desk.webhooks")
    store, clock = AwayStore(), Clock()
    writer = Writer(store, StoreHealth(retry_seconds=1.0, clock=clock))

    async def scenario() -> list[bool | BaseException]:
        results = [await outcome(writer) for _ in range(3)]  # within the same second
        clock.now += 1.5
        results.append(await outcome(writer))  # asked again: still away
        store.back = True
        results.append(await outcome(writer))  # refused at once: asked 0 s ago
        clock.now += 1.5
        results.append(await outcome(writer))  # asked again: back
        return results

    try:
        results = asyncio.run(scenario())
    finally:
        writer.close()
    assert [isinstance(r, StoreUnavailable) for r in results] == [True] * 5 + [False]
    assert results[-1] is True and len(store.events) == 1  # only the stored one is said so
    assert store.asked == 3
    lines = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert lines == [
        (
            "WARNING",
            "the event store at postgresql://db/events cannot be reached: deliveries are "
            "answered 503 until it is back",
        ),
        ("INFO", "the event store is back after 3.0 s; 5 deliveries were refused meanwhile"),
    ]
    assert not any(r.exc_info for r in caplog.records)


@pytest.mark.slow
def test_sqlite_held_by_another_writer_is_unavailable_within_its_bound(tmp_path):
    path = tmp_path / "events.db"
    store = open_store(path)
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # another receiver's transaction, never ending
        with pytest.raises(StoreUnavailable, match="database is locked"):
            store.add([event()])
        other.execute("ROLLBACK")
        assert store.add([event()]) == [True]
    finally:
        other.close()
        store.close()
