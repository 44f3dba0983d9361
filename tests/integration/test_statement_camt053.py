"""A statement exported as camt.053 from the sandbox over loopback: valid against the official
schema, one entry per record the API gives, and balances that match the API's."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from lxml import etree

from app.api.errors import ApiError
from app.files.xml_input import schema
from app.forms.statement_export import export_camt053
from app.sandbox.banking.demo import DEMO_PERSON_ID
from tests.conftest import make_client, run

ACCOUNT = "LT594010000000000001"
NS = {"c": "urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"}


def test_the_export_matches_the_apis_records_and_balances(sandbox_url, tmp_path):
    today = dt.date.today()
    date_from, date_to = today - dt.timedelta(days=90), today - dt.timedelta(days=30)
    path = tmp_path / "statement.xml"
    shown: list[int] = []

    async def export_and_ask():
        client = make_client(sandbox_url)
        try:
            count = await export_camt053(
                client,
                DEMO_PERSON_ID,
                ACCOUNT,
                date_from,
                date_to,
                path,
                currency="EUR",
                progress=shown.append,
            )
            records = await client.get_statement(
                DEMO_PERSON_ID, ACCOUNT, date_from, date_to, currency="EUR"
            )
            before = await client.get_balance(
                DEMO_PERSON_ID, ACCOUNT, date=date_from - dt.timedelta(days=1), currency="EUR"
            )
            after = await client.get_balance(DEMO_PERSON_ID, ACCOUNT, date=date_to, currency="EUR")
            return count, records, before[0].balance, after[0].balance
        finally:
            await client.aclose()

    count, records, opening, closing = run(export_and_ask())
    assert count == len(records) > 1000 and shown[-1] == count and shown == sorted(shown)
    tree = etree.parse(str(path))
    assert schema("camt.053.001.08").validate(tree)
    entries = tree.xpath("//c:Ntry", namespaces=NS)
    assert len(entries) == len(records)
    assert [e.findtext("c:NtryRef", namespaces=NS) for e in entries[:3]] == [
        record["id"] for record in records[:3]
    ]
    balances = [Decimal(text) for text in tree.xpath("//c:Bal/c:Amt/text()", namespaces=NS)]
    assert balances == [Decimal(opening) / 100, Decimal(closing) / 100]
    signed = sum(
        Decimal(e.findtext("c:Amt", namespaces=NS))
        * (1 if e.findtext("c:CdtDbtInd", namespaces=NS) == "CRDT" else -1)
        for e in entries
    )
    assert balances[0] + signed == balances[1]  # opening + entries = closing
    assert not list(tmp_path.glob(".*.partial"))


def test_a_failed_export_leaves_no_file_and_an_old_one_as_it_was(sandbox_url, admin, tmp_path):
    path = tmp_path / "statement.xml"
    path.write_text("the old one", encoding="utf-8")
    # the statement itself fails once the file is begun (the account and balances answered)
    admin.post(
        "/_sandbox/faults",
        json={"status": 500, "count": 1, "method": "GET", "path": "*/statement"},
    )

    async def export():
        client = make_client(sandbox_url)
        try:
            await export_camt053(
                client,
                DEMO_PERSON_ID,
                ACCOUNT,
                dt.date(2026, 1, 1),
                dt.date(2026, 1, 31),
                path,
            )
        finally:
            await client.aclose()

    with pytest.raises(ApiError) as refused:
        run(export())
    assert refused.value.status == 500
    assert path.read_text(encoding="utf-8") == "the old one"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["statement.xml"]
