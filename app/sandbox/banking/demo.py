"""Seeded demo data: persons, a company, and the demo person's two accounts with generated
statements: 100,000 records, and a busy one of 1,000,000."""

from __future__ import annotations

import datetime as dt
from typing import Any

from app.sandbox.banking.history import CURRENCY, DemoHistory
from app.sandbox.banking.ledger import Ledger, Movement
from app.sandbox.banking.records import Client
from app.sandbox.banking.state import Bank

DEMO_PERSON_ID = "C0000001"
DEMO_COMPANY_ID = "C0000002"

_FIRST = ["Anna", "Jonas", "Ona", "Petras", "Greta", "Lukas", "Ieva", "Matas", "Ema", "Tomas"]
_LAST = [
    "Berg",
    "Petraitis",
    "Kazlauskienė",
    "Jankauskas",
    "Novak",
    "Müller",
    "O'Brien",
    "Žukauskas",
    "Rossi",
    "Dubois",
]


def person(index: int, created: dt.date) -> dict[str, Any]:
    first = _FIRST[index % len(_FIRST)]
    last = _LAST[(index // len(_FIRST)) % len(_LAST)]
    return {
        "first_name": first,
        "last_name": last,
        "birth_date": dt.date(1960 + index % 40, 1 + index % 12, 1 + index % 28).isoformat(),
        "nationality": "LT",
        "email": f"{first.lower()}.{index:03d}@example.lt",
        "contact_mobile_number": f"+3706{index:07d}",
        "external_id": f"EXT-{1000 + index}",
        "address": {
            "street": f"Gedimino pr. {index + 1}",
            "city": "Vilnius",
            "postal_code": "01103",
            "country": "LT",
        },
        "tax_id": {"number": f"3{index:010d}", "country": "LT"},
        "ip": "192.0.2.10",
    }


def company() -> dict[str, Any]:
    return {
        "name": "Baltic Widgets UAB",
        "registration_number": "304567890",
        "incorporation_date": "2017-05-04",
        "tax_id": {"number": "LT100011223344", "country": "LT"},
        "vat_number": "LT100011223344",
        "nace_code": "62.01",
        "registered_address": {
            "street": "Konstitucijos pr. 7",
            "city": "Vilnius",
            "postal_code": "09308",
            "country": "LT",
        },
        "email": "finance@balticwidgets.example",
        "contact_mobile_number": "+37052000000",
        "website": "https://balticwidgets.example",
        "site_info": {"url": "https://balticwidgets.example", "description": "B2B widgets"},
    }


def seed(bank: Bank, statement_records: int, busy_statement_records: int = 0) -> None:
    """The demo clients; the demo person's first account holds ``statement_records``
    generated movements over two years, its second ``busy_statement_records``."""
    today = bank.now().date()
    since = today - dt.timedelta(days=730)

    def add(
        client_type: str, details: dict[str, Any], reference: str | None, created: dt.date
    ) -> Client:
        pending = bank.new_client(client_type, details, reference, created=created, reviewed=True)
        pending.commit()
        return pending.value

    demo = add("PERSON", person(0, since), None, since)
    corp = add("COMPANY", company(), "REG-BW-0001", since)
    assert (demo.id, corp.id) == (DEMO_PERSON_ID, DEMO_COMPANY_ID)
    for index in range(1, 45):
        add(
            "PERSON",
            person(index, since),
            f"REG-P-{index:04d}",
            since + dt.timedelta(days=index * 15),
        )
    account = bank.open_account(demo, opened=since)
    account.commit()
    bank.open_account(corp, opened=since).commit()
    _add_history(bank.accounts[account.value.id].ledger, since, today, statement_records, 20240101)
    if busy_statement_records:
        busy = bank.open_account(demo, opened=since)
        busy.commit()
        ledger = bank.accounts[busy.value.id].ledger
        _add_history(ledger, since, today, busy_statement_records, 20260101)


def _add_history(ledger: Ledger, since: dt.date, until: dt.date, count: int, seed: int) -> None:
    ledger.book(Movement(since, "opening", "credit", 50_000_000, "EUR", "Demo opening balance"))
    opening = ledger.balances.get(CURRENCY, 0)
    ledger.add_history(DemoHistory(len(ledger), since, until, count, seed, opening), CURRENCY)
