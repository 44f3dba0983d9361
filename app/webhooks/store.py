"""The durable event store: SQLite (one file, WAL, every commit synced) by default, PostgreSQL
when given a ``postgresql://`` URL so a team's desks read one receiver's events.

``add`` commits a batch in one transaction and says, per event, whether it was new (stored)
or a duplicate of a stored event_id (counted, not stored twice). The receiver answers 2xx only
after that commit. Listing orders by occurred_at, then event_id.

Every call is bounded in time: a store that cannot be reached, or a table another session
holds locked, raises ``StoreUnavailable`` within a few seconds (the receiver answers 503 and
the sender retries). PostgreSQL connections come from a pool that replaces a broken one, and
work cut short by one is done again on another, so a restarted server or an ended connection
costs nothing once the server is back."""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

from app.webhooks.delivery import Event

T = TypeVar("T")

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
WAIT_SECONDS = 3.0  # for a connection (or SQLite's lock), past which the store is unavailable
LOCK_POLL_SECONDS = 0.0005  # between two tries at SQLite's write lock
LOCK_MS = 2_000  # PostgreSQL: a lock held by another session is waited for this long
STATEMENT_MS = 4_000  # and any statement runs at most this long
POOL_SIZE = 4  # PostgreSQL connections kept at most


class StoreError(Exception):
    """The store cannot be opened or used; the message says why."""


class StoreMissing(StoreError):
    """A store only read (``create=False``) does not exist: nothing was created."""


class StoreUnavailable(StoreError):
    """The store cannot be reached, or did not answer in time: nothing was stored, and the
    same call may succeed later."""


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


_ON_CONFLICT = "ON CONFLICT (event_id) DO UPDATE SET duplicates = webhook_events.duplicates + 1 "
_INSERTED = f"INSERT INTO webhook_events ({', '.join(COLUMNS[:-1])}) "
# the columns' types (as _SCHEMA has them), for PostgreSQL's arrays of them
_INTEGER_COLUMNS = ("signature_verified", "known_type", "duplicates")
_PG_TYPES = tuple("integer" if name in _INTEGER_COLUMNS else "text" for name in COLUMNS[:-1])


def _sqlite_upsert(rows: list[tuple[Any, ...]]) -> tuple[str, list[Any]]:
    """One statement for the rows: each new event inserted, each known one counted as a
    duplicate; it returns each event_id with whether it was new."""
    one = f"({', '.join('?' for _ in COLUMNS[:-1])})"
    sql = (
        f"{_INSERTED}VALUES {', '.join(one for _ in rows)} {_ON_CONFLICT}"
        "RETURNING event_id, duplicates = 0"
    )
    return sql, [value for row in rows for value in row]


# the same for PostgreSQL, with a column's values as one array: one statement, prepared once,
# for every size of batch; with a value a parameter, psycopg parsed each batch's statement
# anew (it keeps those of at most 50 parameters): a third of the store's processor time
_PG_UPSERT = (
    f"{_INSERTED}SELECT * FROM unnest({', '.join(f'%b::{kind}[]' for kind in _PG_TYPES)}) "  # noqa: S608 - constant names; values are bound
    f"{_ON_CONFLICT}RETURNING event_id, (xmax = 0)"
)


def _pg_upsert(rows: list[tuple[Any, ...]]) -> tuple[str, list[Any]]:
    return _PG_UPSERT, [list(column) for column in zip(*rows, strict=True)]


def _rounds(events: Sequence[Event]) -> list[list[int]]:
    """The batch's positions in rounds in which no event_id occurs twice (one statement may
    not both insert a row and count it as a duplicate): an id's first occurrence in the
    first round, its second in the next, and so on."""
    rounds: list[list[int]] = []
    seen: dict[str, int] = {}
    for index, event in enumerate(events):
        occurrence = seen.get(event.event_id, 0)
        seen[event.event_id] = occurrence + 1
        if occurrence == len(rounds):
            rounds.append([])
        rounds[occurrence].append(index)
    return rounds


Rows = Callable[[str, list[Any]], list[Any]]
Upsert = Callable[[list[tuple[Any, ...]]], tuple[str, list[Any]]]


def _write_batch(events: Sequence[Event], run: Rows, upsert: Upsert) -> list[bool]:
    """Whether each event was new, the batch written with one statement a round (a statement
    per event cost a round trip, or a call into the database, each)."""
    results = [False] * len(events)
    for positions in _rounds(events):
        answer = run(*upsert([_row(events[index]) for index in positions]))
        new = {str(event_id) for event_id, was_new in answer if was_new}
        for index in positions:
            results[index] = events[index].event_id in new
    return results


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


