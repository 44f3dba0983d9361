"""The Statements area."""

from __future__ import annotations

from app.ui.shell.areas import AreaContext
from app.ui.statements.controller import StatementsArea


def build(context: AreaContext) -> StatementsArea:
    return StatementsArea(context)


__all__ = ["StatementsArea", "build"]
