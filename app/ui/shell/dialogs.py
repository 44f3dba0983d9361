"""Awaiting a dialog without a nested event loop (DESIGN.md: never exec() in a coroutine)."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QWidget

from app.ui.shell.tasks import waiting_for_the_user


async def opened(dialog: QDialog) -> int:
    """Open the dialog (window-modal, non-blocking) and resume with its result when closed."""
    import asyncio  # here, not at the top: the window shows before asyncio loads

    result: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    with waiting_for_the_user() as answered:

        def finished(code: int) -> None:
            answered()  # at work again from the answer on, not only once the task resumes
            if not result.done():
                result.set_result(code)

        dialog.finished.connect(finished)
        dialog.open()
        return await result


async def confirmed(owner: object, parent: QWidget, title: str, text: str) -> bool:
    """Ask Yes/No (No by default, the text shown as plain text); the box is ``owner``'s
    ``confirmation`` while it is open, so a test can answer it. True for Yes."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QMessageBox

    box = QMessageBox(
        QMessageBox.Icon.Question,
        title,
        text,
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
        parent,
    )
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setDefaultButton(QMessageBox.StandardButton.No)
    from app.ui.common.names import name_box

    name_box(box, "confirmation")
    owner.confirmation = box  # type: ignore[attr-defined]
    try:
        return await opened(box) == QMessageBox.StandardButton.Yes
    finally:
        owner.confirmation = None  # type: ignore[attr-defined]
        box.deleteLater()
