import datetime as dt

from PySide6.QtCore import Qt

from app.api.http import Exchange
from app.ui.shell.request_log import COLUMNS, ExchangeRole, RequestLogModel


def exchange(n: int, status: int | None = 200, attempt: int = 1) -> Exchange:
    return Exchange(
        started=dt.datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=dt.UTC),
        method="POST",
        path=f"/v1/clients/{n}",
        status=status,
        request_id=f"rid-{n}",
        latency_ms=12.345,
        attempt=attempt,
        error=None if status else "Cannot reach http://x: refused",
    )


def test_model_rows_and_columns_without_a_view(qapp):
    model = RequestLogModel(capacity=3)
    for n in range(5):
        model.append(exchange(n))
    assert model.rowCount() == 3
    assert model.columnCount() == len(COLUMNS) == 6
    row = [model.data(model.index(0, c)) for c in range(6)]
    assert row[1:] == ["POST", "/v1/clients/2", "200", "rid-2", "12.3"]
    assert model.data(model.index(2, 0), ExchangeRole).request_id == "rid-4"
    assert model.headerData(4, Qt.Orientation.Horizontal) == "x-request-id"


def test_retries_and_failures_are_marked(qapp):
    model = RequestLogModel()
    model.append(exchange(1, status=408))
    model.append(exchange(1, status=200, attempt=2))
    model.append(exchange(2, status=None, attempt=3))
    assert [model.data(model.index(r, 3)) for r in range(3)] == [
        "408",
        "200 (try 2)",
        "Cannot reach http://x: refused (try 3)",
    ]
    assert model.data(model.index(0, 3), Qt.ItemDataRole.ForegroundRole) == Qt.GlobalColor.darkRed
    assert model.data(model.index(1, 3), Qt.ItemDataRole.ForegroundRole) is None


def test_no_credentials_reach_the_log(qapp):
    model = RequestLogModel()
    model.append(exchange(1))
    texts = [str(model.data(model.index(0, c))) for c in range(6)]
    assert not any("Basic" in t or "demo" in t for t in texts)
