"""Where the desk keeps its own files (the order journal, the sandbox's and the receiver's
event stores): a folder named `Partner Desk` in the user's data folder, by platform, for the
window and the `webhooks` command alike (no Qt here).

Earlier versions kept them in `PartnerDesk/Partner Desk` (the window's, as Qt names an
organisation's application folder) and in `PartnerDesk` (the receiver's store). The first
use moves what those hold into the new folder, file by file, never over a file already there:
nothing is left behind unseen, and nothing is overwritten."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from pathlib import Path

log = logging.getLogger("partner_desk.data")

NAME = "Partner Desk"
_OLD_ORGANISATION = "PartnerDesk"


def user_data_base() -> Path:
    """The platform's folder for applications' data."""
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support"
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")


def data_folder(base: Path | None = None) -> Path:
    """The desk's data folder (made when missing), with the files of the older layouts moved
    into it."""
    base = base or user_data_base()
    folder = base / NAME
    old = base / _OLD_ORGANISATION
    if old.is_dir():
        _move_into(old / NAME, folder)  # the window's files
        _move_into(old, folder)  # the receiver's store, beside that folder
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _move_into(old: Path, folder: Path) -> None:
    """The files (and folders) in ``old`` moved into ``folder``, each unless ``folder`` has
    one of that name already (then it stays where it was, and the log says so); ``old`` is
    removed when that leaves it empty. A name another process moved meanwhile is passed."""
    if not old.is_dir():
        return
    if not folder.exists():
        try:
            folder.parent.mkdir(parents=True, exist_ok=True)
            old.rename(folder)  # the whole folder in one step
            log.info("Moved the desk's files from %s to %s", old, folder)
            return
        except OSError:
            pass  # another process made the folder first, or another disk: one by one
    folder.mkdir(parents=True, exist_ok=True)
    for item in sorted(old.iterdir()):
        target = folder / item.name
        if item == folder or item.name == NAME:
            continue
        if target.exists():
            log.warning("Kept %s where it is: %s already exists", item, target)
            continue
        try:
            item.rename(target)
        except FileNotFoundError:
            continue
        except OSError as exc:
            log.warning("Could not move %s to %s: %s", item, target, exc)
            continue
        log.info("Moved %s to %s", item, target)
    with contextlib.suppress(OSError):  # not empty: what stays is named in the log
        old.rmdir()
