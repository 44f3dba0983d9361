"""The Transfers area."""

from __future__ import annotations

from app.ui.shell.areas import AreaContext
from app.ui.transfers.controller import TransfersArea


def build(context: AreaContext) -> TransfersArea:
    return TransfersArea(context)


__all__ = ["TransfersArea", "build"]
