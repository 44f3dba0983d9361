"""Awaiting a dialog without a nested event loop (DESIGN.md: never exec() in a coroutine)."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog


async def opened(dialog: QDialog) -> int:
    """Open the dialog (window-modal, non-blocking) and resume with its result when closed."""
    import asyncio  # here, not at the top: the window shows before asyncio loads

    result: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def finished(code: int) -> None:
        if not result.done():
            result.set_result(code)

    dialog.finished.connect(finished)
    dialog.open()
    return await result