class SqliteStore:
    def __init__(self, path: Path, *, create: bool = True) -> None:
        """``create``: make the file (and its folder) when there is none; else StoreMissing."""
        self.path = path
        try:
            if create:
                path.parent.mkdir(parents=True, exist_ok=True)
                where: str | Path = path
            else:  # opened only if it is there: a listing never leaves a file behind
                where = path.absolute().as_uri() + "?mode=rw"
            self._db = sqlite3.connect(
                where, check_same_thread=False, isolation_level=None, uri=not create
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")  # a commit is on disk when it returns
            self._db.execute(f"PRAGMA busy_timeout={int(WAIT_SECONDS * 1000)}")
            self._db.execute(_SCHEMA)
            self._db.execute(_INDEX)
        except (OSError, sqlite3.Error) as exc:
            if not create and not path.exists():
                raise StoreMissing(f"there is no event store at {path}") from None
            raise StoreError(f"cannot open the event store {path}: {exc}") from None
        self._lock = threading.Lock()

    @property
    def where(self) -> str:
        return str(self.path)

    def add(self, events: Sequence[Event]) -> list[bool]:
        def run(sql: str, values: list[Any]) -> list[Any]:
            return self._db.execute(sql, values).fetchall()

        with self._lock, _sqlite_unavailable(self.path):
            self._begin_writing()
            try:
                results = _write_batch(events, run, _sqlite_upsert)
                self._db.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):  # a failed BEGIN left none to end
                    self._db.execute("ROLLBACK")
                raise
        return results

    def _begin_writing(self) -> None:
        """BEGIN IMMEDIATE, tried again every LOCK_POLL_SECONDS while another process
        writes, until WAIT_SECONDS have passed. SQLite's own wait sleeps 1, 2, 5, 10… ms
        between tries, several times another writer's whole commit (about 1 ms): the
        receiver's processes sharing a file waited on each other far longer than needed."""
        deadline = time.monotonic() + WAIT_SECONDS
        self._db.execute("PRAGMA busy_timeout=0")
        try:
            while True:
                try:
                    self._db.execute("BEGIN IMMEDIATE")
                    return
                except sqlite3.OperationalError as exc:
                    if exc.sqlite_errorcode != sqlite3.SQLITE_BUSY:
                        raise
                    if time.monotonic() >= deadline:
                        raise
                time.sleep(LOCK_POLL_SECONDS)
        finally:
            self._db.execute(f"PRAGMA busy_timeout={int(WAIT_SECONDS * 1000)}")

    def list(
        self,
        *,
        event_type: str | None = None,
        status: str | None = None,
        limit: int = 1000,
        offset: int = 0,
        newest_first: bool = False,
    ) -> list[Event]:
        where, values = _filters(event_type, status, "?")
        query = (
            f"SELECT {', '.join(COLUMNS)} FROM webhook_events{where} "  # noqa: S608 - constant names; values are bound
            f"ORDER BY {_order(newest_first)} LIMIT ? OFFSET ?"
        )
        with self._lock, _sqlite_unavailable(self.path):
            rows = self._db.execute(query, (*values, min(limit, MAX_LIST), offset)).fetchall()
        return [_event(row) for row in rows]

    def count(self) -> int:
        with self._lock, _sqlite_unavailable(self.path):
            row = self._db.execute("SELECT count(*) FROM webhook_events").fetchone()
        return int(row[0]) if row else 0

    def close(self) -> None:
        with self._lock:
            self._db.close()


