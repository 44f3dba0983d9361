"""The live fee of the New transfer form: from the end of the typing pause to the fee shown,
over 50 edits of the amount against the embedded sandbox (p95 and p50). Runs in its own
process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

SCRIPT = """
import asyncio, json, statistics, sys, time
import qasync
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
from app.sandbox.app import SandboxSettings
from app.sandbox.banking.demo import DEMO_PERSON_ID
from app.sandbox.server import BackgroundSandbox
from app.ui.shell.main_window import Backend, MainWindow
from app.ui.transfers import TransfersArea

sandbox = BackgroundSandbox(SandboxSettings(demo_statement_records=1000))
app = QApplication(sys.argv)
loop = qasync.QEventLoop(app)
asyncio.set_event_loop(loop)
settings = QSettings(sys.argv[1], QSettings.Format.IniFormat)
window = MainWindow(Backend("Embedded sandbox", sandbox.start), settings=settings)
window.show()

async def main():
    await window.connect_backend()
    accounts = await window.session.banking.list_accounts(DEMO_PERSON_ID)
    dialog = window.area(TransfersArea).new_transfer(DEMO_PERSON_ID, accounts[0].id)
    for key, text in {"recipient_name": "Hans Muster", "recipient_iban": "DE89370400440532013000",
                      "recipient_address": "Berlin"}.items():
        dialog.set_value(key, text)
    samples = []
    pause = dialog._fee_pause
    ask_fee = pause._action
    for n in range(51):
        done = asyncio.Event()
        fired = {}

        def pause_over():
            fired["at"] = time.perf_counter()
            ask_fee()
            dialog._fee_task.add_done_callback(lambda _t: done.set())

        pause._action = pause_over
        dialog.set_value("amount", f"{100 + n * 7}.{n % 100:02d}")
        await asyncio.wait_for(done.wait(), 10)
        pause._action = ask_fee
        assert dialog.fee.text().startswith("Fee: "), dialog.fee.text()
        samples.append((time.perf_counter() - fired["at"]) * 1000)
    samples = samples[1:]  # the first also asks for the balance of the currency
    samples.sort()
    p95 = samples[int(round(0.95 * (len(samples) - 1)))]
    print(json.dumps({"p95": p95, "p50": statistics.median(samples)}), flush=True)
    dialog.reject()
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
        {"name": "fee_latency_p95_ms", "value": round(figures["p95"], 1), "unit": "ms"},
        {"name": "fee_latency_p50_ms", "value": round(figures["p50"], 1), "unit": "ms"},
    ]
