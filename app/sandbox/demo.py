"""Seeded demo data: persons, a company, and a demo account with 100,000 statement records."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from app.sandbox.store import Bank

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
    today = bank.clock().date()
    since = today - dt.timedelta(days=730)
    demo = bank.add_client("PERSON", person(0, since), None, created=since)
    corp = bank.add_client("COMPANY", company(), "REG-BW-0001", created=since)
    assert (demo.id, corp.id) == (DEMO_PERSON_ID, DEMO_COMPANY_ID)
    demo.status = corp.status = "done"
    demo.review_due = corp.review_due = None
    for index in range(1, 45):
        client = bank.add_client(
            "PERSON",
            person(index, since),
            f"REG-P-{index:04d}",
            created=since + dt.timedelta(days=index * 15),
        )
        client.status, client.review_due = "done", None
    account = bank.open_account(demo, opened=since)
    bank.open_account(corp, opened=since)
    _fill_statement(bank, account.id, since, today, statement_records)


def _fill_statement(
    bank: Bank, account_id: str, since: dt.date, until: dt.date, count: int
) -> None:
    from app.sandbox.store import new_rng

    rng = new_rng(20240101)
    ledger = bank.accounts[account_id].ledger
    days = max((until - since).days, 1)
    ledger.book(
        day=since,
        kind="opening",
        direction="credit",
        amount=50_000_000,
        currency="EUR",
        description="Demo opening balance",
    )
    for n in range(count):
        day = since + dt.timedelta(days=n * days // max(count, 1))
        roll = rng.random()
        if roll < 0.05:
            name, iban = _COUNTERPARTIES[6]
            ledger.book(
                day=day,
                kind="sepa",
                direction="credit",
                amount=rng.randint(150_000, 400_000),
                currency="EUR",
                description="Salary",
                counterparty_name=name,
                counterparty_account=iban,
                reference=f"SAL{n:06d}",
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
        ledger.book(
            day=day,
            kind=kind,
            direction=direction,
            amount=rng.randint(100, 25_000),
            currency="EUR",
            description=description,
            counterparty_name=None if kind == "interest" else name,
            counterparty_account=None if kind == "interest" else iban,
            reference=f"TX{n:07d}",
        )
