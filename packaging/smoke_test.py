"""The frozen app, run as a person would: --version, selftest, and the window started
offscreen for a few seconds with no error output, signed in to the sandbox it started; the
webhook receiver in two processes taking signed deliveries, stopped, and its events listed;
then its size (under 150 MB unpacked: issue 25).
One line per check; exit 0 when all pass."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
BUILT = ROOT / "dist" / "partner-desk"
LIMIT_MB = 150
# lines of the window's stderr that are not errors: its own log of calls, Qt's offscreen notice
HARMLESS = ("INFO", "This plugin does not support propagateSizeHints")


def main() -> int:
    from app.core.resources import version

    exe = BUILT / ("partner-desk.exe" if sys.platform == "win32" else "partner-desk")
    home = tempfile.mkdtemp(prefix="pd-smoke-")
    env = {**os.environ, "HOME": home, "XDG_CONFIG_HOME": home, "XDG_DATA_HOME": home}
    env.pop("PYTHONPATH", None)
    failures = 0

    def report(ok: bool, name: str, detail: str) -> None:
        nonlocal failures
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name:<10} {detail}", flush=True)

    shown = subprocess.run([exe, "--version"], capture_output=True, text=True, env=env, timeout=60)
    report(shown.stdout == f"partner-desk {version()}\n", "version", shown.stdout.strip())
    test = subprocess.run([exe, "selftest"], capture_output=True, text=True, env=env, timeout=120)
    last = test.stdout.strip().splitlines()[-1] if test.stdout.strip() else test.stderr[-300:]
    report(test.returncode == 0, "selftest", last)
    window = subprocess.Popen(
        [exe],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**env, "QT_QPA_PLATFORM": "offscreen"},
    )
    time.sleep(8)
    alive = window.poll() is None
    window.terminate()
    try:
        _out, err = window.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        window.kill()
        _out, err = window.communicate()
    errors = [line for line in err.splitlines() if line and not any(h in line for h in HARMLESS)]
    report(alive and not errors, "window", "ran 8 s offscreen" if not errors else errors[0][:200])
    # the window starts its sandbox as a child of the frozen program, then signs in to it
    signed_in = re.search(r"GET /v[12]/clients -> 200", err) is not None
    report(signed_in, "sandbox", "the window signed in to its sandbox" if signed_in else err[-200:])
    report(*_receiver(exe, env, Path(home)))
    files = [p for p in BUILT.rglob("*") if p.is_file() and not p.is_symlink()]
    size = sum(path.stat().st_size for path in files) / 1e6
    report(size < LIMIT_MB, "size", f"{size:.0f} MB unpacked (limit {LIMIT_MB} MB)")
    print("All checks passed" if not failures else f"{failures} check(s) failed")
    return 0 if not failures else 1


def _receiver(exe: Path, env: dict[str, str], home: Path) -> tuple[bool, str, str]:
    """`webhooks serve --workers 2` with a public key: signed deliveries, each on a connection
    of its own (spread over both processes), stored; a stop ends it with status 0; `webhooks
    list` gives every event back."""
    import httpx

    from tests.webhook_helpers import PUBLIC_PEM, delivery, event_body

    key, db = home / "public.pem", home / "events.db"
    key.write_bytes(PUBLIC_PEM)
    command = [exe, "webhooks", "serve", "--port", "0", "--db", db, "--public-key", key]
    serving = subprocess.Popen(
        [*command, "--workers", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert serving.stdout is not None
    line = serving.stdout.readline()
    answers, ids = [], []
    if match := re.fullmatch(r"Webhook receiver listening on (\S+)\n", line):
        for _ in range(20):
            body = event_body()
            headers, raw = delivery(body)
            ids.append(body["event_id"])
            answer = httpx.post(match.group(1), content=raw, headers=headers, timeout=30)
            answers.append(answer.json().get("result") if answer.status_code == 200 else answer)
    serving.terminate()
    try:
        _out, err = serving.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        serving.kill()
        return False, "receiver", "did not end within 30 s of SIGTERM"
    if answers != ["stored"] * 20 or serving.returncode != 0:
        return False, "receiver", f"{line!r} {answers[:3]} exit {serving.returncode}: {err[-200:]}"
    listed = subprocess.run(
        [exe, "webhooks", "list", "--db", db, "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    found = sorted(re.findall(r'"event_id": "([0-9a-f-]+)"', listed.stdout))
    if found != sorted(ids):
        return False, "receiver", f"listed {len(found)} of 20: {listed.stderr[-200:]}"
    return True, "receiver", "2 processes stored 20 signed deliveries, stopped, listed them"


if __name__ == "__main__":
    sys.exit(main())
