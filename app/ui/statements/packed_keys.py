"""Sort keys Python's sort compares fastest: one float a row, made from the columns' bytes
without a Python step per row.

A positive float orders as its eight bytes read as an unsigned integer do. A row's key is
the float whose bytes (little-endian) are, from the lowest: the row (3 bytes), the value
sorted by (4 bytes: an unsigned 32-bit integer), and a top byte that holds a group (the
currency; for amounts, debit or credit too) under a fixed bit that keeps every key a normal
float. Sorted, the keys order the rows by group, then value, then row: equal values keep
their booking order. Descending, the group and the value are complemented and the row is
not, so equal values keep booking order that way too.

A million such floats sort in the time a million integers do, and the keys are made by
slicing, translating and big-integer logic over the columns' bytes, all of it in C. A
column that cannot be packed (`packable`) — free text, a value past 32 bits, more than
2^24 rows, more currencies than the top byte holds — is sorted the general way
(app.ui.statements.ordering). The row numbers' bytes also make the rows a load places and a
cleared search shows (`row_numbers`).
"""

from __future__ import annotations

import math
import struct
import sys
from array import array

from app.api.banking.columns import DictionaryColumn, StatementColumns
from app.ui.statements.table_columns import (
    ACCOUNT,
    AMOUNT,
    BALANCE,
    COUNTERPARTY,
    CURRENCY,
    DATE,
    TYPE,
)

ROWS_LIMIT = 1 << 24  # a row is 3 bytes of its key
_MARK = 0x40  # bit 62 set: the exponent is never 0 (no key is subnormal)
_GROUPS = 0x3F  # groups 0 to 0x3E: the exponent never reaches 0x7FF (infinity, not a number)
_CURRENCIES = _GROUPS // 2  # an amount's group is its currency and whether it is a credit
_WORD = 1 << 32
_TOP = bytes(_MARK | group if group < _GROUPS else 0 for group in range(256))
_COMPLEMENT = bytes(range(255, -1, -1))
_SIGN_FLIPPED = bytes(byte ^ 0x80 for byte in range(256))  # two's complement to offset
_IS_ZERO = bytes([1]) + bytes(255)
_DOUBLED = bytes(2 * byte & 0xFF for byte in range(256))
_ROW_LOW = bytes(range(256)) * 256  # the lowest byte of 65,536 rows in a row
_ROW_MIDDLE = bytes(middle for middle in range(256) for _low in range(256))  # the middle one


def dictionary_of(data: StatementColumns, column: int) -> DictionaryColumn | None:
    """The dictionary a column's values are coded in (type, currency, counterparty and its
    account); None for another column."""
    return {
        TYPE: data.types,
        CURRENCY: data.currencies,
        COUNTERPARTY: data.counterparty_names,
        ACCOUNT: data.counterparty_accounts,
    }.get(column)


def text_ranks(values: list[str | None], *, casefold: bool) -> list[int]:
    """Each dictionary code's place among the values in text order; values that read the
    same (None and "", and with ``casefold`` "Shop" and "SHOP") share a place, so that their
    rows keep booking order among themselves."""

    def text(code: int) -> str:
        value = values[code] or ""
        return value.casefold() if casefold else value

    rank = [0] * len(values)
    place, previous = -1, None
    for code in sorted(range(len(values)), key=text):
        if text(code) != previous:
            place, previous = place + 1, text(code)
        rank[code] = place
    return rank


def packable(data: StatementColumns, column: int) -> bool:
    """Whether the rows can be ordered by packed keys for this column (-1: booking order)."""
    if len(data) >= ROWS_LIMIT or sys.byteorder != "little":
        return False
    if column in (AMOUNT, BALANCE):
        if len(data.currencies.values) > _CURRENCIES:
            return False
        if column == AMOUNT:
            return data.amounts_high < _WORD
        return data.balances_low >= -_WORD // 2 and data.balances_high < _WORD // 2
    return column in (-1, DATE) or dictionary_of(data, column) is not None


def packed_key_bytes(
    data: StatementColumns, column: int, descending: bool, rows: range
) -> bytearray:
    """The keys of a run of rows (``rows``, a step of 1) of a column that is `packable`, in
    row order, as the bytes of native doubles: copies sorting side by side each make the keys
    of a run (app.ui.statements.ordering)."""
    value, groups, group_count = _value_and_groups(data, column, rows.start, rows.stop)
    if descending:
        value = value.translate(_COMPLEMENT)
        last = group_count - 1
        groups = groups.translate(bytes(last - g if g <= last else 0 for g in range(256)))
    raw = bytearray(8 * len(rows))
    for byte, row_byte in enumerate(_row_bytes(rows.start, rows.stop)):
        raw[byte::8] = row_byte
    for byte in range(4):
        raw[3 + byte :: 8] = value[byte::4]
    raw[7::8] = groups.translate(_TOP)
    return raw


