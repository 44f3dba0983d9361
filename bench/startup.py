"""The start, beside a bare PySide6 window's first paint measured in the same run (each round
spawns the bare window, then partner-desk on its embedded sandbox): startup_usable_s, from
the spawn to the first clients painted in the Clients table (the moment a person can use
the window), and its ratio to the bare window; startup_app_s, to the window's first paint
(its frame), and its ratio. `make bench` byte-compiles the app first, as pip does when it
installs one."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from app.ui.shell.app import SHOWN_ENV as SHOWN
from app.ui.shell.app import USABLE_ENV as USABLE

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


def _times(command: list[str], until: str) -> dict[str, float]:
    """Seconds from the spawn to each moment the program printed ("shown", "usable")."""
    env = {**os.environ, until: "1", "QT_QPA_PLATFORM": "offscreen"}
    started = time.time()
    result = subprocess.run(
        command, capture_output=True, text=True, env=env, timeout=120, check=True
    )
    moments = {}
    for line in result.stdout.splitlines():
        word, _, stamp = line.partition(" ")
        if word in ("shown", "usable"):
            moments[word] = float(stamp) - started
    return moments


def run(rounds: int = 7) -> list[dict[str, object]]:
    """The median of ``rounds`` rounds, each the app's start over a bare window's just before
    it; with the smallest and largest ratio, as the machine's speed varies from run to run."""
    app = [str(Path(sys.executable).with_name("partner-desk"))]
    bare = [sys.executable, "-c", BARE]
    _times(app, USABLE)  # the first start fills the page cache for both
    _times(bare, SHOWN)
    bare_s: list[float] = []
    shown_s: list[float] = []
    usable_s: list[float] = []
    for _ in range(rounds):
        bare_s.append(_times(bare, SHOWN)["shown"])
        moments = _times(app, USABLE)
        shown_s.append(moments["shown"])
        usable_s.append(moments["usable"])
    usable = [u / b for u, b in zip(usable_s, bare_s, strict=True)]
    shown = [s / b for s, b in zip(shown_s, bare_s, strict=True)]
    bare_median = round(statistics.median(bare_s), 3)
    return [
        {
            "name": "startup_usable_ratio",
            "value": round(statistics.median(usable), 2),
            "unit": "ratio",
            "app_s": round(statistics.median(usable_s), 3),
            "bare_window_s": bare_median,
            "min": round(min(usable), 2),
            "max": round(max(usable), 2),
        },
        {"name": "startup_usable_s", "value": round(statistics.median(usable_s), 3), "unit": "s"},
        {
            "name": "startup_ratio",
            "value": round(statistics.median(shown), 2),
            "unit": "ratio",
            "app_s": round(statistics.median(shown_s), 3),
            "bare_window_s": bare_median,
            "min": round(min(shown), 2),
            "max": round(max(shown), 2),
        },
        {"name": "startup_app_s", "value": round(statistics.median(shown_s), 3), "unit": "s"},
        {"name": "startup_bare_s", "value": bare_median, "unit": "s"},
    ]
