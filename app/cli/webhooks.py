"""``partner-desk webhooks``: the receiver in the foreground (``serve``) and the stored events
(``list``), on SQLite or PostgreSQL."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

from app.cli.common import EXIT_API_FAILURE, EXIT_INVALID_INPUT
from app.core.text import printable
from app.webhooks.receiver import GRACE_SECONDS, MAX_GRACE_SECONDS
from app.webhooks.signature import UnusableKey, load_public_key
from app.webhooks.store import StoreError, StoreMissing, default_store_path, open_store
from app.webhooks.workers import serve_forever

MAX_WORKERS = 16  # processes sharing the port; more than the cores only adds switching


def serve(
    host: str,
    port: int,
    public_key: str | None,
    db: str | None,
    workers: int,
    *,
    grace_seconds: float | None = None,
) -> int:

    if not 0 <= port <= 65535:
        print(f"partner-desk webhooks: --port must be from 0 to 65535, not {port}", file=sys.stderr)
        return EXIT_INVALID_INPUT
    if not 1 <= workers <= MAX_WORKERS:
        print(
            f"partner-desk webhooks: --workers must be from 1 to {MAX_WORKERS}, not {workers}",
            file=sys.stderr,
        )
        return EXIT_INVALID_INPUT
    grace = GRACE_SECONDS if grace_seconds is None else grace_seconds
    if not 0 <= grace <= MAX_GRACE_SECONDS:  # nan too
        print(
            f"partner-desk webhooks: --grace must be from 0 to {MAX_GRACE_SECONDS} seconds, "
            f"not {repr(grace_seconds).removesuffix('.0')}",  # as given: 3600.0001 is not 3600
            file=sys.stderr,
        )
        return EXIT_INVALID_INPUT
    # a headless service says what it does on stderr: unknown types, store failures
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    key = None
    if public_key is not None:
        try:
            key = load_public_key(Path(public_key).read_bytes())
        except (OSError, UnusableKey) as exc:
            print(f"partner-desk webhooks: --public-key {public_key}: {exc}", file=sys.stderr)
            return EXIT_INVALID_INPUT
    spec = db or default_store_path()
    # opened once here, so that a store that cannot be opened is said before anything
    # listens; each process then opens its own (a connection does not survive a fork)
    try:
        open_store(spec).close()
    except StoreError as exc:
        print(f"partner-desk webhooks: {exc}", file=sys.stderr)
        return EXIT_API_FAILURE
    try:
        serve_forever(
            lambda: open_store(spec),
            key,
            host=host,
            port=port,
            announce=lambda line: print(line, flush=True),
            workers=workers,
            grace_seconds=grace,
        )
    except OSError as exc:
        print(f"partner-desk webhooks: cannot listen on {host}:{port}: {exc}", file=sys.stderr)
        return EXIT_API_FAILURE
    return 0


def list_events(db: str | None, *, as_json: bool) -> int:

    try:
        store = open_store(db or default_store_path(), create=False)
    except StoreMissing as exc:
        if db is None:
            return 0  # nothing received yet on this computer: nothing to list
        print(f"partner-desk webhooks: {exc}", file=sys.stderr)
        return EXIT_API_FAILURE
    except StoreError as exc:
        print(f"partner-desk webhooks: {exc}", file=sys.stderr)
        return EXIT_API_FAILURE
    try:
        offset = 0
        while batch := store.list(limit=1000, offset=offset):
            for event in batch:
                if as_json:
                    print(json.dumps(event.as_json(), ensure_ascii=False))
                else:
                    verified = "signed" if event.signature_verified else "unsigned"
                    print(
                        f"{event.occurred_at}  {printable(event.event_type, 100):<28} "
                        f"{printable(event.status or '-', 20):<10} "
                        f"{printable(event.data_id or '-', 64):<20} {event.event_id} {verified}"
                        + (f" duplicates {event.duplicates}" if event.duplicates else "")
                    )
            offset += len(batch)
    finally:
        store.close()
    return 0
