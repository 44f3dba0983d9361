"""Country codes and names: pycountry's ISO 3166-1 table, read without importing pycountry on
the way to the first page, and the same names either way."""

from __future__ import annotations

import subprocess
import sys

import pycountry
import pytest

from app.core import countries

PYCOUNTRY_NAMES = {str(country.alpha_2): str(country.name) for country in pycountry.countries}


@pytest.fixture
def fresh_names():
    countries._names.cache_clear()
    yield
    countries._names.cache_clear()


def test_the_table_read_gives_pycountry_s_own_names():
    assert countries._names_in_table() == PYCOUNTRY_NAMES
    assert len(PYCOUNTRY_NAMES) > 240


def test_a_table_laid_out_otherwise_gives_the_names_through_pycountry(monkeypatch, fresh_names):
    monkeypatch.setattr(countries, "_TABLE", "databases/moved.json")
    with pytest.raises(FileNotFoundError):
        countries._names_in_table()
    assert countries._names() == PYCOUNTRY_NAMES


def test_codes_and_names(fresh_names):
    assert countries.is_country("LT")
    assert countries.country_name("LT") == "Lithuania"
    assert countries.country_name("DE") == "Germany"
    for code in ("lt", "XX", "LTU", "", "L", "ŁT"):
        assert not countries.is_country(code)
    assert countries.country_name("XX") == "XX"  # an unknown code reads as itself


def test_checking_a_country_imports_neither_pycountry_nor_the_package_metadata():
    """Importing pycountry looks its version up in the installed packages' metadata: 35 ms
    on the way to the first page (the first clients' countries are checked)."""
    checked = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\n"
            "from app.core.countries import is_country\n"
            "assert is_country('LT') and not is_country('XX')\n"
            "print('pycountry' in sys.modules, 'importlib.metadata' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert checked.stdout.split() == ["False", "False"]
