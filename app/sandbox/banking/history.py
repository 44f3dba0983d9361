"""Generated demo histories: a long run of card payments, bills and salaries in euro, computed
from its position and never stored.

The movements come in blocks of `BLOCK`; each block has its own seeded random generator, so
any block can be generated without the ones before it. A record's balance needs the sum of
all movements before it: the balance before each block is computed once, when first needed,
and kept (one number per block). Sending a million-record statement therefore holds one block
at a time, and the sandbox holds no record of the history at all.
"""

from __future__ import annotations

import bisect
import datetime as dt
import json
import random
from dataclasses import dataclass, field

BLOCK = 4096
CURRENCY = "EUR"

COUNTERPARTIES = [
    ("Maxima LT UAB", "LT121000011101001000"),
    ("Telia Lietuva AB", "LT647300010002455512"),
    ("Ignitis UAB", "LT027044060005331119"),
    ("Bolt Operations OÜ", "EE382200221020145685"),
    ("Wolt Enterprises Oy", "FI2112345600000785"),
    ("Landlord J. Petraitis", "LT601010012345678901"),
    ("Employer Baltic Widgets UAB", "LT797300010112345678"),
    ("Amazon EU S.à r.l.", "LU280019400644750000"),
]
SALARY_FROM = 6  # the employer
INVOICE = "Invoice 2024-…"  # numbered by the movement
DESCRIPTIONS = {
    "card": ["Card payment", "Groceries", "Fuel", "Online order"],
    "sepa": [INVOICE, "Rent", "Utilities", "Phone bill"],
    "internal": ["Savings", "Pocket money"],
    "interest": ["Interest"],
}
_JSON_COUNTERPARTIES = [
    (json.dumps(name, ensure_ascii=False), json.dumps(iban)) for name, iban in COUNTERPARTIES
]


def _head(kind: str, credit: bool, description: str, party: int) -> str:
    """The start of a record's JSON object: its fields but id, date, amounts and reference."""
    name, iban = _JSON_COUNTERPARTIES[party] if party >= 0 else ("null", "null")
    direction = "credit" if credit else "debit"
    return (
        f'{{"type":"{kind}","direction":"{direction}","currency":"{CURRENCY}",'
        f'"description":{json.dumps(description)},"counterparty_name":{name},'
        f'"counterparty_account":{iban},'
    )


@dataclass(frozen=True)
class Movements:
    """One block, generated: per movement its kind, signed amount, description, counterparty
    (an index into COUNTERPARTIES, or -1 for none) and number in the history."""

    kinds: list[str]
    amounts: list[int]
    descriptions: list[str]
    counterparties: list[int]
    numbers: range


