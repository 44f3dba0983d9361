"""The Events area: registration webhooks."""

from __future__ import annotations

from app.ui.events.controller import EventsArea
from app.ui.shell.areas import AreaContext


def build(context: AreaContext) -> EventsArea:
    return EventsArea(context)


__all__ = ["EventsArea", "build"]
