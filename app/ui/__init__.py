"""Qt only: windows, dialogs, table models and the one error presenter. No HTTP here."""

import PySide6.QtCore  # noqa: F401 - first, so that every import after it is made as below

from app.ui.pyside_imports import install

install()  # what PySide6 asks of each module imported after it, answered without decoding
