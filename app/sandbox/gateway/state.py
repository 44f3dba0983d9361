"""The sandbox gateway's state: its catalogue (customers, taxes), orders, payments and
settlement, each a part of its own (catalogue.py, orders.py, payments.py, settlement.py) over
the records and the state they live in (records.py).

Orders are immutable values: every operation prepares the order it would become (checked in
full, its history entry written) and returns it with a ``commit`` that puts it in place in one
step, so a refused request changes nothing (see app.sandbox.http). The full card number is
never kept: a payment keeps the brand, the last four digits and, when the card is saved, a
token.
"""

from __future__ import annotations

from app.sandbox.gateway.settlement import Settlement


class Gateway(Settlement):
    """The gateway of the sandbox: every operation on its records."""
