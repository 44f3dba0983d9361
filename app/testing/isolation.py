"""A home of its own for a test run or a benchmark: the settings, data folder, documents,
Qt's own files and the keyring of the user running it are never touched.

Everything the desk and its libraries write goes by these variables (Qt's standard paths,
QSettings, keyring, the webhook store, pgserver through platformdirs), and so do the processes
a run starts, which inherit them. ``user_files`` lists what the user's own folders hold where
those would write, so that a run can prove it left them as they were."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

# where a run's files go, as the variables that say so on Linux, macOS and Windows
_FOLDERS = {
    "HOME": "home",
    "XDG_CONFIG_HOME": "home/.config",
    "XDG_DATA_HOME": "home/.local/share",
    "XDG_STATE_HOME": "home/.local/state",
    "XDG_CACHE_HOME": "home/.cache",
    "XDG_RUNTIME_DIR": "runtime",
    "APPDATA": "home/AppData/Roaming",
    "LOCALAPPDATA": "home/AppData/Local",
    "USERPROFILE": "home",
}
# no system keyring at all: a test that needs one installs its own in memory, and a
# process started by a test (the command, the frozen app) keeps passwords for its session
_KEYRING = {"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}

# below a user's home: where the desk, Qt and keyring would write (the desk's settings, data
# and webhook store; Qt's file dialog state; file-based keyrings), looked at in full
_WRITTEN_HERE = (
    ".config/PartnerDesk",
    ".config/QtProject.conf",
    ".local/share/PartnerDesk",
    ".local/share/Partner Desk",
    ".local/state/PartnerDesk",
    ".cache/PartnerDesk",
    ".local/share/python_keyring",
    ".local/share/keyrings",
    "Library/Preferences/com.partnerdesk.PartnerDesk.plist",
    "Library/Application Support/PartnerDesk",
    "Library/Application Support/Partner Desk",
    "AppData/Roaming/PartnerDesk",
    "AppData/Roaming/Partner Desk",
)
# the folders a file dialog opens first (exports): what they hold, not below
_LISTED_HERE = ("", "Documents", ".config", ".local/share")


@contextlib.contextmanager
def separate_home(prefix: str = "partner-desk-run-") -> Iterator[Path]:
    """Point every user folder variable at a new temporary home for the time inside, then
    put them back and remove that home."""
    root = Path(tempfile.mkdtemp(prefix=prefix))
    changes = {name: str(root / relative) for name, relative in _FOLDERS.items()}
    changes.update(_KEYRING)
    for folder in {changes[name] for name in _FOLDERS}:
        Path(folder).mkdir(parents=True, exist_ok=True)
    Path(changes["XDG_RUNTIME_DIR"]).chmod(0o700)  # as Qt requires of it
    (root / "home" / "Documents").mkdir()
    previous = {name: os.environ.get(name) for name in changes}
    os.environ.update(changes)
    try:
        yield root / "home"
    finally:
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        shutil.rmtree(root, ignore_errors=True)


FileState = dict[str, tuple[int, int, int]]


def user_files(home: Path) -> FileState:
    """What a home holds where a run of the desk would write: each path with its kind, size
    and modification time (folders listed one level where only their listing matters)."""
    state: FileState = {}

    def note(path: Path) -> None:
        with contextlib.suppress(OSError):
            info = path.lstat()
            size = 0 if stat.S_ISDIR(info.st_mode) else info.st_size
            state[str(path.relative_to(home))] = (stat.S_IFMT(info.st_mode), size, info.st_mtime_ns)

    for relative in _WRITTEN_HERE:
        top = home / relative
        note(top)
        if top.is_dir() and not top.is_symlink():
            for folder, subfolders, names in os.walk(top):
                for name in [*subfolders, *names]:
                    note(Path(folder) / name)
    for relative in _LISTED_HERE:
        with contextlib.suppress(OSError):
            for entry in (home / relative).iterdir():
                state.setdefault(str(entry.relative_to(home)), (0, 0, 0))
    return state


def changes_between(before: FileState, after: FileState) -> list[str]:
    """The paths added, removed or changed, in words."""

    def change(path: str) -> str:
        return "added" if path not in before else "removed" if path not in after else "changed"

    return [
        f"{path}: {change(path)}"
        for path in sorted(before.keys() | after.keys())
        if before.get(path) != after.get(path)
    ]
