"""The request log's rows as support reads them."""

from __future__ import annotations

import datetime as dt

from PySide6.QtCore import Qt

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


def test_a_cancelled_call_is_listed_and_marked_as_cancelled(qapp):
    model = RequestLogModel()
    model.append(exchange())
    model.append(exchange(status=None, request_id="r-2", cancelled=True))
    model.append(exchange(status=None, request_id="r-3", error="Cannot reach the bank", attempt=2))
    statuses = [model.data(model.index(row, STATUS)) for row in range(3)]
    assert statuses == ["200", "cancelled", "Cannot reach the bank (try 2)"]
    colour = model.data(model.index(1, STATUS), Qt.ItemDataRole.ForegroundRole)
    assert colour == Qt.GlobalColor.darkGray  # given up, not failed
