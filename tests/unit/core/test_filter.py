import contextlib
import datetime as dt
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core import filter as flt
from app.core.filter import Condition, FilterError, Group, Operator, Range


def test_parses_each_operator_and_value_kind():
    node = flt.parse('email[like]"%.com" and create_date[gte]2024-01-31 or n[lt]-5')
    assert node == Group(
        "or",
        (
            Group(
                "and",
                (
                    Condition("email", Operator.LIKE, "%.com"),
                    Condition("create_date", Operator.GTE, dt.date(2024, 1, 31)),
                ),
            ),
            Condition("n", Operator.LT, -5),
        ),
    )


@pytest.mark.parametrize("op", [o.value for o in Operator if o is not Operator.RANGE])
def test_every_operator_round_trips(op):
    value = '"x"' if op == "like" else "7"
    text = f"f[{op}]{value}"
    assert flt.to_string(flt.parse(text)) == text


def test_range_and_semicolon_and_parentheses():
    node = flt.parse('create_date[range]2024-01-01,2024-12-31;(a[eq]"x" or a[eq]"y")')
    assert node == flt.all_of(
        flt.cond("create_date", "range", Range(dt.date(2024, 1, 1), dt.date(2024, 12, 31))),
        flt.any_of(flt.cond("a", "eq", "x"), flt.cond("a", "eq", "y")),
    )
    assert flt.to_string(node) == (
        'create_date[range]2024-01-01,2024-12-31 and (a[eq]"x" or a[eq]"y")'
    )


def test_quote_inside_a_string_is_doubled():
    node = flt.cond("external_id", "eq", 'say "hi"')
    text = flt.to_string(node)
    assert text == 'external_id[eq]"say ""hi"""'
    assert flt.parse(text) == node


def test_and_binds_tighter_than_or():
    node = flt.parse("a[eq]1 or b[eq]2 and c[eq]3")
    assert isinstance(node, Group) and node.op == "or"
    assert node.items[1] == flt.all_of(flt.cond("b", "eq", 2), flt.cond("c", "eq", 3))


@pytest.mark.parametrize(
    ("text", "position", "reason"),
    [
        ('email[like]"%.com', 12, "unterminated string"),
        ("email[is]1", 6, "unknown operator [is]"),
        ("email[eq]", 10, "expected a value"),
        ("a[eq]1 b[eq]2", 8, "join conditions with and/or"),
        ("(a[eq]1", 8, "expected ')'"),
        ("a[eq]2024-02-30", 6, "invalid date 2024-02-30"),
        ("a[eq]1,000", 7, "join conditions"),
        ("", 1, "empty filter"),
        ("a[like]5", 8, "the like operator needs a quoted string"),
        ('a[range]1,"b"', 11, "same type"),
    ],
)
def test_bad_input_names_the_position(text, position, reason):
    with pytest.raises(FilterError) as caught:
        flt.parse(text)
    assert reason in str(caught.value)
    assert caught.value.position == position - 1
    assert f"at position {position}" in str(caught.value)


def test_check_fields_refuses_unknown_field_and_wrong_type():
    allowed = {"email": str, "create_date": dt.date}
    with pytest.raises(FilterError, match="'phone' cannot be filtered here"):
        flt.check_fields(flt.parse('phone[eq]"1"'), allowed)
    with pytest.raises(FilterError, match="takes a date"):
        flt.check_fields(flt.parse('create_date[eq]"yesterday"'), allowed)


def test_matches_like_comparison_and_null():
    record = {"email": "Ann@Example.com", "create_date": dt.date(2024, 5, 1), "external_id": None}
    assert flt.matches(flt.parse('email[like]"%example.COM"'), record)
    assert not flt.matches(flt.parse('email[like]"a_n@%.org"'), record)
    assert flt.matches(flt.parse("create_date[range]2024-05-01,2024-05-31"), record)
    assert not flt.matches(flt.parse("create_date[gt]2024-05-01"), record)
    assert flt.matches(flt.parse('external_id[ne]"x"'), record)
    assert not flt.matches(flt.parse('external_id[eq]"x"'), record)


def test_builder_refuses_what_the_parser_would():
    with pytest.raises(FilterError):
        flt.cond("and", "eq", 1)
    with pytest.raises(FilterError):
        flt.cond("a", "like", 5)
    with pytest.raises(FilterError):
        flt.cond("a", "eq", 1.5)  # type: ignore[arg-type]