def ordered_part(
    keys: array[float], rows: array[int] | None, part: int, parts: int
) -> tuple[int, bytearray]:
    """The rows (all, or those given) whose keys fall in the ``part``-th of ``parts`` ranges
    of about as many keys each, in key order, as the bytes of an array("I"); and where the
    part begins among all the rows in order. The parts, one after the other, are the rows in
    order: each can be worked out by its own process."""
    total = len(keys) if rows is None else len(rows)
    start = 0
    if parts == 1:
        chosen = keys.tolist() if rows is None else list(map(keys.__getitem__, rows))
    else:
        # the cuts between the parts, at keys sampled alike by every part
        step = max(total // 1024, 1)
        sample = sorted(keys[::step] if rows is None else map(keys.__getitem__, rows[::step]))
        cuts = [-math.inf, *(sample[len(sample) * i // parts] for i in range(1, parts)), math.inf]
        low, high = (cuts[part], cuts[part + 1]) if sample else (-math.inf, math.inf)
        source = keys if rows is None else map(keys.__getitem__, rows)
        # one comprehension, its floats compared inline: twice as fast as filter(); the first
        # and last parts have one bound to compare with, not two
        if low == -math.inf:
            chosen = [key for key in source if key < high]
        elif high == math.inf:
            chosen = [key for key in source if low <= key]
            start = total - len(chosen)
        else:
            chosen = [key for key in source if low <= key < high]
            # a part between two others begins after every key below it: counted
            below = keys if rows is None else map(keys.__getitem__, rows)
            start = sum(map(low.__gt__, below))
    chosen.sort()
    # native doubles (a little-endian machine, as `packable` checks): copied as they are, where
    # "<" converts each; array("d", a list) takes twice as long
    raw = struct.pack(f"@{len(chosen)}d", *chosen)
    found = bytearray(4 * len(chosen))
    for byte in range(3):
        found[byte::4] = raw[byte::8]
    return start, found


def _value_and_groups(
    data: StatementColumns, column: int, low: int, high: int
) -> tuple[bytes, bytes, int]:
    """Each row's value as 4 bytes and its group as one (rows ``low`` to ``high``), and the
    number of groups."""
    rows = high - low
    if column in (AMOUNT, BALANCE):
        currencies = data.currencies
        rank = text_ranks(currencies.values, casefold=False)
        currency = _words(currencies.codes[low:high])[::4].translate(
            bytes(rank + [0] * (256 - len(rank)))
        )
        if column == BALANCE:
            value = _low_words(data.balances[low:high])
            value[3::4] = value[3::4].translate(_SIGN_FLIPPED)
            return bytes(value), currency, max(len(rank), 1)
        amounts = _low_words(data.amounts[low:high])
        # credits above debits; a zero amount counts as a credit, so all zeros keep booking order
        credit = bytes(data.credits[low:high])
        if data.zero_amounts:
            zero = _or(_or(amounts[0::4], amounts[1::4]), _or(amounts[2::4], amounts[3::4]))
            credit = _or(credit, zero.translate(_IS_ZERO))
        debit_mask = bytearray(4 * rows)
        for byte in range(4):
            debit_mask[byte::4] = credit.translate(bytes([0xFF, 0]) + bytes(254))
        debits_complemented = _xor(amounts, debit_mask)  # the larger a debit, the lower
        return debits_complemented, _or(currency.translate(_DOUBLED), credit), 2 * max(len(rank), 1)
    if column == DATE:
        return _words(data.days[low:high]), bytes(rows), 1  # ordinals are positive
    dictionary = dictionary_of(data, column)
    if dictionary is not None:
        rank = text_ranks(dictionary.values, casefold=True)
        codes = dictionary.codes[low:high]
        return _words(array("I", map(rank.__getitem__, codes))), bytes(rows), 1
    return bytes(4 * rows), bytes(rows), 1  # booking order: the row alone


def _row_bytes(low: int, high: int) -> tuple[bytes, bytes, bytes]:
    """The lowest, middle and highest byte of each row number from ``low`` to ``high``, as
    three byte strings: repeated patterns cut at the first, ten times faster than the bytes
    of array("I", range()). Within one run of 65,536 rows (a loading piece's, mostly) the
    patterns are cut as they are, not repeated."""
    first, last = low // 65536, -(-high // 65536)
    skip, rows = low % 65536, high - low
    if last - first <= 1:
        return _ROW_LOW[skip : skip + rows], _ROW_MIDDLE[skip : skip + rows], bytes([first]) * rows
    blocks = last - first
    return (
        (_ROW_LOW * blocks)[skip : skip + rows],
        (_ROW_MIDDLE * blocks)[skip : skip + rows],
        b"".join(bytes([top]) * 65536 for top in range(first, last))[skip : skip + rows],
    )


def row_numbers(low: int, high: int) -> array[int]:
    """The rows from ``low`` to ``high`` as an array("I"), made from their bytes
    (`_row_bytes`): a fifth of the time array("I", range()) takes (a million-row load and a
    search cleared ask for every row, a loading piece's at a time)."""
    if high <= low:
        return array("I")
    if high > ROWS_LIMIT or sys.byteorder != "little" or array("I").itemsize != 4:
        return array("I", range(low, high))
    numbers = bytearray(4 * (high - low))
    numbers[0::4], numbers[1::4], numbers[2::4] = _row_bytes(low, high)
    rows = array("I")
    rows.frombytes(numbers)
    return rows


def _words(values: array[int]) -> bytes:
    """An array of 4-byte integers as bytes (4-byte items are checked, not assumed)."""
    if values.itemsize != 4:
        values = array("I", values)
    return values.tobytes()


def _low_words(values: array[int]) -> bytearray:
    """The low 4 bytes of each 8-byte integer."""
    whole = values.tobytes()
    low = bytearray(4 * len(values))
    for byte in range(4):
        low[byte::4] = whole[byte :: values.itemsize]
    return low


def _or(left: bytes | bytearray, right: bytes | bytearray) -> bytes:
    number = int.from_bytes(left, "little") | int.from_bytes(right, "little")
    return number.to_bytes(len(left), "little")


def _xor(left: bytes | bytearray, right: bytes | bytearray) -> bytes:
    number = int.from_bytes(left, "little") ^ int.from_bytes(right, "little")
    return number.to_bytes(len(left), "little")
