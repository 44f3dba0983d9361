"""Tests run in a home of their own: the desk's settings, data, documents, Qt's files and the
keyring all go there, and a run that touches the user's own files fails, naming them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.testing.isolation import changes_between, separate_home, user_files

pytest_plugins = ["pytester"]

PROJECT = Path(__file__).parents[1]


def test_everything_the_desk_writes_goes_to_the_runs_home(qapp, user_home):
    from PySide6.QtCore import QSettings, QStandardPaths

    from app.webhooks.store import default_store_path

    home = Path.home()
    assert home != user_home and Path(os.environ["HOME"]) == home
    places = [
        Path(QSettings("PartnerDesk", "PartnerDesk").fileName()),
        default_store_path(),
        *(
            Path(QStandardPaths.writableLocation(location))
            for location in (
                QStandardPaths.StandardLocation.AppDataLocation,
                QStandardPaths.StandardLocation.ConfigLocation,
                QStandardPaths.StandardLocation.CacheLocation,
                QStandardPaths.StandardLocation.DocumentsLocation,
                QStandardPaths.StandardLocation.RuntimeLocation,
            )
        ),
    ]
    for place in places:  # the run's home, or beside it (the runtime folder)
        assert place.is_relative_to(home.parent) and not place.is_relative_to(user_home), place
    assert os.environ["PYTHON_KEYRING_BACKEND"] == "keyring.backends.fail.Keyring"


def test_what_a_home_holds_where_the_desk_writes_is_compared(tmp_path):
    home = tmp_path / "someone"
    (home / ".config" / "other-program").mkdir(parents=True)
    (home / "Documents").mkdir()
    before = user_files(home)
    # another program's files are not looked into; the desk's, Qt's and exports' are
    (home / ".config" / "other-program" / "state").write_text("x", encoding="utf-8")
    assert changes_between(before, user_files(home)) == []
    (home / ".config" / "QtProject.conf").write_text("[FileDialog]\n", encoding="utf-8")
    (home / ".config" / "PartnerDesk").mkdir()
    (home / ".config" / "PartnerDesk" / "PartnerDesk.conf").write_text("a", encoding="utf-8")
    (home / "Documents" / "statement.csv").write_text("Date\n", encoding="utf-8")
    assert changes_between(before, user_files(home)) == [
        ".config/PartnerDesk: added",
        ".config/PartnerDesk/PartnerDesk.conf: added",
        ".config/QtProject.conf: added",
        "Documents/statement.csv: added",
    ]


def test_a_separate_home_is_put_back_and_removed():
    previous = os.environ["HOME"]
    with separate_home("partner-desk-inner-") as home:
        assert os.environ["HOME"] == str(home) and home.is_dir()
        assert Path(os.environ["XDG_RUNTIME_DIR"]).stat().st_mode & 0o777 == 0o700
    assert os.environ["HOME"] == previous and not home.exists()


SUITE = """
def test_writes_where_the_user_keeps_the_desks_settings(user_home):
    folder = user_home / ".config" / "PartnerDesk"
    folder.mkdir(parents=True)
    (folder / "PartnerDesk.conf").write_text("[main]\\n", encoding="utf-8")


def test_writes_only_in_its_own_home():
    from pathlib import Path

    (Path.home() / ".config" / "QtProject.conf").write_text("x", encoding="utf-8")
"""


@pytest.mark.parametrize(
    ("chosen", "outcome"),
    [("test_writes_only_in_its_own_home", 0), ("test_writes_where_the_user", 1)],
)
def test_a_run_that_touches_the_users_files_fails_naming_them(
    pytester: pytest.Pytester, tmp_path, chosen, outcome
):
    someone = tmp_path / "someone"
    someone.mkdir()
    pytester.makeconftest('pytest_plugins = ["tests.own_home"]\n')
    pytester.makepyfile(test_home=SUITE)
    pytester._monkeypatch.setenv("PYTHONPATH", str(PROJECT))
    pytester._monkeypatch.setenv("HOME", str(someone))
    result = pytester.runpytest_subprocess(
        "-p", "no:randomly", "-p", "no:cacheprovider", "-k", chosen
    )
    result.assert_outcomes(passed=1)
    assert result.ret == outcome
    if outcome:
        result.stdout.fnmatch_lines(
            [
                f"the run changed the user's own files in {someone}:",
                "  .config: added",
                "  .config/PartnerDesk: added",
                "  .config/PartnerDesk/PartnerDesk.conf: added",
            ]
        )
    assert not (someone / ".config" / "QtProject.conf").exists()