class PostgresStore:
    """Connections from a pool, replaced when broken, each set to give up on a lock or a
    statement in a bounded time. They are not checked before use: a check is a round trip
    more for every batch (5% fewer deliveries a second); work that finds its connection
    broken is done again on another instead (`_run`)."""

    def __init__(self, url: str) -> None:
        import psycopg
        from psycopg_pool import ConnectionPool, PoolTimeout

        self.url = url
        # the pool's line per failed connection attempt would repeat, many times a second, what
        # the receiver says once (the store is away; it is back)
        logging.getLogger("psycopg.pool").setLevel(logging.ERROR)
        self._pool: ConnectionPool[Any] = ConnectionPool(
            url,
            kwargs={
                "autocommit": True,
                "connect_timeout": max(2, int(WAIT_SECONDS)),
                # a statement prepared at its first use, not its fifth: a batch's is then
                # prepared from a connection's first batch on (one for every size of batch)
                "prepare_threshold": 0,
            },
            min_size=1,
            max_size=POOL_SIZE,
            open=False,
            configure=_configure,
            timeout=WAIT_SECONDS,
            reconnect_timeout=WAIT_SECONDS,
            name="partner-desk-events",
            num_workers=1,
        )
        try:
            self._pool.open(wait=True, timeout=2 * WAIT_SECONDS)
            with self._pool.connection() as db, db.transaction():
                # two receivers starting on one database create the table once
                db.execute("SELECT pg_advisory_xact_lock(7464736)")
                db.execute(_SCHEMA)
                db.execute(_INDEX)
        except (PoolTimeout, psycopg.Error) as exc:
            self._pool.close()
            raise StoreError(f"cannot open the event store at PostgreSQL: {exc}") from None

    @property
    def where(self) -> str:
        from urllib.parse import urlsplit

        parts = urlsplit(self.url)
        host = parts.hostname or "local socket"
        return f"postgresql://{host}{parts.path}"  # never the password

    def _run(self, work: Callable[[Any], T], *, several: bool = False) -> T:
        """``work`` on a connection of the pool: one statement, its own transaction, or with
        ``several`` statements, one transaction around them (BEGIN and COMMIT are a round
        trip each, paid only where statements must stand or fall together). A
        connection found broken, or lost before the commit, is replaced and the work done
        again on another (every write here may be repeated), as many times as the pool may
        hold connections broken at once (a restarted server ends them all); a server away,
        or a statement past its bounds, is StoreUnavailable."""
        import psycopg
        from psycopg_pool import PoolTimeout

        last = POOL_SIZE + 1
        for attempt in range(1, last + 1):
            try:
                with self._pool.connection() as db:
                    if not several:
                        return work(db)
                    with db.transaction():
                        return work(db)
            except PoolTimeout:
                raise StoreUnavailable(
                    f"the event store at {self.where} cannot be reached"
                ) from None
            except (psycopg.errors.QueryCanceled, psycopg.errors.LockNotAvailable):
                raise StoreUnavailable(
                    f"the event store at {self.where} did not answer in time (a lock held "
                    "elsewhere, or a slow server)"
                ) from None
            except psycopg.OperationalError as exc:
                if attempt == last:
                    raise StoreUnavailable(
                        f"the event store at {self.where} is unavailable: {exc}"
                    ) from None
        raise AssertionError("unreachable")  # pragma: no cover

    def add(self, events: Sequence[Event]) -> list[bool]:
        def write(db: Any) -> list[bool]:
            def run(sql: str, values: list[Any]) -> list[Any]:
                return list(db.execute(sql, values).fetchall())

            return _write_batch(events, run, _pg_upsert)

        # a batch with an event twice is a statement a round (`_rounds`)
        return self._run(write, several=len(_rounds(events)) > 1)

    def list(
        self,
        *,
        event_type: str | None = None,
        status: str | None = None,
        limit: int = 1000,
        offset: int = 0,
        newest_first: bool = False,
    ) -> list[Event]:
        where, values = _filters(event_type, status, "%s")
        query = (
            f"SELECT {', '.join(COLUMNS)} FROM webhook_events{where} "  # noqa: S608 - constant names; values are bound
            f"ORDER BY {_order(newest_first)} LIMIT %s OFFSET %s"
        )
        rows = self._run(
            lambda db: db.execute(query, (*values, min(limit, MAX_LIST), offset)).fetchall()
        )
        return [_event(row) for row in rows]

    def count(self) -> int:
        row = self._run(lambda db: db.execute("SELECT count(*) FROM webhook_events").fetchone())
        return int(row[0]) if row else 0

    def close(self) -> None:
        self._pool.close()


def _configure(db: Any) -> None:
    """Each new connection gives up on a lock, or a statement, in a bounded time (set in
    autocommit, so the connection is idle again when the pool takes it)."""
    db.execute(f"SET lock_timeout = {LOCK_MS}")
    db.execute(f"SET statement_timeout = {STATEMENT_MS}")


@contextlib.contextmanager
def _sqlite_unavailable(path: Path) -> Iterator[None]:
    """SQLite's refusals that pass (locked past the wait, a full disk, an I/O error) are
    StoreUnavailable."""
    try:
        yield
    except sqlite3.OperationalError as exc:
        raise StoreUnavailable(f"the event store {path} is unavailable: {exc}") from None


def open_store(spec: str | Path, *, create: bool = True) -> EventStore:
    """A ``postgresql://`` (or ``postgres://``) URL, or a SQLite file's path (made when
    there is none unless ``create`` is false: then StoreMissing)."""
    text = str(spec)
    if text.startswith(("postgresql://", "postgres://")):
        return PostgresStore(text)
    return SqliteStore(Path(text).expanduser(), create=create)


def default_store_path() -> Path:
    """The event store's file in the desk's data folder (app.core.data_folder)."""
    from app.core.data_folder import data_folder

    return data_folder() / "webhook-events.db"
