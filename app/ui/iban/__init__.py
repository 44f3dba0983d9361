"""The IBAN lookup area."""

from __future__ import annotations

from app.ui.iban.controller import IbanArea
from app.ui.shell.areas import AreaContext


def build(context: AreaContext) -> IbanArea:
    area = IbanArea(context)
    area.view.input.setFocus()
    return area


__all__ = ["IbanArea", "build"]
