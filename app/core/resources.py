"""Where the project's resource files (OpenAPI documents, icons, desktop metadata) live — in
the source tree, or inside the frozen app (PyInstaller unpacks them under sys._MEIPASS) — the
version, from the installed package's metadata, and the data files of the packages whose
tables the desk reads (ISO 3166 countries, ISO 4217 currencies)."""

from __future__ import annotations

import importlib.util
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


def package_file(package: str, name: str) -> bytes:
    """A data file of an installed package (the frozen app holds those it needs), read without
    importing the package: pycountry's and iso4217's imports cost 35 ms each, on the way to
    the window's first page and to its first statement rows. OSError when it is not there."""
    spec = importlib.util.find_spec(package)  # found, not imported
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"{package} is not an installed package")
    return Path(next(iter(spec.submodule_search_locations)), name).read_bytes()


RESOURCES = resource_root()
OPENAPI_V1 = RESOURCES / "openapi" / "banking-v1.yaml"
OPENAPI_V2 = RESOURCES / "openapi" / "banking-v2.yaml"
OPENAPI_GATEWAY = RESOURCES / "openapi" / "gateway.yaml"
ICONS = RESOURCES / "icons"
