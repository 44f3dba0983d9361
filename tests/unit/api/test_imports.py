"""The service layer imports httpx without its command line: click and pygments (where
installed) took 50 ms of the window's way to its first page."""

from __future__ import annotations

import subprocess
import sys

IMPORTED = """
import sys
from app.api.banking import BankingClient
import httpx
assert httpx.AsyncClient and BankingClient
print(sorted(name for name in ("click", "pygments", "httpx._main") if sys.modules.get(name)))
"""


def test_the_service_layer_imports_httpx_without_its_command_line():
    imported = subprocess.run(
        [sys.executable, "-c", IMPORTED], capture_output=True, text=True, check=True
    )
    assert imported.stdout.strip() == "[]"
