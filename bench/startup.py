"""startup_ratio: partner-desk's start to its main window's first paint, divided by a bare
PySide6 window's, both measured the same way (spawn to the window's first paint) in the
same run. `make bench` byte-compiles the app first, as pip does when it installs one."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

# the same measure as the app's: the time of the window's first paint
BARE = """
import sys, time
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QMainWindow
class Reporter(QObject):
    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Paint:
            print(f"shown {time.time():.6f}", flush=True)
            QTimer.singleShot(0, app.quit)
        return False
app = QApplication(sys.argv)
window = QMainWindow()
window.resize(1200, 760)
reporter = Reporter()
window.installEventFilter(reporter)
window.show()
app.exec()
"""


def _time_to_shown(command: list[str]) -> float:
    env = {**os.environ, "PARTNER_DESK_EXIT_WHEN_SHOWN": "1", "QT_QPA_PLATFORM": "offscreen"}
    started = time.time()
    result = subprocess.run(
        command, capture_output=True, text=True, env=env, timeout=120, check=True
    )
    line = next(line for line in result.stdout.splitlines() if line.startswith("shown "))
    return float(line.split()[1]) - started


def run(rounds: int = 5) -> list[dict[str, object]]:
    """The median of ``rounds`` runs, each the app's start over a bare window's just before
    it; with the smallest and largest ratio, as the machine's speed varies from run to run."""
    app = [str(Path(sys.executable).with_name("partner-desk"))]
    bare = [sys.executable, "-c", BARE]
    _time_to_shown(app)  # the first start fills the page cache for both
    _time_to_shown(bare)
    ratios, app_times, bare_times = [], [], []
    for _ in range(rounds):
        bare_times.append(_time_to_shown(bare))
        app_times.append(_time_to_shown(app))
        ratios.append(app_times[-1] / bare_times[-1])
    return [
        {"name": "startup_ratio", "value": round(statistics.median(ratios), 2), "unit": "ratio"},
        {"name": "startup_ratio_min", "value": round(min(ratios), 2), "unit": "ratio"},
        {"name": "startup_ratio_max", "value": round(max(ratios), 2), "unit": "ratio"},
        {"name": "startup_app_s", "value": round(statistics.median(app_times), 3), "unit": "s"},
        {"name": "startup_bare_s", "value": round(statistics.median(bare_times), 3), "unit": "s"},
    ]