@dataclass
class DemoHistory:
    """``count`` movements spread evenly over ``since`` to ``until``, the first record being
    the ledger's record at ``start``; ``opening`` is the euro balance before them."""

    start: int
    since: dt.date
    until: dt.date
    count: int
    seed: int
    opening: int
    _balances: list[int] = field(default_factory=list, repr=False)  # before each block

    def __len__(self) -> int:
        return self.count

    def __post_init__(self) -> None:
        self._first_day = self.since.toordinal()
        self._days = max((self.until - self.since).days, 1)

    def day(self, number: int) -> int:
        """The ordinal of the day of the movement with this number."""
        return self._first_day + number * self._days // max(self.count, 1)

    def first_day(self) -> str:
        return dt.date.fromordinal(self.day(0)).isoformat() if self.count else ""

    def last_day(self) -> str:
        return dt.date.fromordinal(self.day(self.count - 1)).isoformat() if self.count else ""

    def currencies(self) -> set[str]:
        return {CURRENCY} if self.count else set()

    def span(self, date_from: dt.date, date_to: dt.date) -> tuple[int, int]:
        numbers = range(self.count)
        low = bisect.bisect_left(numbers, date_from.toordinal(), key=self.day)
        return low, bisect.bisect_right(numbers, date_to.toordinal(), key=self.day)

    def movements(self, block: int) -> Movements:
        rng = random.Random(self.seed * 1_000_003 + block)  # noqa: S311 - demo data
        draw = rng.random
        first = block * BLOCK
        numbers = range(first, min(first + BLOCK, self.count))
        kinds, amounts, descriptions, counterparties = [], [], [], []
        parties = len(COUNTERPARTIES)
        for n in numbers:
            roll = draw()
            if roll < 0.05:
                kinds.append("sepa")
                amounts.append(150_000 + int(draw() * 250_001))
                descriptions.append("Salary")
                counterparties.append(SALARY_FROM)
                continue
            kind = "card" if roll < 0.75 else "sepa" if roll < 0.93 else "internal"
            if roll >= 0.99:
                kind = "interest"
            party = int(draw() * parties)
            choices = DESCRIPTIONS[kind]
            text = choices[int(draw() * len(choices))]
            amount = 100 + int(draw() * 24_901)
            kinds.append(kind)
            amounts.append(amount if kind == "interest" else -amount)
            descriptions.append(f"Invoice 2024-{n}" if text is INVOICE else text)
            counterparties.append(-1 if kind == "interest" else party)
        return Movements(kinds, amounts, descriptions, counterparties, numbers)

    def _balance_before(self, block: int) -> int:
        balances = self._balances
        if not balances:
            balances.append(self.opening)
        while len(balances) <= block:
            balances.append(balances[-1] + sum(self.movements(len(balances) - 1).amounts))
        return balances[block]

    def change(self) -> int:
        """The euro balance after the history less the one before it."""
        blocks = -(-self.count // BLOCK)
        return self._balance_before(blocks) - self.opening

    def encoded(self, low: int, high: int, currency: str | None) -> list[bytes]:
        """The records low..high-1 as JSON, all in one piece (objects joined by commas)."""
        if currency not in (None, CURRENCY) or low >= high:
            return []
        texts: list[str] = []
        for block in range(low // BLOCK, (high - 1) // BLOCK + 1):
            texts.extend(self._encode_block(block, low, high))
        return [",".join(texts).encode()]

    def _encode_block(self, block: int, low: int, high: int) -> list[str]:
        moves = self.movements(block)
        first = moves.numbers.start
        skip = max(low - first, 0)
        before = self._balance_before(block)
        if len(self._balances) == block + 1:  # the next block's start, while the block is here
            self._balances.append(before + sum(moves.amounts))
        balance = before + sum(moves.amounts[:skip])
        amounts, kinds, descriptions, parties = (
            moves.amounts,
            moves.kinds,
            moves.descriptions,
            moves.counterparties,
        )
        # what a record shares with others of its kind, text and counterparty, made once
        shared: dict[tuple[str, bool, str, int], str] = {}
        day_text, next_day, out = "", first + skip, []
        for n in range(first + skip, min(moves.numbers.stop, high)):
            if n >= next_day:  # the day changes: when does it change next?
                ordinal = self.day(n)
                day_text = dt.date.fromordinal(ordinal).isoformat()
                next_day = self.first_of(ordinal + 1)
            at = n - first
            amount = amounts[at]
            balance += amount
            key = (kinds[at], amount > 0, descriptions[at], parties[at])
            head = shared.get(key)
            if head is None:
                head = shared[key] = _head(*key)
            out.append(
                f'{head}"id":"ST{self.start + n + 1:09d}","booking_date":"{day_text}",'
                f'"amount":{abs(amount)},"reference":"TX{n:07d}","balance_after":{balance}}}'
            )
        return out

    def first_of(self, ordinal: int) -> int:
        """The number of the first movement on or after the day."""
        return bisect.bisect_left(range(self.count), ordinal, key=self.day)

    def balance_at(self, day: dt.date, currency: str) -> int | None:
        if currency != CURRENCY:
            return None
        high = bisect.bisect_right(range(self.count), day.toordinal(), key=self.day)
        if high == 0:
            return None
        last = high - 1
        block = last // BLOCK
        within = self.movements(block).amounts[: last - block * BLOCK + 1]
        return self._balance_before(block) + sum(within)
