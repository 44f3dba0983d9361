"""A file written beside its place and put there only when whole: a failure or a cancel leaves
no half file, and a file it was to replace as it was."""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any


@contextlib.contextmanager
def written_whole(
    path: Path, mode: str = "w", *, encoding: str | None = None, newline: str | None = None
) -> Iterator[IO[Any]]:
    partial = path.with_name(f".{path.name}.{secrets.token_hex(4)}.partial")
    try:
        with partial.open(mode, encoding=encoding, newline=newline) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
