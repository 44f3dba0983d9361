"""The sandbox bank's records: clients, accounts (with their ledger) and transfers."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from app.core import filter as flt
from app.sandbox.banking.ledger import Ledger

# The sandbox's own bank: account IBANs are generated under this Lithuanian bank code.
BANK_COUNTRY = "LT"
BANK_CODE = "40100"
BANK_BIC = "AGBLLT2XXXX"


@dataclass
class Client:
    id: str
    client_type: str  # PERSON or COMPANY
    details: dict[str, Any]  # person or company object, create_date included
    external_reference: str | None
    status: str = "inprogress"

    @property
    def kind(self) -> str:
        return "private" if self.client_type == "PERSON" else "corporate"

    @property
    def display_name(self) -> str:
        if self.client_type == "COMPANY":
            return str(self.details.get("name", self.id))
        first, last = self.details.get("first_name", ""), self.details.get("last_name", "")
        return f"{first} {last}".strip()

    def v1(self) -> dict[str, Any]:
        return {"id": self.id, "client_type": "PERSON", "client": self.details}

    def v2(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "status": self.status,
            "kind": self.kind,
            "external_reference": self.external_reference,
            "client_type": self.client_type,
            ("person" if self.client_type == "PERSON" else "company"): self.details,
        }

    def filter_record(self) -> dict[str, flt.Scalar | None]:
        created = self.details.get("create_date")
        return {
            "email": self.details.get("email"),
            "contact_mobile_number": self.details.get("contact_mobile_number"),
            "external_id": self.details.get("external_id"),
            "create_date": dt.date.fromisoformat(created) if created else None,
        }


@dataclass
class Account:
    id: str
    client_id: str
    opened_at: dt.date
    status: str = "active"
    ledger: Ledger = field(default_factory=Ledger)
    holds: dict[str, int] = field(default_factory=dict)  # currency -> minor units in progress

    def model(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "payment",
            "iban": self.id,
            "bic": BANK_BIC,
            "status": self.status,
            "client_id": self.client_id,
            "opened_at": self.opened_at.isoformat(),
        }

    def available(self, currency: str) -> int:
        return self.ledger.balances.get(currency, 0) - self.holds.get(currency, 0)


@dataclass
class Transfer:
    kind: str  # sepa, world, internal
    account_id: str
    body: dict[str, Any]  # the answer model
    currency: str
    amount: int
    fee: int
    rejected: bool

    @property
    def id(self) -> str:
        return str(self.body["id"])

    @property
    def status(self) -> str:
        return str(self.body["status"])

    @property
    def processing_day(self) -> dt.date:
        return dt.date.fromisoformat(self.body["processing_date"][:10])
