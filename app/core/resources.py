"""Where the project's resource files (OpenAPI documents, icons, desktop metadata) live — in
the source tree, or inside the frozen app (PyInstaller unpacks them under sys._MEIPASS) — and
the version, from the installed package's metadata."""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path


def resource_root() -> Path:
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen is not None:
        return Path(frozen) / "resources"
    return Path(__file__).resolve().parents[2] / "resources"


@cache
def version() -> str:
    """The version pyproject.toml gives (kept in the package's metadata, frozen or not)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("partner-desk")
    except PackageNotFoundError:
        return "unknown"


RESOURCES = resource_root()
OPENAPI_V1 = RESOURCES / "openapi" / "banking-v1.yaml"
OPENAPI_V2 = RESOURCES / "openapi" / "banking-v2.yaml"
OPENAPI_GATEWAY = RESOURCES / "openapi" / "gateway.yaml"
ICONS = RESOURCES / "icons"