# ---------------------------------------------------------------- properties

fields = st.from_regex(r"[a-z_][a-z0-9_]{0,10}", fullmatch=True).filter(
    lambda f: f not in ("and", "or")
)
scalars = st.one_of(
    st.text(max_size=12),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.dates(min_value=dt.date(1, 1, 1), max_value=dt.date(9999, 12, 31)),
)


@st.composite
def conditions(draw):
    field = draw(fields)
    op = draw(st.sampled_from(list(Operator)))
    if op is Operator.RANGE:
        kind = draw(st.sampled_from([str, int, dt.date]))
        pick = scalars.filter(lambda v: type(v) is kind)
        return flt.cond(field, op, Range(draw(pick), draw(pick)))
    if op is Operator.LIKE:
        return flt.cond(field, op, draw(st.text(max_size=12)))
    return flt.cond(field, op, draw(scalars))


trees = st.recursive(
    conditions(),
    lambda children: st.one_of(
        st.lists(children, min_size=2, max_size=4).map(lambda items: flt.all_of(*items)),
        st.lists(children, min_size=2, max_size=4).map(lambda items: flt.any_of(*items)),
    ),
    max_leaves=12,
)


@given(trees)
@settings(max_examples=150)
@pytest.mark.slow
def test_build_print_parse_round_trips(tree):
    assert flt.parse(flt.to_string(tree)) == tree


@given(st.text(alphabet=st.characters(), max_size=60))
@settings(max_examples=500)
def test_arbitrary_text_raises_only_filter_error(text):
    with contextlib.suppress(FilterError):
        flt.parse(text)


@given(st.text(alphabet='abc[]()"; ,-0123456789eqltgandor', max_size=40))
@settings(max_examples=500)
def test_filter_shaped_text_raises_only_filter_error(text):
    try:
        node = flt.parse(text)
    except FilterError:
        return
    assert flt.parse(flt.to_string(node)) == node


# ---------------------------------------------------------------- bounded work


def _like_reference(pattern: str, text: str) -> bool:
    regex = "".join(
        ".*" if ch == "%" else "." if ch == "_" else re.escape(ch) for ch in pattern.lower()
    )
    return re.fullmatch(regex, text.lower(), re.DOTALL) is not None


@given(
    st.text(alphabet="ab%_", max_size=8),
    st.text(alphabet="abAB", max_size=10),
)
@settings(max_examples=1000)
def test_like_matches_as_sql_like(pattern, text):
    assert flt.like_matches(pattern, text) == _like_reference(pattern, text)


def test_like_never_backtracks(monkeypatch):
    # the steps counted, not the time: at most len(text) places for each piece between %
    steps = []
    fits = flt._fits
    monkeypatch.setattr(flt, "_fits", lambda *args: steps.append(1) or fits(*args))
    text = "a" * 254
    patterns = ["%" * 12 + "!", "%a" * 100 + "%!", "%" + "a_" * 60 + "!%"]
    for pattern in patterns:
        assert not flt.like_matches(pattern, text)
    assert flt.like_matches("%a_a%", text)
    pieces = sum(pattern.count("%") + 1 for pattern in [*patterns, "%a_a%"])
    assert 0 < len(steps) <= pieces * (len(text) + 1)


def test_deep_nesting_and_long_numbers_are_filter_errors():
    deep = "(" * 320 + "a[eq]1" + ")" * 320
    with pytest.raises(FilterError, match="nest at most 32 deep") as caught:
        flt.parse(deep)
    assert caught.value.position == 32
    assert flt.parse("(" * 32 + "a[eq]1" + ")" * 32) == Condition("a", Operator.EQ, 1)
    with pytest.raises(FilterError, match="at most 18 digits"):
        flt.parse("a[eq]" + "9" * 5000)
    assert flt.parse("a[eq]-" + "9" * 18).value == -(10**18 - 1)


def test_missing_bracket_is_pointed_at_where_it_belongs():
    with pytest.raises(FilterError, match="missing ']' after the operator") as caught:
        flt.parse('email[eq"x" and b[eq]1')
    assert caught.value.position == len("email[eq")
