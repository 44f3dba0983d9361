"""Searching a loaded statement, as the Statements window does: a range of rows at a time, so
that a million rows are searched in slices between which the window keeps painting."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from app.api.banking.columns import StatementColumns
from app.core.money import MoneyError, to_minor
from app.ui.statements.packed_keys import row_numbers


class Search:
    """A search of the rows, done a range of rows at a time. A row matches when its date,
    type, currency, description, counterparty, counterparty account or reference contains the
    text (any case), or its amount or balance is the amount typed (12.50 finds a credit or a
    debit of 12.50, -12.50 only the debit)."""

    def __init__(self, columns: StatementColumns, text: str) -> None:
        self.columns = columns
        self.needle = text.strip().lower()
        self._day_matches: dict[int, bool] = {}
        self._dates = bool(self.needle) and set(self.needle) <= set("0123456789-")
        self._signed = self.needle.startswith("-")
        self._number = self.needle[1:] if self._signed else self.needle
        # per dictionary column: the codes found so far and how many values were checked
        self._codes: dict[int, tuple[set[int], int]] = {}
        self._targets: dict[int, int] = {}
        self._currencies_checked = 0

    def rows(self, low: int, high: int) -> Sequence[int]:
        """The matching rows in low..high-1, in booking order."""
        columns = self.columns
        if not self.needle or low >= high:
            return row_numbers(low, high)
        needle = self.needle
        found: set[int] = set()
        for column in (columns.ids, columns.descriptions, columns.references):
            found.update(column.rows_containing(needle, low, high))
        for dictionary in (
            columns.types,
            columns.currencies,
            columns.counterparty_names,
            columns.counterparty_accounts,
        ):
            codes, checked = self._codes.get(id(dictionary), (set(), 0))
            # only the values these rows use, which came first up to them: a million distinct
            # values are checked over the slices their rows are searched in, never in one
            upto = max(dictionary.codes[low:high]) + 1
            if upto > checked:
                checked = dictionary.matching_codes(needle, codes, checked, upto)
                self._codes[id(dictionary)] = (codes, checked)
            if codes:
                found.update(i for i in range(low, high) if dictionary.codes[i] in codes)
        if self._dates:
            days, matches = columns.days, self._day_matches
            for i in range(low, high):
                day = days[i]
                hit = matches.get(day)
                if hit is None:
                    hit = matches[day] = needle in dt.date.fromordinal(day).isoformat()
                if hit:
                    found.add(i)
        targets = self._amounts()
        if targets:
            currency_of, amounts = columns.currencies.codes, columns.amounts
            balances, credits, signed = columns.balances, columns.credits, self._signed
            for i in range(low, high):
                target = targets.get(currency_of[i])
                if target is None:
                    continue
                if signed:  # only a debit, or a balance below zero
                    if (amounts[i] == target and not credits[i]) or balances[i] == -target:
                        found.add(i)
                elif amounts[i] == target or abs(balances[i]) == target:
                    found.add(i)
        return sorted(found)

    def _amounts(self) -> dict[int, int]:
        """The amount typed, in minor units of each currency it can be written in."""
        if not self._number or not self._number[0].isdigit():
            return {}
        targets, currencies = self._targets, self.columns.currencies.values
        for code in range(self._currencies_checked, len(currencies)):
            try:
                targets[code] = to_minor(self._number, currencies[code] or "")
            except MoneyError:
                continue
        self._currencies_checked = len(currencies)
        return targets
