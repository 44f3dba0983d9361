import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.api.json_stream import JsonArrayStream, JsonStreamError

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=4), children, max_size=3)
    ),
    max_leaves=10,
)


@given(st.lists(json_values, max_size=20), st.integers(min_value=1, max_value=17))
def test_any_chunking_gives_back_the_items(items, chunk_size):
    raw = json.dumps(items, ensure_ascii=False, indent=1).encode()
    stream = JsonArrayStream()
    seen = []
    for start in range(0, len(raw), chunk_size):
        seen.extend(stream.feed(raw[start : start + chunk_size]))
    seen.extend(stream.finish())
    assert seen == items


def test_numbers_split_across_chunks_are_not_cut():
    stream = JsonArrayStream()
    assert stream.feed(b"[12") == []
    assert stream.feed(b"34, 5") == [1234]
    assert stream.feed(b"]") == [5]
    assert stream.finish() == []


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b'{"a": 1}', "expected a JSON array"),
        (b'[{"a": 1}', "the array ended early, after 1 items"),
        (b'[{"a": 1} {"b": 2}]', "expected ',' or ']' after item 1"),
        (b"[1, oops]", "item 2"),
        (b"[1] 2", "more data after the end of the array"),
        (b"[\xff]", "not UTF-8"),
    ],
)
def test_bad_streams_are_refused(raw, message):
    stream = JsonArrayStream()

    def read_all() -> None:
        stream.feed(raw)
        stream.finish()

    with pytest.raises(JsonStreamError, match=message):
        read_all()
