"""The 100,000-record statement: time to rows in the view, the longest GUI stall meanwhile
(a 16 ms timer's lateness) and the process's peak memory. Runs in its own process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

SCRIPT = """
import asyncio, json, resource, sys, time
import qasync
from PySide6.QtCore import QDate, QElapsedTimer, QSettings, QTimer
from PySide6.QtWidgets import QApplication
from app.sandbox.banking.demo import DEMO_PERSON_ID
from app.sandbox.server import BackgroundSandbox
from app.ui.shell.main_window import Backend, MainWindow
from app.ui.statements import StatementsArea

sandbox = BackgroundSandbox()
app = QApplication(sys.argv)
loop = qasync.QEventLoop(app)
asyncio.set_event_loop(loop)
settings = QSettings(sys.argv[1], QSettings.Format.IniFormat)
window = MainWindow(Backend("Embedded sandbox", sandbox.start), settings=settings)
window.show()

async def main():
    await window.connect_backend()
    view = window.area(StatementsArea).view
    view.client_id.setText(DEMO_PERSON_ID)
    view.client_id.editingFinished.emit()
    while view.account.count() == 0:
        await asyncio.sleep(0.01)
    view.date_from.set_date(QDate(2000, 1, 1))
    view.date_to.set_date(QDate(2100, 1, 1))
    await asyncio.sleep(0.2)
    stalls = []
    clock = QElapsedTimer()
    timer = QTimer()
    timer.setInterval(16)
    def tick():
        stalls.append(clock.restart() - 16)
    clock.start()
    timer.timeout.connect(tick)
    timer.start()
    started = time.perf_counter()
    view.load_button.click()
    while view.model.rowCount() < 100_000 or not window.area(StatementsArea).loading.done():
        await asyncio.sleep(0.001)
    shown = time.perf_counter() - started
    await asyncio.sleep(0.05)
    timer.stop()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"shown_s": shown, "max_stall_ms": max(stalls), "peak_rss_mb": peak,
                      "rows": view.model.rowCount()}), flush=True)
    await window.aclose()

with loop:
    loop.run_until_complete(main())
sandbox.stop()
"""


def run() -> list[dict[str, object]]:
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
        result = subprocess.run(
            [sys.executable, "-c", SCRIPT, str(Path(folder) / "settings.ini")],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
            check=True,
        )
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    return [
        {"name": "statement_100k_shown_s", "value": round(figures["shown_s"], 3), "unit": "s"},
        {
            "name": "statement_100k_max_stall_ms",
            "value": round(figures["max_stall_ms"], 1),
            "unit": "ms",
        },
        {
            "name": "statement_100k_peak_rss_mb",
            "value": round(figures["peak_rss_mb"], 1),
            "unit": "MB",
        },
    ]
