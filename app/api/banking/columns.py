"""A statement held as columns: a million records in about a hundred bytes each.

Records go from the stream straight into columns: a decoded piece's values are taken column
by column (`add_plain`, or `add_parsed` for dicts), and its records are then dropped. Dates,
amounts and balances are compact integer arrays (`array`); strings that repeat — type,
currency, counterparty name and account — are stored once in a dictionary and each row holds
its value's code; free text — id, description, reference — is kept once, a piece's values
joined into one string with where each begins.
Nothing is formatted here: the window formats the few rows it shows.

Taking a piece costs a few passes in C over each column, never a Python step per record:
values that are plainly what `StatementRecord` accepts (strings, integers in range, dates as
YYYY-MM-DD) are taken as they are; a piece with anything else is left to the record model
(`add_records`), which accepts it as the same values or words what is wrong.

The standard `array` module was chosen by measurement over numpy and pyarrow (README,
"Statements"): filling the columns costs the same with each, since parsing is most of a
record's cost, and the two libraries would add 40 and 170 MB to the installed app.
"""

from __future__ import annotations

import datetime as dt
import re
import struct
import sys
from array import array
from collections import Counter
from collections.abc import Iterable, Sequence
from operator import itemgetter
from typing import Any

from msgspec.structs import astuple

from app.api.banking.statement_records import PlainRecord, StatementRecord
from app.api.banking.text_column import SEPARATOR, TextColumn, Unplain

# the fields in the order they are taken (`_take`), as the fast path's records declare them;
# the three before the last may be left out of a record
_FIELD_NAMES: tuple[str, ...] = PlainRecord.__struct_fields__
_FIELDS = itemgetter(*_FIELD_NAMES)
_BEFORE_OPTIONAL = itemgetter(*_FIELD_NAMES[:-4])
_AMOUNTS, _BALANCES = _FIELD_NAMES.index("amount"), _FIELD_NAMES.index("balance_after")
_CREDIT = {"credit": 1, "debit": 0}
_VALUE_PLACE_BYTES = 100  # a distinct value's place in the list and the index, about
_ROW_BYTES = 43  # a row's date, amounts, direction, codes and text pieces in the arrays
_INT64_MAX = 2**63 - 1
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


class DictionaryColumn:
    """Repeated strings: each distinct value once, each row its value's code."""

    def __init__(self, *, nullable: bool) -> None:
        self.values: list[str | None] = []
        self._index: dict[str | None, int] = {}
        self._nullable = nullable
        self.codes = array("I")
        self.held = 0  # bytes of the distinct values, with their places in the list and index

    def encode(self, values: Sequence[Any]) -> array[int]:
        """The codes of the values, new strings given new codes; Unplain for a value that is
        not a string (or None where the field may be null)."""
        index = self._index
        if not values:
            return array("I")
        try:
            first = values[0]
            if values[-1] == first and values.count(first) == len(values):
                # one value throughout (as a piece's currency, mostly): the learned decoder
                # gives one string for all, which count compares by identity first
                return array("I", [index[first]]) * len(values)
            return _codes(index, values)
        except (KeyError, TypeError):  # a value not seen before (or unhashable: below)
            pass
        try:
            new = [value for value in dict.fromkeys(values) if value not in index]
        except TypeError:  # unhashable: a list or an object
            raise Unplain from None
        for value in new:  # in the order first seen
            if not (type(value) is str or (value is None and self._nullable)):
                raise Unplain
            index[value] = len(self.values)
            self.values.append(value)
            self.held += sys.getsizeof(value) + _VALUE_PLACE_BYTES
        return _codes(index, values)

    def adopt(self, strings: Iterable[str]) -> None:
        """Hold these strings, each equal to one of its values, in their stead: the decoder
        gives these very objects (`LearnedDecoder.learn`), then found in the index by identity."""
        index, values = self._index, self.values
        for string in strings:
            code = index.pop(string)  # the equal key held so far goes: a dict keeps its first
            index[string] = code
            values[code] = string

    def forget_after(self, count: int) -> None:
        """Forget the values from the count-th on (no row has their codes)."""
        for value in self.values[count:]:
            del self._index[value]
            self.held -= sys.getsizeof(value) + _VALUE_PLACE_BYTES
        del self.values[count:]

    def __getitem__(self, row: int) -> str | None:
        return self.values[self.codes[row]]

    def matching_codes(self, needle: str, known: set[int], checked: int, upto: int) -> int:
        """Add to ``known`` the codes from ``checked`` to ``upto`` whose values contain the
        (lower-case) text; the number of values checked so far is returned, for the next call."""
        values = self.values
        known.update(
            code
            for code in range(checked, upto)
            if (value := values[code]) and needle in value.lower()
        )
        return max(checked, upto)


