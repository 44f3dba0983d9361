"""Seeded demo data: persons, a company, and a demo account with 100,000 statement records."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any, Literal

from app.sandbox.banking.ledger import Movement
from app.sandbox.banking.state import Bank, Client

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
_COUNTERPARTIES = [
    ("Maxima LT UAB", "LT121000011101001000"),
    ("Telia Lietuva AB", "LT647300010002455512"),
    ("Ignitis UAB", "LT027044060005331119"),
    ("Bolt Operations OÜ", "EE382200221020145685"),
    ("Wolt Enterprises Oy", "FI2112345600000785"),
    ("Landlord J. Petraitis", "LT601010012345678901"),
    ("Employer Baltic Widgets UAB", "LT797300010112345678"),
    ("Amazon EU S.à r.l.", "LU280019400644750000"),
]
_DESCRIPTIONS = {
    "card": ["Card payment", "Groceries", "Fuel", "Online order"],
    "sepa": ["Invoice 2024-{n}", "Rent", "Utilities", "Phone bill"],
    "internal": ["Savings", "Pocket money"],
    "interest": ["Interest"],
}


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


def seed(bank: Bank, statement_records: int) -> None:
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
    _fill_statement(bank, account.value.id, since, today, statement_records)


def _fill_statement(
    bank: Bank, account_id: str, since: dt.date, until: dt.date, count: int
) -> None:
    rng = random.Random(20240101)  # noqa: S311 - demo data, not security
    ledger = bank.accounts[account_id].ledger
    days = max((until - since).days, 1)
    ledger.book(Movement(since, "opening", "credit", 50_000_000, "EUR", "Demo opening balance"))
    for n in range(count):
        day = since + dt.timedelta(days=n * days // max(count, 1))
        roll = rng.random()
        if roll < 0.05:
            name, iban = _COUNTERPARTIES[6]
            amount = rng.randint(150_000, 400_000)
            ledger.book(
                Movement(day, "sepa", "credit", amount, "EUR", "Salary", name, iban, f"SAL{n:06d}")
            )
            continue
        kind = (
            "card"
            if roll < 0.75
            else "sepa"
            if roll < 0.93
            else "internal"
            if roll < 0.99
            else "interest"
        )
        name, iban = _COUNTERPARTIES[rng.randrange(len(_COUNTERPARTIES))]
        description = rng.choice(_DESCRIPTIONS[kind]).format(n=n)
        direction: Literal["credit", "debit"] = "credit" if kind == "interest" else "debit"
        interest = kind == "interest"
        ledger.book(
            Movement(
                day,
                kind,
                direction,
                rng.randint(100, 25_000),
                "EUR",
                description,
                None if interest else name,
                None if interest else iban,
                f"TX{n:07d}",
            )
        )
