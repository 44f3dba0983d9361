"""ISO 3166 alpha-2 country codes."""

from __future__ import annotations

import json
from functools import cache

from app.core.resources import package_file

_TABLE = "databases/iso3166-1.json"  # pycountry's ISO 3166-1 table, as pycountry reads it


@cache
def _names() -> dict[str, str]:
    # loaded on first use, not at start-up: the first page's countries are checked with it
    try:
        return _names_in_table()
    except (OSError, ValueError, LookupError, TypeError):  # the table laid out otherwise
        import pycountry

        return {str(country.alpha_2): str(country.name) for country in pycountry.countries}


def _names_in_table() -> dict[str, str]:
    """The names by code, read from pycountry's table without importing pycountry: its import
    looks its own version up in the installed packages' metadata (importlib.metadata)."""
    entries = json.loads(package_file("pycountry", _TABLE))["3166-1"]
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