def _no_bools(values: Sequence[Any]) -> list[Any]:
    """The values with each bool as its integer (a parsed piece's: the fast path has none)."""
    return [int(value) if type(value) is bool else value for value in values]


def _packed(typecode: str, values: Iterable[Any], count: int) -> array[int]:
    """Integers as an array, packed by struct: in about half the time the array's own
    conversion takes for signed types (it parses each value as a format). struct.error
    for a value that is not an integer or does not fit."""
    return array(typecode, struct.pack(f"{count}{typecode}", *values))


# the runs of one date in a piece: each one's ordinal and the row after its last
_Runs = tuple[tuple[int, int], ...]


def _runs_text(date: str, count: int) -> str:
    """A date ``count`` times, as the piece's texts joined would spell it."""
    return (date + SEPARATOR) * (count - 1) + date if count else ""


def _codes(index: dict[str | None, int], values: Sequence[Any]) -> array[int]:
    """Each value's code, all looked up in one call (itemgetter): a quarter less time than
    a map of index.get. KeyError for a value with no code yet."""
    if len(values) > 1:
        return array("I", itemgetter(*values)(index))
    return array("I", [index[value] for value in values])


class StatementColumns:
    """The loaded records of one statement, in booking order, as columns."""

    def __init__(self) -> None:
        self.days = array("i")  # proleptic ordinals (datetime.date.toordinal)
        self.amounts = array("q")  # as sent: never negative
        self.credits = array("b")  # 1 for a credit, 0 for a debit
        self.balances = array("q")
        self.types = DictionaryColumn(nullable=False)
        self.currencies = DictionaryColumn(nullable=False)
        self.counterparty_names = DictionaryColumn(nullable=True)
        self.counterparty_accounts = DictionaryColumn(nullable=True)
        self.ids = TextColumn()
        self.descriptions = TextColumn()
        self.references = TextColumn()
        # for the chart: by currency code, the balance after each day's last record
        self.last_balances: dict[int, dict[int, int]] = {}
        self.currency_counts: Counter[int] = Counter()
        # the greatest amount, and the least and greatest balance, of the rows ever taken (0
        # among them): a sort knows what its keys span without a pass over a million values
        self.amounts_high = 0
        self.balances_low = self.balances_high = 0
        self.zero_amounts = False  # whether any row's amount is 0 (a sort's keys treat it apart)
        self._ordinals: dict[str, int] = {}  # a date's ordinal, parsed once per date
        self.dropped = 0  # rows taken, then forgotten (`drop_rows`)

    def __len__(self) -> int:
        return len(self.days)

    @property
    def held_bytes(self) -> int:
        """About the memory the rows taken hold (the rows dropped since not counted)."""
        texts = (self.ids, self.descriptions, self.references)
        dictionaries = (
            self.types,
            self.currencies,
            self.counterparty_names,
            self.counterparty_accounts,
        )
        held = sum(column.held for column in texts) + sum(d.held for d in dictionaries)
        return held + len(self) * _ROW_BYTES

    @property
    def taken(self) -> int:
        """The rows taken in all, those dropped since (`drop_rows`) among them."""
        return self.dropped + len(self.days)

    def signed_amount(self, row: int) -> int:
        amount = self.amounts[row]
        return amount if self.credits[row] else -amount

    # -- adding

    def add_plain(self, records: Sequence[Any]) -> bool:
        """Take records decoded with every field typed as JSON had it (`PlainRecord`: strings,
        integers, None where a field may be null); False (and nothing taken) when a value is
        still not what StatementRecord accepts, such as a date that does not exist."""
        if not records:
            return True
        # a tuple per record (astuple), transposed by zip: both in C, and in a third of the
        # time a pass per field with attrgetter took (0.35 against 0.9 s a million)
        return self._take(list(zip(*map(astuple, records), strict=True)))

    def add_parsed(self, items: Any) -> bool:
        """Take parsed JSON records when every value is plainly what StatementRecord accepts;
        False (and nothing taken) when anything is not."""
        if type(items) is not list:
            return False
        if not items:
            return True
        rows = _rows(items)
        if rows is None:
            return False
        # true and false are taken as 1 and 0, as the record model takes them: as integers,
        # not bools, in each day's balance and the bounds a sort reads
        rows[_AMOUNTS], rows[_BALANCES] = _no_bools(rows[_AMOUNTS]), _no_bools(rows[_BALANCES])
        return self._take(rows)

    def _take(self, rows: list[Sequence[Any]]) -> bool:
        """Take the values of records, column by column (in `_FIELDS`' order), when they are
        plainly right; False (and nothing taken) when anything is not."""
        (
            ids,
            days,
            types,
            directions,
            amounts,
            currencies,
            descriptions,
            names,
            accounts,
            references,
            balances,
        ) = rows
        try:
            self._add(
                *self._days(days),
                array("b", bytes(map(_CREDIT.get, directions))),  # type: ignore[arg-type] # None: refused
                amounts,
                balances,
                (types, currencies, names, accounts),
                (ids, descriptions, references),
            )
        except (Unplain, TypeError, OverflowError, ValueError, struct.error, RecursionError):
            return False  # the record model words what is wrong
        return True

    def add_records(self, records: list[StatementRecord]) -> None:
        """Take records the record model validated."""
        if not records:
            return
        self._add(
            _packed("i", (record["booking_date"].toordinal() for record in records), len(records)),
            None,
            array("b", (record["direction"] == "credit" for record in records)),
            [record["amount"] for record in records],
            [record["balance_after"] for record in records],
            (
                [record["type"] for record in records],
                [record["currency"] for record in records],
                [record.get("counterparty_name") for record in records],
                [record.get("counterparty_account") for record in records],
            ),
            (
                [record["id"] for record in records],
                [record["description"] for record in records],
                [record.get("reference") for record in records],
            ),
        )

    def _days(self, texts: Sequence[Any]) -> tuple[array[int], _Runs | None]:
        """The dates' ordinals as a column; and when the piece is one date throughout, or
        one and then another (as most pieces of a long statement, which come in date order),
        each run's ordinal and end."""
        ordinals = self._ordinals
        first, last = texts[0], texts[-1]
        self._learn_dates((first, last))  # each a date of ten characters
        count = len(texts)
        # told by comparing the texts joined with those runs spelled out, one comparison in
        # C: comparing them one by one, then packing the ordinals and finding each day's last
        # balance row by row, took 7% of the instructions of reading a piece
        joined = SEPARATOR.join(texts)  # TypeError when one is no text: refused
        turn = count if first == last else joined.find(last) // (len(first) + 1)
        runs = _runs_text(first, turn) + (SEPARATOR if 0 < turn < count else "")
        if joined == runs + _runs_text(last, count - turn):
            # the separators count as many as the texts' gaps: no text holds one, and each
            # is the date its place in the runs says
            start, end = ordinals[first], ordinals[last]
            if turn == count:
                return array("i", [start]) * count, ((start, count),)
            return array("i", [start]) * turn + array("i", [end]) * (count - turn), (
                (start, turn),
                (end, count),
            )
        try:
            return _packed("i", map(ordinals.__getitem__, texts), count), None
        except KeyError:  # a date not seen yet
            pass
        self._learn_dates(set(texts).difference(ordinals))  # TypeError when unhashable
        return _packed("i", map(ordinals.__getitem__, texts), count), None

    def _learn_dates(self, texts: Iterable[Any]) -> None:
        ordinals = self._ordinals
        for text in texts:
            if text in ordinals:
                continue
            if type(text) is not str or not _DATE.fullmatch(text):
                raise Unplain
            ordinals[text] = dt.date.fromisoformat(text).toordinal()  # ValueError: 2024-02-30

    def _add(
        self,
        day_column: array[int],
        day_runs: _Runs | None,
        credits: array[int],
        amounts: Sequence[Any],
        balances: Sequence[Any],
        repeated: tuple[Sequence[Any], ...],
        free: tuple[Sequence[Any], ...],
    ) -> None:
        """Everything is computed before any column grows: a piece that cannot be taken
        leaves the columns as they were (the dictionaries forget the values it brought)."""
        # "Q" refuses a negative amount (sent unsigned) and anything not an integer, in a
        # sixth of the time "q" takes (which parses each value as a format)
        unsigned_amounts = array("Q", amounts)
        balance_column = _packed("q", balances, len(balances))
        # integers only from here: min and max over the values themselves (over an array each
        # would be made anew), never over lists a comparison would recurse into
        amounts_high = max(amounts, default=0)
        if amounts_high > _INT64_MAX:
            raise Unplain
        amount_column = array("q", unsigned_amounts.tobytes())
        types, currencies, names, accounts = repeated
        dictionaries = (
            self.types,
            self.currencies,
            self.counterparty_names,
            self.counterparty_accounts,
        )
        known = [len(dictionary.values) for dictionary in dictionaries]
        try:
            type_codes = self.types.encode(types)
            currency_codes = self.currencies.encode(currencies)
            name_codes = self.counterparty_names.encode(names)
            account_codes = self.counterparty_accounts.encode(accounts)
            ids = TextColumn.prepare(free[0], nullable=False)
            descriptions = TextColumn.prepare(free[1], nullable=False)
            references = TextColumn.prepare(free[2], nullable=True)
            if not len(day_column) == len(credits) == len(amounts) == len(balances) == ids.rows:
                raise Unplain
        except Exception:
            for dictionary, count in zip(dictionaries, known, strict=True):
                dictionary.forget_after(count)
            raise
        # from here on nothing can fail
        if amounts:
            self.amounts_high = max(self.amounts_high, amounts_high)
            self.zero_amounts = self.zero_amounts or 0 in amounts
            self.balances_low = min(self.balances_low, min(balances))
            self.balances_high = max(self.balances_high, max(balances))
        self.days += day_column
        self.credits += credits
        self.amounts += amount_column
        self.balances += balance_column
        self.types.codes += type_codes
        self.currencies.codes += currency_codes
        self.counterparty_names.codes += name_codes
        self.counterparty_accounts.codes += account_codes
        self.ids.append(ids)
        self.descriptions.append(descriptions)
        self.references.append(references)
        self._remember_balances(currency_codes, day_column, day_runs, balances)

    def _remember_balances(
        self,
        codes: array[int],
        days: array[int],
        runs: _Runs | None,
        balances: Sequence[int],
    ) -> None:
        """Each day's last balance, and the count of records, by currency."""
        if not codes:
            return
        first = codes[0]
        if codes.count(first) == len(codes):  # one currency, as most pieces: no pair per row
            by_day = self.last_balances.setdefault(first, {})
            if runs is None:
                by_day.update(zip(days, balances, strict=True))
            else:  # a day or two, as most pieces of a long statement
                for day, end in runs:
                    by_day[day] = balances[end - 1]
            self.currency_counts[first] += len(codes)
            return
        last = dict(zip(zip(codes, days, strict=True), balances, strict=True))  # the last wins
        for (code, day), balance in last.items():
            self.last_balances.setdefault(code, {})[day] = balance
        self.currency_counts.update(codes)

    def drop_rows(self) -> None:
        """Forget the rows taken so far and their values (1,500 counterparties of 900 KB held
        1.3 GB), but for the currencies and each day's balance: a writer streaming them on."""
        self.dropped += len(self)
        self.days, self.amounts = array("i"), array("q")
        self.credits, self.balances = array("b"), array("q")
        self.currencies.codes = array("I")
        self.types = DictionaryColumn(nullable=False)
        self.counterparty_names = DictionaryColumn(nullable=True)
        self.counterparty_accounts = DictionaryColumn(nullable=True)
        self.ids, self.descriptions, self.references = TextColumn(), TextColumn(), TextColumn()

    # -- reading

    def currency(self, row: int) -> str:
        return self.currencies.values[self.currencies.codes[row]] or ""

    def record(self, row: int) -> StatementRecord:
        """The record of a row, as it arrived (optional fields left out read as None)."""
        return StatementRecord(
            id=self.ids[row],
            booking_date=dt.date.fromordinal(self.days[row]),
            type=self.types[row] or "",
            direction="credit" if self.credits[row] else "debit",
            amount=self.amounts[row],
            currency=self.currency(row),
            description=self.descriptions[row],
            counterparty_name=self.counterparty_names[row],
            counterparty_account=self.counterparty_accounts[row],
            reference=self.references.value(row),
            balance_after=self.balances[row],
        )

    def main_currency(self) -> str | None:
        """The currency with the most records."""
        if not self.currency_counts:
            return None
        code = max(self.currency_counts, key=lambda c: (self.currency_counts[c], -c))
        return self.currencies.values[code]

    def daily_balances(self, currency: str) -> list[tuple[dt.date, int]]:
        """The balance at the end of each day with a movement in that currency."""
        values = self.currencies.values
        code = values.index(currency) if currency in values else -1
        by_day = self.last_balances.get(code, {})
        return [(dt.date.fromordinal(day), by_day[day]) for day in sorted(by_day)]


def _rows(items: list[Any]) -> list[Sequence[Any]] | None:
    """The records' values column by column (the optional three None where left out); None when
    a record is not an object or lacks a field it needs."""
    try:
        return list(zip(*map(_FIELDS, items), strict=True))
    except TypeError:
        return None  # not an object
    except KeyError:
        pass  # an optional field left out: the slower way
    try:
        return list(
            zip(
                *(
                    (
                        *_BEFORE_OPTIONAL(item),
                        item.get("counterparty_name"),
                        item.get("counterparty_account"),
                        item.get("reference"),
                        item["balance_after"],
                    )
                    for item in items
                ),
                strict=True,
            )
        )
    except (KeyError, TypeError, AttributeError):
        return None
