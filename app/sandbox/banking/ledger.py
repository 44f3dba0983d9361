"""An account's booked movements, oldest first, each encoded to JSON once.

A booking of several movements (a transfer's amount and its fee) is prepared whole — records,
balances and their JSON — and then applied in one step that cannot fail halfway.

A ledger is a row of segments: movements booked one by one (kept as records and their JSON),
and, for the demo accounts, generated histories (`app.sandbox.banking.history`) that hold no
record at all and encode their rows only while a statement is being sent.
"""

from __future__ import annotations

import bisect
import datetime as dt
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

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


def record_id(position: int) -> str:
    """The id of the ledger's record at this position (0 is the first)."""
    return f"ST{position + 1:09d}"


class Segment(Protocol):
    """Consecutive records of a ledger, the first at ``start``."""

    start: int

    def __len__(self) -> int: ...

    def first_day(self) -> str: ...

    def last_day(self) -> str: ...

    def currencies(self) -> set[str]: ...

    def span(self, date_from: dt.date, date_to: dt.date) -> tuple[int, int]:
        """The positions (in the segment) of the records booked in the period."""
        ...

    def encoded(self, low: int, high: int, currency: str | None) -> list[bytes]:
        """The JSON of the records at positions low..high-1 of this currency (None: all)."""
        ...

    def balance_at(self, day: dt.date, currency: str) -> int | None:
        """The balance after the segment's last record of that currency on or before the day;
        None when it has none."""
        ...


@dataclass
class Booked:
    """Movements booked one by one: their records and JSON."""

    start: int
    records: list[dict[str, Any]] = field(default_factory=list)
    dates: list[str] = field(default_factory=list)
    currency_of: list[str] = field(default_factory=list)
    json: list[bytes] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.records)

    def first_day(self) -> str:
        return self.dates[0] if self.dates else ""

    def last_day(self) -> str:
        return self.dates[-1] if self.dates else ""

    def currencies(self) -> set[str]:
        return set(self.currency_of)

    def span(self, date_from: dt.date, date_to: dt.date) -> tuple[int, int]:
        low = bisect.bisect_left(self.dates, date_from.isoformat())
        return low, bisect.bisect_right(self.dates, date_to.isoformat())

    def encoded(self, low: int, high: int, currency: str | None) -> list[bytes]:
        if currency is None:
            return self.json[low:high]
        chosen = self.currency_of
        return [self.json[i] for i in range(low, high) if chosen[i] == currency]

    def balance_at(self, day: dt.date, currency: str) -> int | None:
        end = bisect.bisect_right(self.dates, day.isoformat())
        # walk back to the last record of that currency on or before the day
        for index in range(end - 1, -1, -1):
            if self.currency_of[index] == currency:
                return int(self.records[index]["balance_after"])
        return None


@dataclass(frozen=True)
class Booking:
    """Movements ready to append: their records, JSON and the balances after them."""

    ledger: Ledger
    records: tuple[dict[str, Any], ...]
    encoded: tuple[bytes, ...]
    balances: dict[str, int]

    def apply(self) -> None:
        self.ledger._apply(self)


class History(Segment, Protocol):
    def change(self) -> int:
        """Its balance after less its balance before, in its one currency."""
        ...


class Ledger:
    def __init__(self) -> None:
        self.segments: list[Segment] = []
        self._balances: dict[str, int] = {}
        # histories whose change is not yet in the balances: added when first asked for, as
        # summing a million generated movements takes a moment the sandbox's start need not
        self._unsettled: list[tuple[str, History]] = []

    @property
    def balances(self) -> dict[str, int]:
        for currency, history in self._unsettled:
            self._balances[currency] = self._balances.get(currency, 0) + history.change()
        self._unsettled.clear()
        return self._balances

    def __len__(self) -> int:
        return sum(len(segment) for segment in self.segments)

    @property
    def records(self) -> list[dict[str, Any]]:
        """The booked records (not the generated ones)."""
        return [r for s in self.segments if isinstance(s, Booked) for r in s.records]

    @property
    def encoded(self) -> list[bytes]:
        """The booked records' JSON."""
        return [e for s in self.segments if isinstance(s, Booked) for e in s.json]

    def currencies(self) -> set[str]:
        return set().union(*(segment.currencies() for segment in self.segments))

    def last_day(self) -> str:
        return next((s.last_day() for s in reversed(self.segments) if len(s)), "")

    def prepare(self, *movements: Movement) -> Booking:
        """The booking of these movements, computed and encoded; nothing is changed yet."""
        balances = dict(self.balances)
        records = []
        encoded = []
        last_day = self.last_day()
        count = len(self)
        for offset, movement in enumerate(movements):
            day = movement.day.isoformat()
            if day < last_day:
                raise ValueError(f"booking on {day} after a booking on {last_day}")
            last_day = day
            signed = movement.amount if movement.direction == "credit" else -movement.amount
            balance = balances.get(movement.currency, 0) + signed
            balances[movement.currency] = balance
            record = {
                "id": record_id(count + offset),
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
        last = self.segments[-1] if self.segments else None
        if not isinstance(last, Booked):
            last = Booked(start=len(self))
            self.segments.append(last)
        last.records.extend(booking.records)
        last.dates.extend(record["booking_date"] for record in booking.records)
        last.currency_of.extend(record["currency"] for record in booking.records)
        last.json.extend(booking.encoded)
        self._balances = booking.balances

    def add_history(self, history: History, currency: str) -> None:
        """Append a generated history of movements in one currency."""
        if len(history) and history.first_day() < self.last_day():
            raise ValueError(f"history from {history.first_day()} after {self.last_day()}")
        assert history.start == len(self)
        self.segments.append(history)
        self._unsettled.append((currency, history))

    def statement_json(self, date_from: dt.date, date_to: dt.date, currency: str | None) -> bytes:
        return b"".join(self.statement_chunks(date_from, date_to, currency))

    def statement_chunks(
        self, date_from: dt.date, date_to: dt.date, currency: str | None, batch: int = 2048
    ) -> Iterator[bytes]:
        """The statement as a JSON array, in pieces of ``batch`` records: only one piece is
        held at a time, however long the period. The range is fixed when reading starts:
        records booked meanwhile come after it (the ledger only grows at its end), so a
        statement read while others book is still whole and consistent."""
        spans = [(s, *s.span(date_from, date_to)) for s in self.segments if len(s)]
        yield b"["
        first = True
        for segment, low, high in spans:
            for start in range(low, high, batch):
                chosen = segment.encoded(start, min(start + batch, high), currency)
                if chosen:
                    yield (b"" if first else b",") + b",".join(chosen)
                    first = False
        yield b"]"

    def balance_at(self, day: dt.date, currency: str) -> int:
        for segment in reversed(self.segments):
            balance = segment.balance_at(day, currency)
            if balance is not None:
                return balance
        return 0
