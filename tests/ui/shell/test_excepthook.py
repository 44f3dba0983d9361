import logging
import sys

import pytest
from PySide6.QtWidgets import QMessageBox

from app.ui.shell.app import install_excepthook
from app.ui.shell.errors import ErrorPresenter
from app.ui.shell.tasks import TaskGroup
from tests.ui.conftest import run_on


@pytest.mark.allow_warning_logs
def test_an_unexpected_exception_in_a_task_is_logged_and_shown(qapp, qloop, caplog, monkeypatch):
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    presenter = ErrorPresenter()
    install_excepthook(qapp, presenter)  # the one route for every box
    tasks = TaskGroup()

    async def broken():
        raise RuntimeError("boom")

    async def scenario():
        tasks.spawn(broken())
        await tasks.idle()

    with caplog.at_level(logging.ERROR, logger="partner_desk.ui"):
        run_on(qloop, scenario())
    box = presenter.open_boxes[-1]
    assert box.isVisible()
    assert box.windowTitle() == "Unexpected error"
    assert box.text() == (
        "Something went wrong inside Partner Desk: RuntimeError: boom\nThe details are in the log."
    )
    assert "Traceback" in box.detailedText() and "boom" in box.detailedText()
    assert any(r.getMessage() == "unexpected error" for r in caplog.records)
    box.button(QMessageBox.StandardButton.Ok).click()
    assert not presenter.open_boxes
