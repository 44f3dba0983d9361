"""The frozen app, run as a person would: --version, selftest, and the window started
offscreen for a few seconds with no error output, signed in to the sandbox it started; then
its size (under 150 MB unpacked: issue 25).
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
    files = [p for p in BUILT.rglob("*") if p.is_file() and not p.is_symlink()]
    size = sum(path.stat().st_size for path in files) / 1e6
    report(size < LIMIT_MB, "size", f"{size:.0f} MB unpacked (limit {LIMIT_MB} MB)")
    print("All checks passed" if not failures else f"{failures} check(s) failed")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
