"""ARCHITECTURE.md stays true: every package of app/ is in its table, and every path it names
exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEXT = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")


def test_every_package_of_app_is_in_the_table():
    packages = sorted(
        f"app/{path.name}" for path in (ROOT / "app").iterdir() if (path / "__init__.py").exists()
    )
    listed = re.findall(r"^\| `(app/[a-z_]+)` \|", TEXT, flags=re.MULTILINE)
    assert sorted(listed) == packages


def test_every_path_it_names_exists():
    named = set(
        re.findall(r"`(app/[A-Za-z0-9_/.]+|tests/[A-Za-z0-9_/.]+|resources/[a-z/]+)`", TEXT)
    )
    missing = sorted(path for path in named if not (ROOT / path.rstrip("/")).exists())
    assert missing == []


def test_every_file_of_app_holds_one_job_in_at_most_500_lines():
    lines = {
        str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines())
        for path in (ROOT / "app").rglob("*.py")
    }
    assert {path: n for path, n in lines.items() if n > 500} == {}
    assert lines["app/ui/shell/main_window.py"] <= 450  # the window shell
