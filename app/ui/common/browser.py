"""Opening an address in the system browser, for addresses that carry a secret (the order's
checkout and 3-D Secure pages, whose last part is the page's token).

When no browser can be opened, Qt says so in a warning quoting the whole address, and the
desk's log takes Qt's warnings: the address, token and all, would be written to the log. So
Qt's messages during the attempt are withheld, one line without the address is logged
instead, and the person is shown the address with a Copy button."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

from PySide6.QtCore import Qt, QtMsgType, QUrl, qInstallMessageHandler
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QMessageBox, QWidget

from app.ui.common.names import name_box

log = logging.getLogger("partner_desk.ui")


@contextlib.contextmanager
def qt_messages_withheld() -> Iterator[list[str]]:
    """Qt's messages inside are kept in the list given, not passed on to the handler before
    (the desk's log, or a test's)."""
    withheld: list[str] = []

    def keep(_kind: QtMsgType, _context: object, message: str) -> None:
        withheld.append(message)

    previous = qInstallMessageHandler(keep)
    try:
        yield withheld
    finally:
        qInstallMessageHandler(previous)


def open_secret_address(url: str, what: str, parent: QWidget) -> QMessageBox | None:
    """Open ``url`` in the system browser; when that cannot be done, the box that shows the
    address with a Copy button (opened, not executed). The address never reaches the log."""
    with qt_messages_withheld():
        opened = QDesktopServices.openUrl(QUrl(url))
    if opened:
        return None
    log.info("no browser could be opened for the %s (its address is not logged)", what)
    box = QMessageBox(
        QMessageBox.Icon.Information,
        "No browser",
        f"No browser could be opened on this computer. Open the {what} in one; its address "
        f"is its key, for this order only:\n{url}",
        QMessageBox.StandardButton.Close,
        parent,
    )
    box.setObjectName("noBrowserBox")
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    copy = box.addButton("Copy address", QMessageBox.ButtonRole.ActionRole)
    copy.setObjectName("copyAddress")
    copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(url))
    box.finished.connect(box.deleteLater)
    name_box(box, "noBrowserBox")
    box.open()
    return box
