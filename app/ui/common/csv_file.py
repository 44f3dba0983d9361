"""Exporting rows as CSV: the file chosen in the Documents folder (or the last folder used),
written in chunks between which the GUI keeps running, every cell a spreadsheet would run as a
formula neutralised. It is written beside the file chosen and put in its place only when
whole: a cancel or a failure leaves no half file, and a file it was to replace as it was."""

from __future__ import annotations

import errno
import itertools
import os
import re
import secrets
import shutil
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TextIO

from PySide6.QtCore import QSettings, QStandardPaths
from PySide6.QtWidgets import QFileDialog, QWidget

from app.core.csv_export import Block, csv_lines, neutralise_row
from app.files.whole_file import writable_target
from app.ui.common import forked
from app.ui.common.slice_budget import current_budget

CHUNK = 200  # rows written in one step of a slice (app.ui.common.slice_budget)
COPY_CHUNK = 4096  # rows a forked copy writes between two counts it tells
COPIES_POLL_SECONDS = 0.05  # how often the window reads the copies' counts
_UNSAFE_IN_NAMES = re.compile(r"[^A-Za-z0-9._-]+")


def file_name(*parts: object) -> str:
    """A CSV file's name that says what it holds ("statement", the client, the account, the
    dates…), each part kept to what every file system takes."""
    words = [_UNSAFE_IN_NAMES.sub("-", str(part)).strip("-.") for part in parts]
    return "-".join(word for word in words if word)[:150] + ".csv"


def choose_csv_file(
    parent: QWidget,
    settings: QSettings,
    title: str,
    suggested: str,
    on_chosen: Callable[[Path], object],
) -> QFileDialog:
    return choose_file(parent, settings, title, suggested, "CSV files (*.csv)", on_chosen)


def choose_file(
    parent: QWidget,
    settings: QSettings,
    title: str,
    suggested: str,
    name_filter: str,
    on_chosen: Callable[[Path], object],
    *,
    save: bool = True,
) -> QFileDialog:
    """The save (or open) dialog, opened, never exec(); the folder chosen is remembered."""
    folder = str(settings.value("export/folder", "")) or QStandardPaths.writableLocation(
        QStandardPaths.StandardLocation.DocumentsLocation
    )
    if not Path(folder).is_dir():  # Qt would offer the missing folder's name as a file name
        folder = str(Path.home())
    dialog = QFileDialog(parent, title, folder)
    if save:
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setDefaultSuffix(suggested.rpartition(".")[2])
    else:
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
    dialog.setNameFilter(name_filter)
    if suggested:
        dialog.selectFile(suggested)

    def chosen(name: str) -> None:
        path = Path(name)
        settings.setValue("export/folder", str(path.parent))
        on_chosen(path)

    dialog.fileSelected.connect(chosen)
    dialog.open()
    return dialog


async def write_csv(
    path: Path,
    header: Sequence[str],
    rows: Iterator[tuple[str, ...]],
    progress: Callable[[int], object],
    *,
    neutralised: bool = False,
) -> int:
    """Write the rows; the number written. OSError is raised; on a cancel or any failure the
    file chosen is as it was (absent, or the one it was to replace). Every cell a spreadsheet
    would run as a formula is neutralised, unless the rows come ``neutralised`` already."""
    import asyncio  # here, not at the top: the window shows before asyncio loads

    path = writable_target(path)  # a link's target, written in the link's stead
    partial, descriptor = _partial_beside(path)
    written = 0
    try:
        with _text_file(descriptor, marked=True) as handle:
            handle.writelines(csv_lines([header]))
            # rows a little at a time until a slice is spent, then the window's turn; the
            # counts shown a few times a second (shown after every slice, the label and the
            # bar laid out and painted again cost a fifth of the export's time)
            this_slice, pacer = current_budget().slice(), current_budget().reveal_pacer()
            while chunk := list(itertools.islice(rows, CHUNK)):
                handle.writelines(
                    csv_lines(chunk if neutralised else list(map(neutralise_row, chunk)))
                )
                written += len(chunk)
                if this_slice.spent():
                    if pacer.spent():
                        progress(written)
                        pacer.renew()
                    await asyncio.sleep(0)
                    this_slice.renew()
        _put_in_place(partial, path)
        progress(written)
    except BaseException:  # cancelled, or failed: never half a file that looks complete
        partial.unlink(missing_ok=True)
        raise
    return written


