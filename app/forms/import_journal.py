"""The progress of a payment file's import, kept on disk so that it resumes where it stopped:
one JSON line per step, appended and flushed to disk before the step's call goes out ("sending")
and once its outcome is known ("accepted", "refused", "unknown"). A line torn by a crash is
ignored; the last line of a payment says where it stands. The journal of a file is found by
its MsgId, so the same file imported again (or from a copy, or corrected) finds it.

While an import runs, its journal is locked: a second import of the same file (another window,
the command line) is refused instead of racing the first."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import IO, Any

FOLDER = "payment imports"
MAX_JOURNAL_BYTES = 64 * 1024 * 1024  # a journal no import writes: refused, not read


class JournalBusy(Exception):
    """Another import of the same file is running."""


class ImportJournal:
    def __init__(self, data_folder: Path, message_id: str) -> None:
        digest = hashlib.sha256(message_id.encode("utf-8", "surrogatepass")).hexdigest()[:24]
        self.path = data_folder / FOLDER / f"{digest}.jsonl"
        self.states: dict[str, dict[str, Any]] = {}
        self._handle: IO[str] | None = None

    def open(self) -> None:
        """Read where each payment stands and lock the journal for this import."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = self.path.open("a+", encoding="utf-8")
        try:
            _lock(handle)
        except OSError:
            handle.close()
            raise JournalBusy(
                "This file is being imported by another window or command: wait for it to end"
            ) from None
        self._handle = handle
        self.states = read_states(self.path)

    def close(self) -> None:
        if self._handle is not None:
            with contextlib.suppress(OSError):
                _unlock(self._handle)
            self._handle.close()
            self._handle = None

    def __enter__(self) -> ImportJournal:
        self.open()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def state(self, key: str) -> str:
        return str(self.states.get(key, {}).get("state", ""))

    def record(self, key: str, state: str, **details: Any) -> None:
        """The step, on disk before this returns."""
        if self._handle is None:
            raise RuntimeError("the journal is not open")
        entry = {"key": key, "state": state, **details}
        self._handle.write(json.dumps(entry, ensure_ascii=True) + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())
        self.states[key] = entry


def read_states(path: Path) -> dict[str, dict[str, Any]]:
    """The last line of each payment; a torn or foreign line is skipped."""
    states: dict[str, dict[str, Any]] = {}
    if not path.exists() or path.stat().st_size > MAX_JOURNAL_BYTES:
        return states
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, dict) and isinstance(entry.get("key"), str):
                states[entry["key"]] = entry
    return states


if sys.platform == "win32":  # pragma: no cover - the desk is tested on Linux
    import msvcrt

    def _lock(handle: IO[str]) -> None:
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)

    def _unlock(handle: IO[str]) -> None:
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _lock(handle: IO[str]) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(handle: IO[str]) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
