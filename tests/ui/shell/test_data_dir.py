"""The window's own files go to the desk's data folder (app.core.data_folder)."""

from __future__ import annotations

from app.core.data_folder import user_data_base


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_the_window_keeps_its_files_in_the_data_folder_and_moves_the_old_ones(qapp):
    from PySide6.QtCore import QSettings

    from app.ui.shell.areas import AreaContext
    from app.ui.shell.errors import ErrorPresenter
    from app.ui.shell.tasks import TaskGroup

    base = user_data_base()  # in the run's own home
    write(base / "PartnerDesk" / "Partner Desk" / "order-journal.json", "journal")
    settings = QSettings("PartnerDesk", "PartnerDesk")  # as the window has them
    context = AreaContext(ErrorPresenter(None), TaskGroup(), settings, lambda name: None)
    assert context.data_dir == base / "Partner Desk"
    assert (context.data_dir / "order-journal.json").read_text(encoding="utf-8") == "journal"
    assert not (base / "PartnerDesk").exists()
