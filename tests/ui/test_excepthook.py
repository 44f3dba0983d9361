import logging
import sys

import pytest
from PySide6.QtWidgets import QApplication, QMessageBox

from app.ui.app import install_excepthook
from app.ui.tasks import TaskGroup
from tests.ui.conftest import run_on, until


@pytest.mark.allow_warning_logs
def test_an_unexpected_exception_in_a_task_is_logged_and_shown(qapp, qloop, caplog, monkeypatch):
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    install_excepthook(qapp)
    tasks = TaskGroup()

    async def broken():
        raise RuntimeError("boom")

    async def scenario():
        tasks.spawn(broken())
        await until(
            lambda: any(
                isinstance(w, QMessageBox) and w.isVisible() for w in QApplication.topLevelWidgets()
            )
        )

    with caplog.at_level(logging.ERROR, logger="partner_desk.ui"):
        run_on(qloop, scenario())
    box = next(
        w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()
    )
    assert box.windowTitle() == "Unexpected error"
    assert box.text() == "Partner Desk hit an unexpected error: RuntimeError: boom"
    assert "Traceback" in box.detailedText()
    assert any(r.getMessage() == "unexpected error" for r in caplog.records)
    box.button(QMessageBox.StandardButton.Ok).click()
