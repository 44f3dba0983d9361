"""ISO 3166 alpha-2 country codes."""

from __future__ import annotations

import pycountry


def is_country(code: str) -> bool:
    return (
        len(code) == 2
        and code.isascii()
        and code.isupper()
        and pycountry.countries.get(alpha_2=code) is not None
    )


def country_name(code: str) -> str:
    country = pycountry.countries.get(alpha_2=code)
    return code if country is None else str(country.name)
