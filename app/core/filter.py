"""The filter language of the banking API's list operations.

Grammar (``and`` binds tighter than ``or``; ``;`` is a synonym of ``and``)::

    expr      := and_expr ( "or" and_expr )*
    and_expr  := primary ( ("and" | ";") primary )*
    primary   := "(" expr ")" | condition
    condition := FIELD "[" OPERATOR "]" value
    value     := STRING | DATE | INTEGER          (range: value "," value)

Strings are double-quoted; a double quote inside is written twice:
``"say ""hi"" now"``.
Dates are ``yyyy-mm-dd``; integers are digits without thousand delimiters (optional ``-``).

Parsing is bounded: parentheses nest at most ``MAX_DEPTH`` deep and integers carry at most
``MAX_INTEGER_DIGITS`` digits, so hostile text gets a FilterError, never a RecursionError.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal, TypeAlias

Scalar: TypeAlias = str | int | dt.date


class Operator(StrEnum):
    RANGE = "range"
    LIKE = "like"
    EQ = "eq"
    NE = "ne"
    GT = "gt"
    GTE = "gte"
    LT = "lt"
    LTE = "lte"


class FilterError(ValueError):
    """Bad filter text or a filter that does not fit the operation; names the position."""

    def __init__(self, message: str, position: int | None = None) -> None:
        self.reason = message
        self.position = position
        text = message if position is None else f"{message} at position {position + 1}"
        super().__init__(text)


@dataclass(frozen=True)
class Range:
    low: Scalar
    high: Scalar


Value: TypeAlias = Scalar | Range


@dataclass(frozen=True)
class Condition:
    field: str
    operator: Operator
    value: Value


@dataclass(frozen=True)
class Group:
    """Conditions joined by one logical operator; always two or more, never nested alike."""

    op: Literal["and", "or"]
    items: tuple[Node, ...]


Node: TypeAlias = Condition | Group

_FIELD_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_DATE_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?![0-9-])")
_INT_RE = re.compile(r"-?[0-9]+(?![0-9-])")
_OPERATOR_RE = re.compile(r"\[\s*([A-Za-z]*)\s*")
_KEYWORDS = frozenset({"and", "or"})
MAX_DEPTH = 32  # parentheses nested deeper are refused (decided; see the README)
MAX_INTEGER_DIGITS = 18  # int64 territory (decided)


# ---------------------------------------------------------------- building


def cond(field: str, operator: Operator | str, value: Value) -> Condition:
    """One condition, checked as the parser would check it."""
    if not _FIELD_RE.fullmatch(field) or field.lower() in _KEYWORDS:
        raise FilterError(f"invalid field name {field!r}")
    try:
        op = Operator(operator)
    except ValueError:
        raise FilterError(f"unknown operator {operator!r}") from None
    if op is Operator.RANGE:
        if not isinstance(value, Range):
            raise FilterError("the range operator needs a Range(low, high) value")
        _check_scalar(value.low)
        _check_scalar(value.high)
        if type(value.low) is not type(value.high):
            raise FilterError("both ends of a range must be of the same type")
    else:
        if isinstance(value, Range):
            raise FilterError(f"a range value needs the range operator, not {op.value}")
        _check_scalar(value)
        if op is Operator.LIKE and not isinstance(value, str):
            raise FilterError("the like operator needs a string value")
    return Condition(field, op, value)


def _check_scalar(value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, str | int | dt.date):
        raise FilterError(f"unsupported value {value!r}: use a string, an integer or a date")
    if isinstance(value, dt.datetime):
        raise FilterError("use a date, not a date-time")


def all_of(*nodes: Node) -> Node:
    return _join("and", nodes)


def any_of(*nodes: Node) -> Node:
    return _join("or", nodes)


def _join(op: Literal["and", "or"], nodes: tuple[Node, ...]) -> Node:
    if not nodes:
        raise FilterError(f"'{op}' needs at least one condition")
    flat: list[Node] = []
    for node in nodes:
        if isinstance(node, Group) and node.op == op:
            flat.extend(node.items)
        else:
            flat.append(node)
    return flat[0] if len(flat) == 1 else Group(op, tuple(flat))


# ---------------------------------------------------------------- printing


def _format_scalar(value: Scalar) -> str:
    if isinstance(value, str):
        return '"' + value.replace('"', '""') + '"'
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value)


def _format_value(value: Value) -> str:
    if isinstance(value, Range):
        return f"{_format_scalar(value.low)},{_format_scalar(value.high)}"
    return _format_scalar(value)


def to_string(node: Node) -> str:
    """The filter text for a tree; parse(to_string(n)) == n."""
    if isinstance(node, Condition):
        return f"{node.field}[{node.operator.value}]{_format_value(node.value)}"
    parts = []
    for item in node.items:
        text = to_string(item)
        # an "or" inside an "and" needs parentheses; the reverse binds right already
        if isinstance(item, Group) and node.op == "and":
            text = f"({text})"
        parts.append(text)
    return f" {node.op} ".join(parts)


# ---------------------------------------------------------------- parsing


@dataclass(frozen=True)
class _Token:
    kind: str  # field, op, string, date, int, comma, lparen, rparen, and, or, end
    text: str
    position: int
    value: Scalar | None = None


def _tokens(text: str) -> Iterator[_Token]:
    i = 0
    n = len(text)
    expect_value = False
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        start = i
        if ch == '"':
            i += 1
            chars: list[str] = []
            while True:
                if i >= n:
                    raise FilterError("unterminated string", start)
                if text[i] == '"':
                    if i + 1 < n and text[i + 1] == '"':
                        chars.append('"')
                        i += 2
                        continue
                    i += 1
                    break
                chars.append(text[i])
                i += 1
            yield _Token("string", text[start:i], start, "".join(chars))
            expect_value = False
            continue
        if ch == "[":
            match = _OPERATOR_RE.match(text, i)
            assert match is not None  # the pattern accepts an empty name
            name = match.group(1).lower()
            i = match.end()
            if name not in {o.value for o in Operator}:
                raise FilterError(f"unknown operator [{match.group(1)}]", start)
            if i >= n or text[i] != "]":
                raise FilterError("missing ']' after the operator", i)
            i += 1
            yield _Token("op", name, start)
            expect_value = True
            continue
        if ch in "();,":
            kind = {"(": "lparen", ")": "rparen", ";": "and", ",": "comma"}[ch]
            i += 1
            yield _Token(kind, ch, start)
            expect_value = ch == ","
            continue
        if expect_value:
            match = _DATE_RE.match(text, i)
            if match:
                try:
                    day = dt.date.fromisoformat(match.group())
                except ValueError:
                    raise FilterError(f"invalid date {match.group()}", start) from None
                i = match.end()
                yield _Token("date", match.group(), start, day)
                expect_value = False
                continue
            match = _INT_RE.match(text, i)
            if match:
                if len(match.group().lstrip("-")) > MAX_INTEGER_DIGITS:
                    raise FilterError(f"an integer has at most {MAX_INTEGER_DIGITS} digits", start)
                i = match.end()
                yield _Token("int", match.group(), start, int(match.group()))
                expect_value = False
                continue
            raise FilterError(
                "expected a value (a quoted string, a date yyyy-mm-dd or an integer)", start
            )
        match = _FIELD_RE.match(text, i)
        if match:
            word = match.group()
            i = match.end()
            lowered = word.lower()
            if lowered in _KEYWORDS:
                yield _Token(lowered, word, start)
            else:
                yield _Token("field", word, start)
            continue
        raise FilterError(f"unexpected character {ch!r}", start)
    yield _Token("end", "", n)


class _Parser:
    def __init__(self, text: str) -> None:
        self._tokens = list(_tokens(text))
        self._index = 0
        self._depth = 0

    def _peek(self) -> _Token:
        return self._tokens[self._index]

    def _take(self, kind: str, what: str) -> _Token:
        token = self._peek()
        if token.kind != kind:
            found = "the end of the filter" if token.kind == "end" else repr(token.text)
            raise FilterError(f"expected {what}, found {found}", token.position)
        self._index += 1
        return token

    def parse(self) -> Node:
        if self._peek().kind == "end":
            raise FilterError("empty filter", 0)
        node = self._or()
        token = self._peek()
        if token.kind != "end":
            what = "')' without '('" if token.kind == "rparen" else repr(token.text)
            raise FilterError(f"unexpected {what}; join conditions with and/or", token.position)
        return node

    def _or(self) -> Node:
        items = [self._and()]
        while self._peek().kind == "or":
            self._index += 1
            items.append(self._and())
        return any_of(*items)

    def _and(self) -> Node:
        items = [self._primary()]
        while self._peek().kind == "and":
            self._index += 1
            items.append(self._primary())
        return all_of(*items)

    def _primary(self) -> Node:
        if self._peek().kind == "lparen":
            opening = self._peek()
            self._depth += 1
            if self._depth > MAX_DEPTH:
                raise FilterError(f"parentheses nest at most {MAX_DEPTH} deep", opening.position)
            self._index += 1
            node = self._or()
            self._take("rparen", "')'")
            self._depth -= 1
            return node
        field = self._take("field", "a field name or '('")
        op_token = self._take("op", "an operator in brackets such as [eq]")
        operator = Operator(op_token.text)
        low = self._value()
        if operator is Operator.RANGE:
            self._take("comma", "',' between the two ends of the range")
            high = self._value()
            if type(low.value) is not type(high.value):
                raise FilterError("both ends of a range must be of the same type", high.position)
            return Condition(field.text, operator, Range(_scalar(low), _scalar(high)))
        if operator is Operator.LIKE and low.kind != "string":
            raise FilterError("the like operator needs a quoted string", low.position)
        return Condition(field.text, operator, _scalar(low))

    def _value(self) -> _Token:
        token = self._peek()
        if token.kind not in ("string", "date", "int"):
            raise FilterError(
                "expected a value (a quoted string, a date yyyy-mm-dd or an integer)",
                token.position,
            )
        self._index += 1
        return token


def _scalar(token: _Token) -> Scalar:
    assert token.value is not None
    return token.value


def parse(text: str) -> Node:
    """Parse filter text into a tree; raises FilterError naming the position."""
    return _Parser(text).parse()


# ---------------------------------------------------------------- checking and evaluating

FieldType: TypeAlias = type[str] | type[int] | type[dt.date]


def fields(node: Node) -> Iterator[Condition]:
    if isinstance(node, Condition):
        yield node
    else:
        for item in node.items:
            yield from fields(item)


def check_fields(node: Node, allowed: Mapping[str, FieldType]) -> None:
    """Refuse a condition on a field the operation does not filter on, or of the wrong type."""
    for condition in fields(node):
        expected = allowed.get(condition.field)
        if expected is None:
            names = ", ".join(sorted(allowed)) or "none"
            raise FilterError(
                f"field {condition.field!r} cannot be filtered here (filterable: {names})"
            )
        values = (
            [condition.value.low, condition.value.high]
            if isinstance(condition.value, Range)
            else [condition.value]
        )
        for value in values:
            if type(value) is not expected:
                raise FilterError(
                    f"field {condition.field!r} takes a {_type_name(expected)} value, "
                    f"not {_format_scalar(value)}"
                )


def _type_name(kind: FieldType) -> str:
    return {str: "quoted string", int: "integer", dt.date: "date (yyyy-mm-dd)"}[kind]


def like_matches(pattern: str, text: str) -> bool:
    """SQL LIKE (``%`` any run, ``_`` one character; no ESCAPE), case-insensitive.

    No backtracking: the pieces between ``%`` are matched at their earliest place in order,
    which is right for LIKE and takes at most len(text) * len(piece) steps, whatever the
    pattern (a regular expression of ``%%%%…!`` takes minutes)."""
    pieces = pattern.lower().split("%")
    value = text.lower()
    if len(pieces) == 1:
        return len(value) == len(pieces[0]) and _fits(pieces[0], value, 0)
    first, *middle, last = pieces
    end = len(value) - len(last)
    if end < len(first) or not _fits(first, value, 0) or not _fits(last, value, end):
        return False
    position = len(first)
    for piece in middle:
        found = _earliest(piece, value, position, end)
        if found < 0:
            return False
        position = found + len(piece)
    return True


def _fits(piece: str, value: str, at: int) -> bool:
    """Whether the piece (``_`` for any one character) matches the value at that place."""
    if at + len(piece) > len(value):
        return False
    return all(wanted == "_" or wanted == value[at + offset] for offset, wanted in enumerate(piece))


def _earliest(piece: str, value: str, start: int, end: int) -> int:
    """The first place from start where the piece fits wholly before end, or -1."""
    if "_" not in piece:
        return value.find(piece, start, end)
    # candidates are where its first literal run occurs; "_" alone fits anywhere
    literal = max(piece.split("_"), key=len)
    shift = piece.index(literal) if literal else 0
    at = start
    while at + len(piece) <= end:
        if literal:
            found = value.find(literal, at + shift, end)
            if found < 0:
                return -1
            at = found - shift
            if at + len(piece) > end:
                return -1
        if _fits(piece, value, at):
            return at
        at += 1
    return -1


def matches(node: Node, record: Mapping[str, Scalar | None]) -> bool:
    """Whether a record (field name to value) satisfies the filter."""
    if isinstance(node, Group):
        results = (matches(item, record) for item in node.items)
        return all(results) if node.op == "and" else any(results)
    actual = record.get(node.field)
    if actual is None:
        return node.operator is Operator.NE
    value = node.value
    op = node.operator
    if op is Operator.LIKE:
        return like_matches(str(value), str(actual))
    if op is Operator.RANGE:
        assert isinstance(value, Range)
        return _compare(value.low, actual) <= 0 <= _compare(value.high, actual)
    assert not isinstance(value, Range)
    order = _compare(actual, value)
    return {
        Operator.EQ: order == 0,
        Operator.NE: order != 0,
        Operator.GT: order > 0,
        Operator.GTE: order >= 0,
        Operator.LT: order < 0,
        Operator.LTE: order <= 0,
    }[op]


def _compare(left: Scalar, right: Scalar) -> int:
    # check_fields guarantees matching types; a date-time record value compares by its date
    if isinstance(left, dt.datetime):
        left = left.date()
    if isinstance(right, dt.datetime):
        right = right.date()
    if type(left) is not type(right):
        left_text, right_text = str(left), str(right)
        return (left_text > right_text) - (left_text < right_text)
    return (left > right) - (left < right)  # type: ignore[operator]
