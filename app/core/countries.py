"""ISO 3166 alpha-2 country codes."""

from __future__ import annotations

import importlib.util
import json
from functools import cache
from pathlib import Path

# pycountry's ISO 3166-1 table, in the package as pycountry itself reads it
_TABLE = Path("databases", "iso3166-1.json")


@cache
def _names() -> dict[str, str]:
    # loaded on first use, not at start-up: the first page's countries are checked with it
    try:
        return _names_in_table()
    except (OSError, ValueError, LookupError, TypeError, AttributeError):  # laid out otherwise
        import pycountry

        return {str(country.alpha_2): str(country.name) for country in pycountry.countries}


def _names_in_table() -> dict[str, str]:
    """The names by code, read from pycountry's table without importing pycountry: its import
    looks its own version up in the installed packages' metadata (importlib.metadata), which
    took 35 ms of the way to the first page, in the window and in the sandbox alike."""
    spec = importlib.util.find_spec("pycountry")  # found, not imported
    if spec is None or not spec.submodule_search_locations:
        raise LookupError("pycountry is not a package here")
    folder = Path(next(iter(spec.submodule_search_locations)))
    entries = json.loads((folder / _TABLE).read_bytes())["3166-1"]
    names = {entry["alpha_2"]: entry["name"] for entry in entries}
    if not names or not all(
        type(code) is str and type(name) is str for code, name in names.items()
    ):
        raise ValueError("not a table of names by code")
    return names


def is_country(code: str) -> bool:
    return len(code) == 2 and code.isascii() and code.isupper() and code in _names()


def country_name(code: str) -> str:
    return _names().get(code, code)
