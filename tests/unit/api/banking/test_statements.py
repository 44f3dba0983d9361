import json
import tracemalloc

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.api.banking.statements import JsonArraySplitter, JsonStreamError, join, last_item_end

objects = st.dictionaries(
    st.text(max_size=5),
    st.none() | st.booleans() | st.integers() | st.text(alphabet='ab},{ "\\\n', max_size=8),
    max_size=4,
)


def split(raw: bytes, chunk_size: int, piece_size: int) -> list[bytes]:
    splitter = JsonArraySplitter(piece_size=piece_size)
    pieces = []
    for start in range(0, len(raw), chunk_size):
        pieces.extend(splitter.feed(raw[start : start + chunk_size]))
    pieces.extend(splitter.finish())
    return pieces


def parse_all(pieces: list[bytes]) -> list[object]:
    """As the client does: a piece that does not parse is joined to the next one."""
    items, carry = [], None
    for piece in pieces:
        assert piece[:1] == b"[" and piece[-1:] == b"]"  # each piece is an array
        text = piece[1:-1] if carry is None else join(carry, piece[1:-1])
        try:
            items.extend(json.loads(b"[" + text + b"]"))
            carry = None
        except ValueError:
            carry = text
    assert carry is None
    return items


@given(
    st.lists(objects, max_size=30),
    st.integers(min_value=1, max_value=50),
    st.integers(min_value=1, max_value=200),
    st.sampled_from([None, 1]),
)
def test_any_chunking_gives_back_the_items(items, chunk_size, piece_size, indent):
    raw = json.dumps(items, ensure_ascii=False, indent=indent).encode()
    assert parse_all(split(raw, chunk_size, piece_size)) == items


class BufferOnlySplitter(JsonArraySplitter):
    """Every chunk added to the buffer first, and cut there."""

    def _cut_in(self, chunk: bytes) -> bytes | None:
        return None


@given(
    st.lists(objects, max_size=30),
    st.integers(min_value=1, max_value=50),
    st.integers(min_value=1, max_value=200),
    st.sampled_from([None, 1, 40]),
)
def test_a_cut_found_in_the_chunk_is_the_cut_the_buffer_gives(
    items, chunk_size, piece_size, indent
):
    raw = json.dumps(items, ensure_ascii=False, indent=indent).encode()
    ours, buffer_only = JsonArraySplitter(piece_size), BufferOnlySplitter(piece_size)
    for start in range(0, len(raw), chunk_size):
        chunk = raw[start : start + chunk_size]
        assert ours.feed(chunk) == buffer_only.feed(chunk)
    assert ours.finish() == buffer_only.finish()


def test_pieces_end_where_objects_end():
    raw = b'[{"a": 1}, {"b": "x},y"}, {"c": 3}]'
    pieces = split(raw, 4, 1)
    assert b"".join(pieces) != raw  # commas between pieces are dropped
    assert parse_all(pieces) == [{"a": 1}, {"b": "x},y"}, {"c": 3}]


@pytest.mark.parametrize("spaces", [[63], [64], [65], [5000], [0, 0, 100]])
def test_whitespace_of_any_length_before_a_comma_still_ends_a_piece(spaces):
    items = [{"n": n, "text": "x" * 100} for n in range(200)]
    texts = [json.dumps(item).encode() for item in items]
    commas = [b" " * spaces[n % len(spaces)] + b"," for n in range(len(items) - 1)]
    between = b"".join(text + comma for text, comma in zip(texts[:-1], commas, strict=True))
    raw = b"[" + between + texts[-1] + b"]"
    cut = []
    for kind in (JsonArraySplitter, BufferOnlySplitter):
        splitter = kind(piece_size=1024, record_bytes=8192)
        pieces = [
            piece
            for start in range(0, len(raw), 700)
            for piece in splitter.feed(raw[start : start + 700])
        ]
        pieces.extend(splitter.finish())
        cut.append(pieces)
    pieces, buffer_only = cut
    assert len(pieces) > 10  # cut as it arrived, not refused as one endless record
    assert parse_all(pieces) == items
    assert pieces == buffer_only  # a comma the chunk cannot tell alone is the buffer's to tell


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b'{"a": 1}', "expected a JSON array"),
        (b'[{"a": 1}', "the array ended early"),
        (b"", "found nothing"),
    ],
)
def test_bad_streams_are_refused(raw, message):
    splitter = JsonArraySplitter()

    def read_all() -> None:
        splitter.feed(raw)
        splitter.finish()

    with pytest.raises(JsonStreamError, match=message):
        read_all()


def test_endless_whitespace_before_the_array_is_refused_once_past_a_record_length():
    splitter = JsonArraySplitter(record_bytes=4096)
    for _ in range(4):
        assert splitter.feed(b" \n" * 512) == []  # 4,096 bytes: as long as a record may be
    with pytest.raises(JsonStreamError, match="found 4,097 bytes of whitespace"):
        splitter.feed(b" ")
    splitter = JsonArraySplitter(record_bytes=4096)
    splitter.feed(b" " * 4096)
    assert split_after(splitter, b'[{"a": 1}]') == [{"a": 1}]


def split_after(splitter: JsonArraySplitter, raw: bytes) -> list[object]:
    return parse_all([*splitter.feed(raw), *splitter.finish()])


def test_empty_array_gives_no_piece():
    assert split(b" [ ] ", 1, 1) == []


def test_the_exact_scan_of_a_long_string_takes_no_memory_per_byte():
    text = b'{"description":"' + b"a}, " * 500_000 + b'"},{"a":1},{"b":'
    tracemalloc.start()
    end = last_item_end(text)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert end == len(text) - 6  # the comma before {"b":
    assert peak < 4 * 1024 * 1024  # the text is 2 MB; a stack entry a byte was 120 bytes a byte
