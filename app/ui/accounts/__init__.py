"""The Accounts area."""

from __future__ import annotations

from app.ui.accounts.controller import AccountsArea
from app.ui.shell.areas import AreaContext


def build(context: AreaContext) -> AccountsArea:
    return AccountsArea(context)


__all__ = ["AccountsArea", "build"]
