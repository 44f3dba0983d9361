"""Starting the GUI on the qasync loop."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable
from types import TracebackType

from PySide6.QtCore import QtMsgType, qInstallMessageHandler
from PySide6.QtWidgets import QApplication

from app.ui.shell.errors import ErrorPresenter
from app.ui.shell.event_loop import new_event_loop
from app.ui.shell.first_paint import FirstPaintReporter, UsableReporter
from app.ui.shell.main_window import Backend, MainWindow

log = logging.getLogger("partner_desk.ui")
SHOWN_ENV = "PARTNER_DESK_EXIT_WHEN_SHOWN"
USABLE_ENV = "PARTNER_DESK_EXIT_WHEN_USABLE"
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


def install_excepthook(app: QApplication, presenter: ErrorPresenter) -> None:
    """An unexpected exception is logged and shown through the one presenter, never lost."""

    def hook(kind: type[BaseException], error: BaseException, tb: TracebackType | None) -> None:
        log.error("unexpected error", exc_info=(kind, error, tb))
        if isinstance(error, KeyboardInterrupt | SystemExit):
            app.quit()
            return
        presenter.show(error)

    sys.excepthook = hook


def run_gui(
    start_backend: Callable[[], str],
    stop_backend: Callable[[], None],
    name: str = "Embedded sandbox",
    server: tuple[str | None, str | None, str | None] = (None, None, None),
) -> int:
    """The window; ``server`` (base URL, gateway URL, profile name) chooses another server
    than the embedded sandbox, as the command line asked (exit 2 when it cannot be used)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    # our transport logs each exchange once, with its x-request-id; httpx would repeat it
    logging.getLogger("httpx").setLevel(logging.WARNING)
    _route_qt_messages()
    app = QApplication.instance() or QApplication(sys.argv)
    assert isinstance(app, QApplication)
    app.setApplicationName("Partner Desk")
    app.setDesktopFileName("partner-desk")  # the menu entry's icon and name on Linux
    from PySide6.QtGui import QIcon

    from app.core.resources import ICONS

    app.setWindowIcon(QIcon(str(ICONS / "partner-desk-256.png")))
    app.setOrganizationName("PartnerDesk")
    if any(part is not None for part in server):
        from PySide6.QtCore import QSettings

        from app.api.errors import InvalidInput
        from app.ui.connection.profiles import ProfileStore, chosen_on_the_command_line

        store = ProfileStore(QSettings("PartnerDesk", "PartnerDesk"))
        try:
            store.last = chosen_on_the_command_line(store, *server).name
        except InvalidInput as exc:
            print(f"partner-desk: {exc.field}: {exc.problem}", file=sys.stderr)
            return 2
    window = MainWindow(Backend(name, start_backend, stop_backend))
    install_excepthook(app, window.presenter)
    if os.environ.get(USABLE_ENV):
        # for the startup benchmark: say when the first paint and the first clients are
        # painted, then close the window
        UsableReporter(window, window.area_built, then=window.close)
        window.installEventFilter(FirstPaintReporter(window, then=lambda: None))
    elif os.environ.get(SHOWN_ENV):
        # for the startup benchmark: say when the window is first painted, then close it
        reporter = FirstPaintReporter(window, then=window.close)
        window.installEventFilter(reporter)
    window.show()
    # paint the window before the async machinery is even imported: a faster start
    app.processEvents()
    # nothing has logged card data before the first paint; from here on, nothing can
    from app.core import redaction

    redaction.install()
    import asyncio

    loop = new_event_loop(app)
    asyncio.set_event_loop(loop)
    # quit through the loop, not past it: the connection is closed before the app ends
    closed = asyncio.Event()
    app.setQuitOnLastWindowClosed(False)
    app.lastWindowClosed.connect(closed.set)

    async def main() -> None:
        starting = asyncio.ensure_future(window.connect_backend())
        await closed.wait()
        starting.cancel()
        await window.aclose()

    with loop:
        loop.run_until_complete(main())
    return 0
