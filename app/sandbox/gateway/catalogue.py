"""The gateway's catalogue: a merchant's customers and taxes."""

from __future__ import annotations

import uuid

from app.sandbox.errors import not_found, room
from app.sandbox.gateway.checks import percent_of
from app.sandbox.gateway.records import (
    Customer,
    GatewayBase,
    Tax,
)
from app.sandbox.pending import Pending

MAX_CUSTOMERS = 100_000
MAX_TAXES = 1_000


class Catalogue(GatewayBase):
    def create_customer(self, merchant: str, email: str) -> Pending[Customer]:
        room(len(self.customers), MAX_CUSTOMERS, "customers")
        customer = Customer(str(uuid.uuid4()), merchant, email, self.now())
        return Pending(customer, lambda: self.customers.__setitem__(customer.id, customer))

    def customer(self, merchant: str, customer_id: str, where: str = "client_id") -> Customer:
        found = self.customers.get(customer_id)
        if found is None or found.merchant != merchant:
            raise not_found(f"{where}: customer {customer_id}")
        return found

    def create_tax(self, merchant: str, name: str, percent_value: object) -> Pending[Tax]:
        room(len(self.taxes), MAX_TAXES, "taxes")
        percent = percent_of(percent_value, "percent")
        tax = Tax(str(uuid.uuid4()), merchant, name, percent)
        return Pending(tax, lambda: self.taxes.__setitem__(tax.id, tax))

    def merchant_taxes(self, merchant: str) -> list[Tax]:
        return [tax for tax in self.taxes.values() if tax.merchant == merchant]
