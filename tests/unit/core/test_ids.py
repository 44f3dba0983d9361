import uuid

import pytest

from app.core.gateway.cards import mask_card_numbers
from app.core.ids import unmasked, uuid7


def test_uuid7_carries_the_time_and_sorts_by_it():
    first = uuid7(now_ms=1_700_000_000_000)
    later = uuid7(now_ms=1_700_000_000_001)
    assert first.version == 7 and first.variant == uuid.RFC_4122
    assert first.int >> 80 == 1_700_000_000_000
    assert str(first) < str(later)
    assert uuid7() != uuid7()  # random bits differ
    assert len(str(first)) == 36  # fits a transfer id (at most 64)


def test_a_time_beyond_48_bits_is_refused():
    with pytest.raises(ValueError, match="48 bits"):
        uuid7(now_ms=1 << 48)


def test_monotonic_uuid7_sorts_in_the_order_made_within_a_millisecond():
    from app.core.ids import MonotonicUuid7

    source = MonotonicUuid7()
    made = [source.next(1_700_000_000_000) for _ in range(1000)]
    made.append(source.next(1_699_999_999_999))  # the clock stepped back
    assert made == sorted(made) and len(set(made)) == len(made)
    assert {each.version for each in made} == {7}
    assert {each.variant for each in made} == {made[0].variant}


def test_an_id_the_card_masking_would_hide_is_made_again():
    # 16 digits that pass the Luhn check: at the start of 32 hex digits, or after letters
    hidden = ["5589168499054230b0d2a119881db3be", "COF5589168499054230"]
    assert all(mask_card_numbers(made) != made for made in hidden)
    made = iter([*hidden, "COF0F2C9A7E5B3D4E1F"])
    assert unmasked(lambda: next(made)) == "COF0F2C9A7E5B3D4E1F"
