"""The compatibility matrix against every row of the contract's table (card-gateway.md)."""

import itertools
import re

import pytest

from app.core.gateway.matrix import (
    BY_CODE,
    CODES,
    NAMES,
    ROWS,
    Item,
    allows,
    conflicts,
    derive,
    disagreements,
)

# the contract's table, as written there
CONTRACT_TABLE = """
| OS | FR, PR, RV, RC, RA, OC, PMS, TD, AF, DD, SL, QC, MO, SF, SP, TX, AVS |
| TS | FR, PR, RV, RC, RA, OC, PMS, TD, DD, SL, QC, MO, SF, SP, TX, AVS |
| ZA | PMS, TD, DD, SL, MO, AVS |
| FR, PR, RV | OS, TS, RC, RA, OC, PMS, TD, AF, DD, SL, QC, MO, SF, SP, TX |
| RC | OS, TS, FR, PR, RV, DD, SL, QC, SF, SP, TX |
| RA | all of RC, plus TD and all payout types (A2A, B2P, P2P, OG, SDWO) |
| OC | OS, TS, FR, PR, RV, TD, DD, SL, QC, SF, SP, TX |
| PMS | OS, TS, ZA, FR, PR, RV, TD (only when saved as one-click or automatic), DD, SL, QC, \
MO, SF, SP, TX (not with ZA), AVS |
| TD | OS, TS, ZA, FR, PR, RV, RA, OC, PMS, DD, SL, QC, MO, TX, AVS |
| AF | OS only; also DD, SL, TX, AVS |
| DD | every scenario and capability in this list |
| SL | every scenario and capability in this list |
| QC | OS, TS, FR, PR, RV, RC, RA, OC, PMS, TD, DD, SL, TX, AVS |
| MO | OS, TS, ZA, FR, PR, RV, TD, DD, SL, TX, AVS |
| SF, SP | OS, TS, FR, PR, RV, RC, RA, OC, PMS, DD, SL, TX, AVS |
| TX | OS, TS, FR, PR, RV, RC, RA, OC, PMS, TD, AF, DD, SL, QC, MO, SF, SP, AVS |
| AVS | OS, TS, PMS, TD, AF, DD, SL, QC, MO, SF, SP, TX |
"""


def _contract_rows() -> dict[Item, set[Item]]:
    rows: dict[Item, set[Item]] = {}
    code = re.compile(r"\b(" + "|".join(item.value for item in Item) + r")\b")
    for line in CONTRACT_TABLE.strip().splitlines():
        left, right = (cell.strip() for cell in line.strip("|").split("|"))
        plain = re.sub(r"\([^)]*\)", "", right)  # conditions in parentheses name no items
        if plain.startswith("every scenario"):
            listed = set(Item)
        elif plain.startswith("all of RC"):
            listed = rows[Item.RC] | {Item(c) for c in code.findall(plain) if c != "RC"}
        else:
            listed = {Item(c) for c in code.findall(plain)}
        for name in left.split(","):
            item = Item(name.strip())
            rows[item] = listed - {item}
    return rows


@pytest.mark.parametrize("item", list(Item))
def test_each_row_is_the_contracts(item):
    assert ROWS[item] == _contract_rows()[item]


def test_every_item_has_a_row_a_name_and_a_code():
    assert set(ROWS) == set(NAMES) == set(CODES) == set(Item)
    assert {BY_CODE[code] for code in CODES.values()} == set(Item)


def test_the_pairs_where_the_rows_disagree():
    assert disagreements() == [
        (Item.ZA, Item.AVS),
        (Item.FR, Item.AF),
        (Item.PR, Item.AF),
        (Item.RV, Item.AF),
        (Item.PMS, Item.MO),
    ]


def test_the_rule_for_a_disagreement_is_either_row_allows():
    for lister, silent in disagreements():
        assert allows(lister, silent) and allows(silent, lister)


def test_a_pair_neither_row_lists_is_refused_both_ways():
    for a, b in itertools.combinations(Item, 2):
        expected = b in ROWS[a] or a in ROWS[b]
        assert allows(a, b) == allows(b, a) == expected, (a, b)
    assert not allows(Item.OS, Item.TS)
    assert not allows(Item.RC, Item.MO)
    assert not allows(Item.FR, Item.AVS)


def test_conflicts_name_both_items_and_the_pms_conditions():
    assert conflicts({Item.OS, Item.QC, Item.MO}) == [
        (Item.QC, Item.MO, "QCash and MOTO cannot be combined")
    ]
    assert conflicts({Item.OS, Item.PMS, Item.TD}, saved_as="recurring")[0][:2] == (
        Item.PMS,
        Item.TD,
    )
    assert conflicts({Item.OS, Item.PMS, Item.TD}, saved_as="one-click") == []
    assert conflicts({Item.OS, Item.PMS, Item.TD}, saved_as="automatic") == []
    za_tx = conflicts({Item.ZA, Item.PMS, Item.TX})
    assert (Item.PMS, Item.TX) in [pair[:2] for pair in za_tx]
    assert conflicts({Item.OS, Item.PMS, Item.TX}) == []


BASE = {"client": {}, "currency": "EUR", "products": [{"title": "T", "price": "1"}]}


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({}, {Item.OS}),
        ({"skip_capture": True}, {Item.TS}),
        ({"payment_system": "AUTH", "products": []}, {Item.ZA}),
        ({"products": None}, {Item.ZA}),
        ({"setup_future_use": "recurring"}, {Item.OS, Item.PMS}),
        ({"force_save_method": True}, {Item.OS, Item.PMS}),
        ({"force_save_method": False}, {Item.OS}),
        ({"use_scenario": "recurring"}, {Item.OS, Item.RC}),
        ({"use_scenario": "automatic"}, {Item.OS, Item.RA}),
        ({"use_scenario": "one-click"}, {Item.OS, Item.OC}),
        ({"travel_data": {"lodging": {}}}, {Item.OS, Item.TD}),
        ({"recipient_client": {}}, {Item.OS, Item.AF}),
        ({"dynamic_descriptor": "X"}, {Item.OS, Item.DD}),
        ({"service_location": {}}, {Item.OS, Item.SL}),
        ({"payment_system": "QCASH"}, {Item.OS, Item.QC}),
        ({"is_moto": True}, {Item.OS, Item.MO}),
        ({"payment_system": "SDWO_FUNDING"}, {Item.OS, Item.SF}),
        ({"sdwo_merchant_id": "M"}, {Item.OS, Item.SP}),
        ({"products": [{"title": "T", "price": "1", "tax": {"id": "x"}}]}, {Item.OS, Item.TX}),
        ({"skip_capture": True, "products": None}, {Item.TS, Item.ZA}),
    ],
)
def test_derived_features_of_each_field(changes, expected):
    assert derive({**BASE, **changes}) == expected


def test_derived_avs_and_a_saved_cards_scenario():
    assert derive(BASE, avs=True) == {Item.OS, Item.AVS}
    assert derive(BASE, saved_as="automatic") == {Item.OS, Item.RA}
    assert derive({**BASE, "use_scenario": "one-click"}, saved_as="recurring") == {
        Item.OS,
        Item.OC,
    }
