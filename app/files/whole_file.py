"""A file written beside its place and put there only when whole: a failure or a cancel leaves
no half file, and a file it was to replace as it was. A link is followed (the file it names is
replaced, the link stays); anything but a regular file in the way — a folder, a device such as
/dev/full, a pipe — is refused, never replaced."""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any


def writable_target(path: Path) -> Path:
    """Where writing ``path`` puts the file (a link's target); OSError, saying why, when no
    file can be put there."""
    if not path.name:
        raise IsADirectoryError(21, "no file name given", str(path))
    target = path.resolve() if path.is_symlink() else path
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        if not target.parent.is_dir():
            raise FileNotFoundError(2, "its folder does not exist", str(target.parent)) from None
        return target
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(21, "it is a folder", str(target))
    if not stat.S_ISREG(mode):
        raise OSError(0, "it is not a regular file (a device or a pipe)", str(target))
    return target


@contextlib.contextmanager
def written_whole(
    path: Path, mode: str = "w", *, encoding: str | None = None, newline: str | None = None
) -> Iterator[IO[Any]]:
    target = writable_target(path)
    partial = target.with_name(f".{target.name}.{secrets.token_hex(4)}.partial")
    try:
        with partial.open(mode, encoding=encoding, newline=newline) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
