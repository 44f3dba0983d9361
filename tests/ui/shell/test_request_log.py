"""The request log's rows as support reads them."""

from __future__ import annotations

import datetime as dt

from PySide6.QtCore import QModelIndex
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QStyledItemDelegate, QStyleOptionViewItem

from app.api.http import Exchange
from app.ui.shell.request_log import STATUS, RequestLogModel


def exchange(**changes):
    values = {
        "started": dt.datetime(2026, 11, 25, 9, 0, tzinfo=dt.UTC),
        "method": "GET",
        "path": "/v1/clients",
        "status": 200,
        "request_id": "r-1",
        "latency_ms": 12.5,
        "attempt": 1,
    }
    return Exchange(**{**values, **changes})


def painted_colour(model: RequestLogModel, row: int | None) -> str:
    """The colour the view's delegate paints the status cell's text in."""
    option = QStyleOptionViewItem()
    index = model.index(row, STATUS) if row is not None else QModelIndex()
    QStyledItemDelegate().initStyleOption(option, index)
    return option.palette.color(QPalette.ColorRole.Text).name()


def test_a_cancelled_call_is_listed_and_marked_as_cancelled(qapp):
    model = RequestLogModel()
    model.append(exchange())
    model.append(exchange(status=None, request_id="r-2", cancelled=True))
    model.append(exchange(status=None, request_id="r-3", error="Cannot reach the bank", attempt=2))
    statuses = [model.data(model.index(row, STATUS)) for row in range(3)]
    assert statuses == ["200", "cancelled", "Cannot reach the bank (try 2)"]
    assert painted_colour(model, 1) == "#808080"  # given up, not failed: grey
    assert painted_colour(model, 2) == "#800000"  # failed: dark red
    assert painted_colour(model, 0) == painted_colour(RequestLogModel(), None)  # the usual
