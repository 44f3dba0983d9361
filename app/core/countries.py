"""ISO 3166 alpha-2 country codes."""

from __future__ import annotations

from functools import cache


@cache
def _names() -> dict[str, str]:
    # loaded on first use, not at start-up
    import pycountry

    return {str(country.alpha_2): str(country.name) for country in pycountry.countries}


def is_country(code: str) -> bool:
    return len(code) == 2 and code.isascii() and code.isupper() and code in _names()


def country_name(code: str) -> str:
    return _names().get(code, code)
