"""The desk's data folder: `Partner Desk` in the user's data folder, with the files of the
older layouts (`PartnerDesk/Partner Desk`, `PartnerDesk`) moved into it, never overwritten."""

from __future__ import annotations

import logging
import sys

import pytest

from app.core.data_folder import data_folder, user_data_base


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_a_new_user_gets_the_folder_and_nothing_else(tmp_path):
    folder = data_folder(tmp_path)
    assert folder == tmp_path / "Partner Desk" and folder.is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Partner Desk"]


def test_the_older_folders_are_moved_whole_and_the_old_ones_go(tmp_path):
    write(tmp_path / "PartnerDesk" / "Partner Desk" / "order-journal.json", "journal")
    write(tmp_path / "PartnerDesk" / "Partner Desk" / "sandbox-events.db", "events")
    write(tmp_path / "PartnerDesk" / "webhook-events.db", "store")
    write(tmp_path / "PartnerDesk" / "webhook-events.db-wal", "wal")
    folder = data_folder(tmp_path)
    assert {p.name: p.read_text(encoding="utf-8") for p in folder.iterdir()} == {
        "order-journal.json": "journal",
        "sandbox-events.db": "events",
        "webhook-events.db": "store",
        "webhook-events.db-wal": "wal",
    }
    assert not (tmp_path / "PartnerDesk").exists()
    assert data_folder(tmp_path) == folder  # once moved, nothing more to do
    assert len(list(folder.iterdir())) == 4


@pytest.mark.allow_warning_logs
def test_a_file_already_in_the_new_folder_is_never_overwritten(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="partner_desk.data")
    write(tmp_path / "Partner Desk" / "order-journal.json", "newer")
    write(tmp_path / "PartnerDesk" / "Partner Desk" / "order-journal.json", "older")
    write(tmp_path / "PartnerDesk" / "Partner Desk" / "sandbox-events.db", "events")
    folder = data_folder(tmp_path)
    assert (folder / "order-journal.json").read_text(encoding="utf-8") == "newer"
    assert (folder / "sandbox-events.db").read_text(encoding="utf-8") == "events"
    kept = tmp_path / "PartnerDesk" / "Partner Desk" / "order-journal.json"
    assert kept.read_text(encoding="utf-8") == "older"  # left where it was, and said so
    assert any(
        record.levelname == "WARNING" and str(kept) in record.getMessage()
        for record in caplog.records
    )


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="the XDG rule")
def test_the_base_follows_xdg_data_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert user_data_base() == tmp_path / "data"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert user_data_base() == tmp_path.home() / ".local" / "share"
