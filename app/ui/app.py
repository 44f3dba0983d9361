"""Starting the GUI on the qasync loop."""

from __future__ import annotations

import asyncio
import logging
import sys
import traceback
from collections.abc import Callable
from types import TracebackType

import qasync
from PySide6.QtCore import QtMsgType, qInstallMessageHandler
from PySide6.QtWidgets import QApplication, QMessageBox

from app.ui.main_window import Backend, MainWindow

log = logging.getLogger("partner_desk.ui")
qt_log = logging.getLogger("partner_desk.qt")


def _route_qt_messages() -> None:
    levels = {
        QtMsgType.QtDebugMsg: logging.DEBUG,
        QtMsgType.QtInfoMsg: logging.INFO,
        QtMsgType.QtWarningMsg: logging.WARNING,
        QtMsgType.QtCriticalMsg: logging.ERROR,
        QtMsgType.QtFatalMsg: logging.CRITICAL,
    }

    def handler(kind: QtMsgType, context: object, message: str) -> None:
        qt_log.log(levels.get(kind, logging.WARNING), message)

    qInstallMessageHandler(handler)


def install_excepthook(app: QApplication) -> None:
    """An unexpected exception is logged and shown in a (non-blocking) box, never lost."""
    boxes: list[QMessageBox] = []

    def hook(kind: type[BaseException], error: BaseException, tb: TracebackType | None) -> None:
        log.error("unexpected error", exc_info=(kind, error, tb))
        if isinstance(error, KeyboardInterrupt | SystemExit):
            app.quit()
            return
        box = QMessageBox(
            QMessageBox.Icon.Critical,
            "Unexpected error",
            f"Partner Desk hit an unexpected error: {kind.__name__}: {error}",
        )
        box.setDetailedText("".join(traceback.format_exception(kind, error, tb)))
        boxes.append(box)
        box.finished.connect(lambda _r: boxes.remove(box))
        box.open()

    sys.excepthook = hook


def run_gui(start_backend: Callable[[], str], name: str = "Embedded sandbox") -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    # our transport logs each exchange once, with its x-request-id; httpx would repeat it
    logging.getLogger("httpx").setLevel(logging.WARNING)
    _route_qt_messages()
    app = QApplication.instance() or QApplication(sys.argv)
    assert isinstance(app, QApplication)
    app.setApplicationName("Partner Desk")
    app.setOrganizationName("PartnerDesk")
    install_excepthook(app)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    window = MainWindow(Backend(name, start_backend))
    window.show()

    async def main() -> None:
        closed = asyncio.Event()
        app.aboutToQuit.connect(closed.set)
        starting = asyncio.ensure_future(window.connect_backend())
        await closed.wait()
        starting.cancel()
        await window.aclose()

    with loop:
        loop.run_until_complete(main())
    return 0
