"""The live fee as a person sees it: 20 amounts of ten characters typed into the New transfer
form, a key every 120 ms (real key events), against the embedded sandbox in its own process
as the window runs it. fee_visible_p50_ms is from the last key's event to the fee painted
for it; beside it the peer, the fee call alone (measured in the same run), and the most calls
made for ten keys, the most on their way at once and any fee painted for older input (which
must be 0). Runs in its own process."""

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
from PySide6.QtCore import QEvent, QObject, QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from app.cli import own_command
from app.serving.child import SandboxProcess
from app.ui.shell.main_window import Backend, MainWindow
from app.ui.transfers import TransfersArea

PACE = 0.12  # a key every 120 ms
sandbox = SandboxProcess(own_command())
app = QApplication(sys.argv)
loop = qasync.QEventLoop(app)
asyncio.set_event_loop(loop)
settings = QSettings(sys.argv[1], QSettings.Format.IniFormat)
window = MainWindow(Backend("Embedded sandbox", sandbox.start), settings=settings)
window.show()
figures = {"stale_shown": 0, "most_in_flight": 0, "calls": []}


class FeePaints(QObject):
    # the times the fee label paints a fee (not "Fee: …"), and whether it is the newest's
    def __init__(self, dialog):
        super().__init__(dialog)
        self.dialog, self.at = dialog, []
        dialog.fee.installEventFilter(self)

    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Paint and watched.text()[5:6].isdigit():
            self.at.append(time.perf_counter())
            if self.dialog.draft.quote is None:  # painted for input changed since
                figures["stale_shown"] += 1
        return False


async def main():
    await window.connect_backend()
    banking = window.session.banking
    client_id = (await banking.list_clients_v2(limit=1))[0].id
    account_id = (await banking.list_accounts(client_id))[0].id
    dialog = window.area(TransfersArea).new_transfer(client_id, account_id)
    dialog.show()
    for key, text in {"recipient_name": "Hans Muster", "recipient_address": "Berlin",
                      "recipient_iban": "DE89370400440532013000"}.items():
        dialog.set_value(key, text)
    fee_of, in_flight = banking.fee_of, [0]

    async def counted(*args, **kwargs):
        in_flight[0] += 1
        figures["most_in_flight"] = max(figures["most_in_flight"], in_flight[0])
        try:
            return await fee_of(*args, **kwargs)
        finally:
            in_flight[0] -= 1

    banking.fee_of = counted
    # the peer: the fee call alone, as the form makes it
    parameters = {"amount": 123456789, "recipient_iban": "DE89370400440532013000"}
    call_ms = []
    for _ in range(30):
        started = time.perf_counter()
        await fee_of("sepa", account_id, parameters)
        call_ms.append((time.perf_counter() - started) * 1000)
    figures["call_p50_ms"] = statistics.median(call_ms[5:])
    paints = FeePaints(dialog)
    amount = dialog.inputs["amount"]
    amount.setFocus()
    samples = []
    for round_ in range(21):
        amount.clear()
        await window.idle()
        text = f"{1000000 + round_ * 12345}.{round_:02d}"  # ten characters
        calls = dialog.live_fee.calls
        first_key_at = time.perf_counter()
        for at, ch in enumerate(text):
            # each key at its time on one clock: a sleep that overran delays only its key,
            # not every key after it (a slower typist, who gets a call more)
            await asyncio.sleep(max(0.0, first_key_at + at * PACE - time.perf_counter()))
            key_at = time.perf_counter()
            QTest.keyClick(amount, ch)
        await window.idle()
        await asyncio.sleep(0.05)  # its paint
        assert amount.text() == text, amount.text()
        shown = [at for at in paints.at if at > key_at]
        assert shown, dialog.fee.text()
        figures["calls"].append(dialog.live_fee.calls - calls)
        if round_:  # the first also asks for the balance of the currency
            samples.append((shown[0] - key_at) * 1000)
    figures["p50"] = statistics.median(samples)
    figures["p90"] = sorted(samples)[int(0.9 * (len(samples) - 1))]
    dialog.done(0)
    await window.aclose()

with loop:
    loop.run_until_complete(main())
sandbox.stop()
print(json.dumps(figures), flush=True)
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
        {
            "name": "fee_visible_p50_ms",
            "value": round(figures["p50"], 1),
            "unit": "ms",
            "p90_ms": round(figures["p90"], 1),
            "fee_call_p50_ms": round(figures["call_p50_ms"], 1),
            "key_interval_ms": 120,
            "most_calls_per_10_keys": max(figures["calls"]),
            "most_in_flight": figures["most_in_flight"],
            "stale_shown": figures["stale_shown"],
        }
    ]
