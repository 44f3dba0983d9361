"""A real PostgreSQL server for the tests that need one (pgserver: a pip-installed PostgreSQL),
one for the session, in a folder removed afterwards; a database of its own for each test;
and the server stopped, started and restarted for real, as an operator would."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


class Postgres:
    def __init__(self, server: Any) -> None:
        self.server = server
        self.uri: str = server.get_uri()

    def _ctl(self, *args: str) -> None:
        from pgserver._commands import pg_ctl

        pg_ctl(["-w", *args], pgdata=self.server.pgdata, user=self.server.system_user, timeout=60)

    def restart(self) -> None:
        """pg_ctl restart: every connection is ended, the server is back at once."""
        self._ctl("restart", "-m", "fast")

    def stop(self) -> None:
        self._ctl("stop", "-m", "fast")

    def start(self) -> None:
        self.server.ensure_postgres_running()  # as before: the same socket folder

    @contextlib.contextmanager
    def stopped(self) -> Iterator[None]:
        """The server away for the time inside; back afterwards, however that ends."""
        self.stop()
        try:
            yield
        finally:
            self.start()

    def fresh_database(self) -> str:
        import psycopg

        name = f"events_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.uri, autocommit=True) as connection:
            connection.execute(f"CREATE DATABASE {name}")
        return self.uri.replace("/postgres?", f"/{name}?", 1)

    def end_connections(self, database_uri: str) -> int:
        """pg_terminate_backend for every other connection to that database."""
        import psycopg

        with psycopg.connect(database_uri, autocommit=True) as connection:
            rows = connection.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE pid <> pg_backend_pid() AND datname = current_database()"
            ).fetchall()
        return len(rows)

    @contextlib.contextmanager
    def locked(self, database_uri: str, table: str = "webhook_events") -> Iterator[None]:
        """Another session holds the table locked (ACCESS EXCLUSIVE) for the time inside."""
        import psycopg

        with psycopg.connect(database_uri) as connection:
            connection.execute(f"LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE")
            try:
                yield
            finally:
                connection.rollback()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Postgres]:
    import pgserver

    folder = Path(tempfile.mkdtemp(prefix="pd-pg-"))
    server = pgserver.get_server(folder, cleanup_mode="stop")
    try:
        yield Postgres(server)
    finally:
        server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres(postgres_server: Postgres) -> str:
    """The server's address (its postgres database)."""
    return postgres_server.uri


@pytest.fixture
def postgres_database(postgres_server: Postgres) -> str:
    """A database of this test's own on the session's server."""
    return postgres_server.fresh_database()
