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
from itertools import accumulate, chain, islice, repeat

BLOCK = 4096
_BLOCKS_KEPT = 8  # made blocks kept for the next pieces (about 40 kB each)
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


Head = tuple[str, bool, str, int]  # kind, credit, description, counterparty (-1: none)
# a record's own values, filled in by one bytes formatting per piece: its id, booking date,
# amount, reference and balance, in this order, between the values its head gives
_ID_AND_DAY = b'{"id":"ST%09d","booking_date":"%s",'
_AMOUNT = b'"amount":%d,'
_REFERENCE_AND_BALANCE = b'"reference":"TX%07d","balance_after":%d}'
_TEMPLATES_KEPT = 256  # templates kept for the next blocks: most heads recur, not invoices


def _template(head: Head) -> bytes:
    """A record's JSON with its head filled in and its own values left to the formatting, the
    keys in the order of the booked records and the contract's schema (AccountStatementModel
    in resources/openapi/banking-v1.yaml), as a server writes them."""
    kind, credit, description, party = head
    name, iban = _JSON_COUNTERPARTIES[party] if party >= 0 else ("null", "null")
    direction = "credit" if credit else "debit"
    kind_and_direction = f'"type":"{kind}","direction":"{direction}",'
    rest = (
        f'"currency":"{CURRENCY}","description":{json.dumps(description, ensure_ascii=False)},'
        f'"counterparty_name":{name},"counterparty_account":{iban},'
    )
    return b"".join(
        (_ID_AND_DAY, _literal(kind_and_direction), _AMOUNT, _literal(rest), _REFERENCE_AND_BALANCE)
    )


def _literal(text: str) -> bytes:
    """Text as itself in a bytes format."""
    return text.encode().replace(b"%", b"%%")


@dataclass(frozen=True)
class Movements:
    """One block, generated: per movement what its record shares with others (its head) and
    its signed amount, and the movements' numbers in the history."""

    heads: list[Head]
    amounts: list[int]
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
    _templates: dict[Head, bytes] = field(default_factory=dict, repr=False)
    # the blocks made last, the most recent at the end: a statement's pieces are smaller than
    # a block, and readers of the same period at once ask for the same blocks
    _recent: dict[int, Movements] = field(default_factory=dict, repr=False)

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
        recent = self._recent
        made = recent.pop(block, None) or self._made(block)
        recent[block] = made
        if len(recent) > _BLOCKS_KEPT:
            del recent[next(iter(recent))]
        return made

    def _made(self, block: int) -> Movements:
        rng = random.Random(self.seed * 1_000_003 + block)  # noqa: S311 - demo data
        draw = rng.random
        first = block * BLOCK
        numbers = range(first, min(first + BLOCK, self.count))
        heads: list[Head] = []
        amounts: list[int] = []
        parties = len(COUNTERPARTIES)
        for n in numbers:
            roll = draw()
            if roll < 0.05:
                heads.append(("sepa", True, "Salary", SALARY_FROM))
                amounts.append(150_000 + int(draw() * 250_001))
                continue
            kind = "card" if roll < 0.75 else "sepa" if roll < 0.93 else "internal"
            if roll >= 0.99:
                kind = "interest"
            party = int(draw() * parties)
            choices = DESCRIPTIONS[kind]
            text = choices[int(draw() * len(choices))]
            amount = 100 + int(draw() * 24_901)
            if kind == "interest":
                heads.append((kind, True, text, -1))
                amounts.append(amount)
            else:
                heads.append((kind, False, f"Invoice 2024-{n}" if text is INVOICE else text, party))
                amounts.append(-amount)
        return Movements(heads, amounts, numbers)

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
        blocks = range(low // BLOCK, (high - 1) // BLOCK + 1)
        return [b",".join([self._encode_block(block, low, high) for block in blocks])]

    def _encode_block(self, block: int, low: int, high: int) -> bytes:
        """The block's records in low..high-1, by one formatting of a template made of each
        record's (`_template`, made once per head) with all their values: no Python step per
        record, which made the sandbox as slow as the app reading what it sends."""
        moves = self.movements(block)
        first = moves.numbers.start
        before = self._balance_before(block)
        if len(self._balances) == block + 1:  # the next block's start, while the block is here
            self._balances.append(before + sum(moves.amounts))
        start, stop = max(low, first), min(moves.numbers.stop, high)
        amounts = moves.amounts[start - first : stop - first]
        heads = moves.heads[start - first : stop - first]
        templates = self._templates
        if len(templates) > _TEMPLATES_KEPT:  # invoices have heads of their own
            templates.clear()
        for head in set(heads).difference(templates):
            templates[head] = _template(head)
        balance = before + sum(moves.amounts[: start - first])
        balances = islice(accumulate(amounts, initial=balance), 1, None)  # after each
        values = zip(
            range(self.start + start + 1, self.start + stop + 1),  # the record's id
            self._day_texts(start, stop),
            map(abs, amounts),
            range(start, stop),  # its reference
            balances,
            strict=True,
        )
        text = b",".join(map(templates.__getitem__, heads))
        return text % tuple(chain.from_iterable(values))

    def _day_texts(self, start: int, stop: int) -> list[bytes]:
        """The booking date of each movement start..stop-1, as ISO text."""
        texts: list[bytes] = []
        number = start
        while number < stop:
            ordinal = self.day(number)
            following = min(self.first_of(ordinal + 1), stop)
            texts.extend(
                repeat(dt.date.fromordinal(ordinal).isoformat().encode(), following - number)
            )
            number = following
        return texts

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
