"""The window paints before the service layer loads: what the first paint does not need is
imported after it (issue 13's start-up figure). A module-level import of httpx's world in a
module the window needs made the start 2.7 times a bare window's."""

import json
import os
import subprocess
import sys

DEFERRED = [
    "asyncio",
    "httpx",
    "httpcore",
    "pydantic",
    "msgspec",
    "cryptography",
    "keyring",
    "schwifty",
    "app.api.http",
    "app.api.banking",
    "app.sandbox",
]


def test_the_modules_of_the_first_paint_load_none_of_the_service_layer():
    probe = (
        "import json, sys\n"
        "import app.cli, app.ui.shell.app, app.ui.shell.main_window\n"
        f"print(json.dumps([m for m in {DEFERRED!r} if m in sys.modules]))\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True
    )
    assert json.loads(result.stdout) == []


def test_the_window_starts_its_sandbox_without_importing_it():
    """The sandbox runs in a child process: the window's process never imports it."""
    probe = (
        "import json, sys\n"
        "import app.cli.gui, app.serving.child\n"
        "print(json.dumps([m for m in sys.modules if m.startswith('app.sandbox')]))\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True
    )
    assert json.loads(result.stdout) == []
