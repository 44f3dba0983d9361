"""The durable event store: SQLite (one file, WAL, every commit synced) by default, PostgreSQL
when given a ``postgresql://`` URL so a team's desks read one receiver's events.

``add`` commits a batch in one transaction and says, per event, whether it was new (stored)
or a duplicate of a stored event_id (counted, not stored twice). The receiver answers 2xx only
after that commit. Listing orders by occurred_at, then event_id."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from app.webhooks.delivery import Event

COLUMNS = (
    "event_id",
    "event_type",
    "resource",
    "action",
    "occurred_at",
    "status",
    "data_id",
    "body",
    "headers",
    "signature_verified",
    "known_type",
    "received_at",
    "duplicates",
)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS webhook_events (
    event_id TEXT PRIMARY KEY,
    event_type TEXT NOT NULL,
    resource TEXT NOT NULL,
    action TEXT NOT NULL,
    occurred_at TEXT NOT NULL,
    status TEXT,
    data_id TEXT,
    body TEXT NOT NULL,
    headers TEXT NOT NULL,
    signature_verified INTEGER NOT NULL,
    known_type INTEGER NOT NULL,
    received_at TEXT NOT NULL,
    duplicates INTEGER NOT NULL DEFAULT 0
)
"""
_INDEX = "CREATE INDEX IF NOT EXISTS webhook_events_order ON webhook_events (occurred_at, event_id)"
MAX_LIST = 10_000


class StoreError(Exception):
    """The store cannot be opened or used; the message says why."""


class EventStore(Protocol):
    def add(self, events: Sequence[Event]) -> list[bool]: ...

    def list(
        self,
        *,
        event_type: str | None = None,
        status: str | None = None,
        limit: int = 1000,
        offset: int = 0,
        newest_first: bool = False,
    ) -> list[Event]: ...

    def count(self) -> int: ...

    def close(self) -> None: ...

    @property
    def where(self) -> str: ...


def _row(event: Event) -> tuple[Any, ...]:
    return (
        event.event_id,
        event.event_type,
        event.resource,
        event.action,
        event.occurred_at,
        event.status,
        event.data_id,
        event.body,
        json.dumps(event.headers),
        int(event.signature_verified),
        int(event.known_type),
        event.received_at,
    )


def _event(row: Sequence[Any]) -> Event:
    values = dict(zip(COLUMNS, row, strict=True))
    values["headers"] = json.loads(values["headers"])
    values["signature_verified"] = bool(values["signature_verified"])
    values["known_type"] = bool(values["known_type"])
    return Event(**values)


def _filters(event_type: str | None, status: str | None, mark: str) -> tuple[str, list[Any]]:
    clauses, values = [], []
    if event_type:
        clauses.append(f"event_type = {mark}")
        values.append(event_type)
    if status:
        clauses.append(f"status = {mark}")
        values.append(status)
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    return where, values


def _order(newest_first: bool) -> str:
    return "occurred_at DESC, event_id DESC" if newest_first else "occurred_at, event_id"


class _SqlStore:
    """What both stores share: listing, counting and closing over a DB-API connection whose
    placeholder is ``_mark``."""

    _mark = "?"
    _db: Any
    _lock: threading.Lock

    def list(
        self,
        *,
        event_type: str | None = None,
        status: str | None = None,
        limit: int = 1000,
        offset: int = 0,
        newest_first: bool = False,
    ) -> list[Event]:
        where, values = _filters(event_type, status, self._mark)
        query = (
            f"SELECT {', '.join(COLUMNS)} FROM webhook_events{where} "  # noqa: S608 - constant names; values are bound
            f"ORDER BY {_order(newest_first)} LIMIT {self._mark} OFFSET {self._mark}"
        )
        with self._lock:
            rows = self._db.execute(query, (*values, min(limit, MAX_LIST), offset)).fetchall()
        return [_event(row) for row in rows]

    def count(self) -> int:
        with self._lock:
            row = self._db.execute("SELECT count(*) FROM webhook_events").fetchone()
        return int(row[0]) if row else 0

    def close(self) -> None:
        with self._lock:
            self._db.close()


class SqliteStore(_SqlStore):
    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")  # a commit is on disk when it returns
            self._db.execute("PRAGMA busy_timeout=10000")
            self._db.execute(_SCHEMA)
            self._db.execute(_INDEX)
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot open the event store {path}: {exc}") from None
        self._lock = threading.Lock()

    @property
    def where(self) -> str:
        return str(self.path)

    def add(self, events: Sequence[Event]) -> list[bool]:
        placeholders = ", ".join("?" for _ in range(len(COLUMNS) - 1))
        insert = (
            f"INSERT OR IGNORE INTO webhook_events ({', '.join(COLUMNS[:-1])}) "  # noqa: S608 - constant names; values are bound
            f"VALUES ({placeholders})"
        )
        results = []
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for event in events:
                    stored = self._db.execute(insert, _row(event)).rowcount == 1
                    if not stored:
                        self._db.execute(
                            "UPDATE webhook_events SET duplicates = duplicates + 1 "
                            "WHERE event_id = ?",
                            (event.event_id,),
                        )
                    results.append(stored)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return results


class PostgresStore(_SqlStore):
    _mark = "%s"

    def __init__(self, url: str) -> None:
        import psycopg

        self.url = url
        try:
            self._db = psycopg.connect(url, autocommit=True)
            self._db.execute(_SCHEMA)
            self._db.execute(_INDEX)
        except psycopg.Error as exc:
            raise StoreError(f"cannot open the event store at PostgreSQL: {exc}") from None
        self._lock = threading.Lock()

    @property
    def where(self) -> str:
        from urllib.parse import urlsplit

        parts = urlsplit(self.url)
        host = parts.hostname or "local socket"
        return f"postgresql://{host}{parts.path}"  # never the password

    def add(self, events: Sequence[Event]) -> list[bool]:
        placeholders = ", ".join("%s" for _ in range(len(COLUMNS) - 1))
        insert = (
            f"INSERT INTO webhook_events ({', '.join(COLUMNS[:-1])}) VALUES ({placeholders}) "  # noqa: S608 - constant names; values are bound
            "ON CONFLICT (event_id) DO UPDATE SET duplicates = webhook_events.duplicates + 1 "
            "RETURNING (xmax = 0)"
        )
        results = []
        with self._lock, self._db.transaction():
            for event in events:
                row = self._db.execute(insert, _row(event)).fetchone()
                results.append(bool(row and row[0]))
        return results


def open_store(spec: str | Path) -> EventStore:
    """A ``postgresql://`` (or ``postgres://``) URL, or a SQLite file's path."""
    text = str(spec)
    if text.startswith(("postgresql://", "postgres://")):
        return PostgresStore(text)
    return SqliteStore(Path(text).expanduser())


def default_store_path() -> Path:
    """The event store's file in the user's data folder (no Qt here: the same rule as the
    desk's own folder, by platform)."""
    import os
    import sys

    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "PartnerDesk" / "webhook-events.db"
