"""Writing a CSV export: the chosen file appears only whole, and a file it was to replace is
left as it was when the export is cancelled or fails."""

import asyncio
import csv
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from app.core.csv_export import Block
from app.ui.common import forked
from app.ui.common.csv_file import write_csv, write_csv_in_copies
from tests.ui.conftest import run_on

HEADER = ("Date", "Amount")


def rows(count: int, *, fail_at: int = -1) -> Iterator[tuple[str, ...]]:
    for n in range(count):
        if n == fail_at:
            raise OSError(28, "No space left on device")
        yield ("2024-01-01", f"{n}.00")


def folder_files(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


def old_export(tmp_path: Path) -> Path:
    target = tmp_path / "statement.csv"
    target.write_text("the export of last week\n", encoding="utf-8")
    target.chmod(0o640)
    return target


def test_a_cancelled_export_leaves_the_file_it_was_to_replace(qloop, tmp_path, one_step_slices):
    target = old_export(tmp_path)

    async def export_then_cancel() -> None:
        # cancelled at the first slice's end (one step: 200 rows), the window's turn
        task = asyncio.ensure_future(
            write_csv(target, HEADER, rows(10_000), lambda _done: task.cancel())
        )
        with pytest.raises(asyncio.CancelledError):
            await task

    run_on(qloop, export_then_cancel())
    assert target.read_text(encoding="utf-8") == "the export of last week\n"
    assert folder_files(tmp_path) == ["statement.csv"]  # no partial file left beside it


def test_a_failed_export_leaves_the_file_it_was_to_replace(qloop, tmp_path):
    target = old_export(tmp_path)
    with pytest.raises(OSError, match="No space left"):
        run_on(qloop, write_csv(target, HEADER, rows(1_000, fail_at=500), lambda _done: None))
    assert target.read_text(encoding="utf-8") == "the export of last week\n"
    assert folder_files(tmp_path) == ["statement.csv"]


def test_a_whole_export_replaces_the_file_keeping_its_permissions(qloop, tmp_path):
    target = old_export(tmp_path)
    told: list[int] = []
    written = run_on(qloop, write_csv(target, HEADER, rows(1_000), told.append))
    assert written == 1_000 and told[-1] == 1_000
    with target.open(encoding="utf-8-sig", newline="") as handle:
        lines = list(csv.reader(handle))
    assert lines[0] == list(HEADER) and lines[-1] == ["2024-01-01", "999.00"]
    assert len(lines) == 1_001
    assert target.stat().st_mode & 0o777 == 0o640
    assert folder_files(tmp_path) == ["statement.csv"]


def test_an_export_into_a_folder_that_is_gone_fails_creating_nothing(qloop, tmp_path):
    target = tmp_path / "gone" / "statement.csv"
    with pytest.raises(FileNotFoundError):
        run_on(qloop, write_csv(target, HEADER, rows(10), lambda _done: None))
    assert folder_files(tmp_path) == []


# -- written by forked copies, a part each (Linux)

copies_only = pytest.mark.skipif(not forked.AVAILABLE, reason="forked copies: Linux only")


def parts(count: int, size: int, *, fail_at: int = -1, block: int = 1_000) -> list:
    """``count`` parts of ``size`` rows that follow each other, in blocks: every other block's
    rows made backwards, with the placement that writes them forwards; the row ``fail_at``
    fails."""

    def part(first: int):
        def make():
            for number, low in enumerate(range(first, first + size, block)):
                numbers = range(low, min(low + block, first + size))
                backwards = number % 2 == 1
                made = []
                for n in reversed(numbers) if backwards else numbers:
                    if n == fail_at:
                        raise OSError(28, "No space left on device")
                    made.append(("2024-01-01", f"{n}.00"))
                yield Block(made, range(len(made) - 1, -1, -1) if backwards else None)

        return make

    return [part(number * size) for number in range(count)]


@copies_only
def test_parts_written_by_copies_make_one_file_as_one_writer_would(qloop, tmp_path):
    target = old_export(tmp_path)
    told: list[int] = []
    written = run_on(qloop, write_csv_in_copies(target, HEADER, parts(3, 5_000), told.append))
    alone = tmp_path / "alone" / "statement.csv"
    alone.parent.mkdir()
    run_on(qloop, write_csv(alone, HEADER, rows(15_000), lambda _done: None))
    assert written == 15_000 and told[-1] == 15_000
    assert target.read_bytes() == alone.read_bytes()  # one byte-order mark, one header
    assert target.read_bytes().count(b"\xef\xbb\xbf") == 1
    assert target.stat().st_mode & 0o777 == 0o640
    assert folder_files(tmp_path) == ["alone", "statement.csv"]


@copies_only
def test_the_window_has_its_turn_between_one_fork_and_the_next(qloop, tmp_path, monkeypatch):
    """A fork holds the window's thread a moment (page tables of a million rows' process):
    the copies are forked one at a time, with the window's events handled between."""
    turns = 0
    seen_at_fork: list[int] = []
    real = forked.Forked

    def counted(work):
        seen_at_fork.append(turns)
        return real(work)

    async def export() -> int:
        loop = asyncio.get_running_loop()
        done = False

        def turn() -> None:  # the window's work: a turn each time the loop comes round
            nonlocal turns
            turns += 1
            if not done:
                loop.call_soon(turn)

        loop.call_soon(turn)
        try:
            return await write_csv_in_copies(
                tmp_path / "s.csv", HEADER, parts(3, 100), lambda _done: None
            )
        finally:
            done = True

    monkeypatch.setattr(forked, "Forked", counted)
    assert run_on(qloop, export()) == 300
    assert len(seen_at_fork) == 3
    assert seen_at_fork[0] < seen_at_fork[1] < seen_at_fork[2]


@copies_only
def test_a_copy_that_fails_fails_the_export_with_its_reason_leaving_the_old_file(qloop, tmp_path):
    target = old_export(tmp_path)
    with pytest.raises(OSError, match="No space left") as failed:
        run_on(
            qloop,
            write_csv_in_copies(target, HEADER, parts(2, 5_000, fail_at=7_000), lambda _d: None),
        )
    assert failed.value.errno == 28 and failed.value.strerror == "No space left on device"
    assert target.read_text(encoding="utf-8") == "the export of last week\n"
    assert folder_files(tmp_path) == ["statement.csv"]


@copies_only
def test_a_cancelled_export_by_copies_ends_them_and_leaves_the_old_file(qloop, tmp_path):
    target = old_export(tmp_path)
    before = set(psutil.Process().children())

    async def export_then_cancel() -> None:
        # cancelled at the first count the window shows, the copies still writing
        task = asyncio.ensure_future(
            write_csv_in_copies(target, HEADER, parts(2, 2_000_000), lambda _d: task.cancel())
        )
        with pytest.raises(asyncio.CancelledError):
            await task

    run_on(qloop, export_then_cancel())
    assert target.read_text(encoding="utf-8") == "the export of last week\n"
    assert folder_files(tmp_path) == ["statement.csv"]
    assert set(psutil.Process().children()) <= before  # ended and reaped


@pytest.mark.parametrize("in_copies", [False, True])
def test_a_name_as_long_as_a_file_system_takes_is_written(qloop, tmp_path, in_copies):
    if in_copies and not forked.AVAILABLE:
        pytest.skip("forked copies: Linux only")
    target = tmp_path / ("s" * 251 + ".csv")  # 255 bytes: its partial's name is cut
    export = (
        write_csv_in_copies(target, HEADER, parts(2, 100), lambda _d: None)
        if in_copies
        else write_csv(target, HEADER, rows(200), lambda _d: None)
    )
    assert run_on(qloop, export) == 200
    assert folder_files(tmp_path) == [target.name]


@pytest.mark.parametrize("in_copies", [False, True])
def test_an_export_onto_a_link_replaces_the_file_it_points_to(qloop, tmp_path, in_copies):
    if in_copies and not forked.AVAILABLE:
        pytest.skip("forked copies: Linux only")
    target = old_export(tmp_path)
    link = tmp_path / "latest.csv"
    link.symlink_to(target.name)
    export = (
        write_csv_in_copies(link, HEADER, parts(2, 100), lambda _d: None)
        if in_copies
        else write_csv(link, HEADER, rows(200), lambda _d: None)
    )
    run_on(qloop, export)
    assert link.is_symlink() and link.resolve() == target
    assert len(target.read_text(encoding="utf-8-sig").splitlines()) == 201
    assert target.stat().st_mode & 0o777 == 0o640
    assert folder_files(tmp_path) == ["latest.csv", "statement.csv"]