async def write_csv_in_copies(
    path: Path,
    header: Sequence[str],
    parts: Sequence[Callable[[], Iterator[Block]]],
    progress: Callable[[int], object],
) -> int:
    """Write the rows of ``parts``, which follow each other and come neutralised, each part
    by a forked copy of the process (app.ui.common.forked) into a file of its own beside the
    chosen one, side by side on the cores; the window's thread only waits and shows the
    counts. The parts are then joined in order and put in place as one file. As write_csv:
    the number written, OSError (with the copy's reason) and, on a cancel or any failure,
    the chosen file as it was and no part left behind."""
    import asyncio  # here, not at the top: the window shows before asyncio loads

    path = writable_target(path)  # a link's target, written in the link's stead
    files: list[Path] = []
    copies: list[forked.Forked] = []
    try:
        for number, make_blocks in enumerate(parts):
            if number:  # a fork holds the window a moment: one at a time, the window between
                await asyncio.sleep(0)
            partial, descriptor = _partial_beside(path)
            files.append(partial)
            work = _part_writer(descriptor, number == 0, header, make_blocks)
            try:
                copies.append(forked.Forked(work))
            finally:
                os.close(descriptor)  # the copy has its own
        while True:
            ended = [copy.poll() for copy in copies]  # every copy read, each time
            progress(sum(_count(copy.received()) for copy in copies))
            if all(ended):
                break
            await asyncio.sleep(COPIES_POLL_SECONDS)
        for copy in copies:
            if copy.result() is None:
                raise _failure(copy.received())
        await asyncio.to_thread(_join, files)  # the window goes on meanwhile
        _put_in_place(files[0], path)
        return sum(_count(copy.received()) for copy in copies)
    except BaseException:
        for copy in copies:
            copy.cancel()
        raise
    finally:  # the parts (the first, once in place, is no longer there)
        for partial in files:
            partial.unlink(missing_ok=True)


def _part_writer(
    descriptor: int,
    first: bool,
    header: Sequence[str],
    make_blocks: Callable[[], Iterator[Block]],
) -> Callable[[Callable[[bytes], None]], bytes]:
    """What a copy does: its part's rows written to its file (the first part with the
    byte-order mark and the header), the count said after every few thousand rows, and an
    OSError's number and reason said before it fails. Each block's rows are made into
    lines in the order made, and the lines written in the order asked."""

    def work(say: Callable[[bytes], None]) -> bytes:
        try:
            with _text_file(descriptor, marked=first) as handle:  # one mark, at the start
                if first:
                    handle.writelines(csv_lines([header]))
                done = 0
                for block in make_blocks():
                    lines = csv_lines(block.rows)
                    placement = block.placement or range(len(lines))
                    for low in range(0, len(placement), COPY_CHUNK):
                        chunk = placement[low : low + COPY_CHUNK]
                        handle.writelines(map(lines.__getitem__, chunk))
                        done += len(chunk)
                        say(b"%d\n" % done)
        except OSError as exc:
            say(b"!%d %s\n" % (exc.errno or 0, (exc.strerror or str(exc)).encode()))
            raise
        return b""

    return work


def _count(said: bytes) -> int:
    """The rows a copy has written: the last count it said."""
    lines = [line for line in said.split(b"\n")[:-1] if line and not line.startswith(b"!")]
    return int(lines[-1]) if lines else 0


def _failure(said: bytes) -> OSError:
    """The OSError a copy said it failed with, or one saying that it ended unexpectedly."""
    for line in said.split(b"\n"):
        if line.startswith(b"!"):
            number, _, reason = line[1:].partition(b" ")
            return OSError(int(number), reason.decode(errors="replace"))
    return OSError(errno.EIO, "the process writing the file ended unexpectedly")


def _join(files: list[Path]) -> None:
    """The other files appended to the first, in order. The first is never created again:
    cancelled meanwhile, the export has removed it, and this thread, which runs on, must not
    leave an empty one behind."""
    with os.fdopen(os.open(files[0], os.O_WRONLY | os.O_APPEND), "ab") as whole:
        for file in files[1:]:
            with file.open("rb") as piece:
                shutil.copyfileobj(piece, whole, 1 << 20)


def _text_file(descriptor: int, *, marked: bool) -> TextIO:
    """The file, for text in UTF-8; ``marked``, it starts with the byte-order mark, which
    makes spreadsheet programs read UTF-8 ("Eglė"). The mark is written here: the utf-8-sig
    codec would encode every write (a row) in Python, a tenth of a copy's time, where
    UTF-8's is done in C."""
    handle = os.fdopen(descriptor, "w", encoding="utf-8", newline="")
    if marked:
        handle.write("\ufeff")
    return handle


def _cut(name: str, size: int) -> str:
    """The name cut to at most ``size`` bytes as the file system holds it."""
    return os.fsdecode(os.fsencode(name)[:size])


def _put_in_place(partial: Path, path: Path) -> None:
    """The whole file in the chosen one's place, in one step (a rename in its folder)."""
    if path.exists():
        shutil.copymode(path, partial)  # a replaced file keeps who may read it
    os.replace(partial, path)


def _partial_beside(path: Path) -> tuple[Path, int]:
    """A new, hidden file in the chosen file's folder (so that replacing it is one rename),
    created with the permissions a new file gets, and open for writing; OSError when the
    folder is not writable. Written through this descriptor, never opened again to truncate:
    a file truncated and rewritten is flushed to disk whole on close (60 ms of the window's
    time for a million rows, on ext4)."""
    while True:
        # at most 255 bytes, as file systems take: a long chosen name is cut in the partial's
        partial = path.with_name(f".{_cut(path.name, 200)}.{secrets.token_hex(4)}.partial")
        try:
            return partial, os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
