"""An account's booked movements, oldest first, each encoded to JSON once.

A booking of several movements (a transfer's amount and its fee) is prepared whole — records,
balances and their JSON — and then applied in one step that cannot fail halfway.
"""

from __future__ import annotations

import bisect
import datetime as dt
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

Direction = Literal["credit", "debit"]


@dataclass(frozen=True)
class Movement:
    day: dt.date
    kind: str  # opening, sepa, world, internal, fee, refund, card, interest
    direction: Direction
    amount: int
    currency: str
    description: str
    counterparty_name: str | None = None
    counterparty_account: str | None = None
    reference: str | None = None


@dataclass(frozen=True)
class Booking:
    """Movements ready to append: their records, JSON and the balances after them."""

    ledger: Ledger
    records: tuple[dict[str, Any], ...]
    encoded: tuple[bytes, ...]
    balances: dict[str, int]

    def apply(self) -> None:
        self.ledger._apply(self)


@dataclass
class Ledger:
    records: list[dict[str, Any]] = field(default_factory=list)
    dates: list[str] = field(default_factory=list)
    currencies: list[str] = field(default_factory=list)
    encoded: list[bytes] = field(default_factory=list)
    balances: dict[str, int] = field(default_factory=dict)

    def prepare(self, *movements: Movement) -> Booking:
        """The booking of these movements, computed and encoded; nothing is changed yet."""
        balances = dict(self.balances)
        records = []
        encoded = []
        last_day = self.dates[-1] if self.dates else ""
        for offset, movement in enumerate(movements):
            day = movement.day.isoformat()
            if day < last_day:
                raise ValueError(f"booking on {day} after a booking on {last_day}")
            last_day = day
            signed = movement.amount if movement.direction == "credit" else -movement.amount
            balance = balances.get(movement.currency, 0) + signed
            balances[movement.currency] = balance
            record = {
                "id": f"ST{len(self.records) + offset + 1:09d}",
                "booking_date": day,
                "type": movement.kind,
                "direction": movement.direction,
                "amount": movement.amount,
                "currency": movement.currency,
                "description": movement.description,
                "counterparty_name": movement.counterparty_name,
                "counterparty_account": movement.counterparty_account,
                "reference": movement.reference,
                "balance_after": balance,
            }
            records.append(record)
            encoded.append(json.dumps(record, ensure_ascii=False).encode())
        return Booking(self, tuple(records), tuple(encoded), balances)

    def book(self, *movements: Movement) -> None:
        self.prepare(*movements).apply()

    def _apply(self, booking: Booking) -> None:
        assert booking.ledger is self
        self.records.extend(booking.records)
        self.dates.extend(record["booking_date"] for record in booking.records)
        self.currencies.extend(record["currency"] for record in booking.records)
        self.encoded.extend(booking.encoded)
        self.balances = booking.balances

    def statement_json(self, date_from: dt.date, date_to: dt.date, currency: str | None) -> bytes:
        return b"".join(self.statement_chunks(date_from, date_to, currency))

    def statement_chunks(
        self, date_from: dt.date, date_to: dt.date, currency: str | None, batch: int = 8000
    ) -> Iterator[bytes]:
        """The statement as a JSON array, in pieces of ``batch`` records. The range is fixed
        when reading starts: records booked meanwhile come after it (the ledger only grows at
        its end), so a statement read while others book is still whole and consistent."""
        low = bisect.bisect_left(self.dates, date_from.isoformat())
        high = bisect.bisect_right(self.dates, date_to.isoformat())
        yield b"["
        first = True
        for start in range(low, high, batch):
            end = min(start + batch, high)
            if currency is None:
                chosen = self.encoded[start:end]
            else:
                chosen = [
                    self.encoded[i] for i in range(start, end) if self.currencies[i] == currency
                ]
            if chosen:
                yield (b"" if first else b",") + b",".join(chosen)
                first = False
        yield b"]"

    def balance_at(self, day: dt.date, currency: str) -> int:
        end = bisect.bisect_right(self.dates, day.isoformat())
        # walk back to the last record of that currency on or before the day
        for index in range(end - 1, -1, -1):
            if self.currencies[index] == currency:
                return int(self.records[index]["balance_after"])
        return 0
