"""A file put in place only when whole, and never in place of what is no file."""

from __future__ import annotations

import os

import pytest

from app.files.whole_file import writable_target, written_whole


def test_a_failure_leaves_the_old_file_as_it_was_and_no_partial(tmp_path):
    path = tmp_path / "report.csv"
    path.write_text("old", encoding="utf-8")

    def half_written() -> None:
        with written_whole(path, encoding="utf-8") as handle:
            handle.write("new, half")
            raise RuntimeError("the disk is full")

    with pytest.raises(RuntimeError, match="the disk is full"):
        half_written()
    assert path.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.csv"]


def test_a_link_is_followed_and_stays(tmp_path):
    real = tmp_path / "real.csv"
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    with written_whole(link, encoding="utf-8") as handle:
        handle.write("new")
    assert link.is_symlink() and real.read_text(encoding="utf-8") == "new"


@pytest.mark.parametrize("kind", ["folder", "pipe", "device", "no name", "no folder"])
def test_what_is_no_regular_file_is_refused_and_left_alone(tmp_path, kind):
    path = {
        "folder": tmp_path,
        "pipe": tmp_path / "pipe",
        "device": tmp_path / "null-link",
        "no name": tmp_path / "",
        "no folder": tmp_path / "missing" / "report.csv",
    }[kind]
    if kind == "pipe":
        os.mkfifo(path)
    if kind == "device":
        path.symlink_to("/dev/null")  # a link to a device: the device is never replaced
    with pytest.raises(OSError, match=r"it is|no file name|its folder") as refused:
        writable_target(path)
    assert (
        refused.value.strerror
        == {
            "folder": "it is a folder",
            "pipe": "it is not a regular file (a device or a pipe)",
            "device": "it is not a regular file (a device or a pipe)",
            "no name": "it is a folder",  # tmp_path / "" is the folder itself
            "no folder": "its folder does not exist",
        }[kind]
    )
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")
