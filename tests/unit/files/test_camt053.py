"""A statement written as camt.053.001.08: valid against the official schema whatever the
service's texts hold, each record one entry with its counterparty on the right side."""

from __future__ import annotations

import datetime as dt
import io

from lxml import etree

from app.api.banking.columns import StatementColumns
from app.files.camt053 import Camt053Writer, StatementPart
from app.files.xml_input import schema

NS = {"c": "urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"}
DAY = dt.date(2026, 3, 2)


def record(number: int, **changes):
    values = {
        "id": f"ST{number:06d}",
        "booking_date": DAY,
        "type": "sepa",
        "direction": "debit",
        "amount": 1050,
        "currency": "EUR",
        "description": f"Invoice {number}",
        "counterparty_name": "Hans Muster",
        "counterparty_account": "DE89370400440532013000",
        "reference": f"TX{number:07d}",
        "balance_after": 100_000 - 1050 * number,
    }
    values.update(changes)
    return values


def written(records, *, currency="EUR", opening=100_000, closing=96_850) -> etree._ElementTree:
    columns = StatementColumns()
    columns.add_records(records)
    handle = io.BytesIO()
    writer = Camt053Writer(handle, "MSG-1", dt.datetime(2026, 3, 3, 9, 0, tzinfo=dt.UTC))
    writer.begin()
    writer.statement(
        StatementPart(
            "ST-1", "LT594010000000000001", "AGBLLT2XXXX", currency, DAY, DAY, opening, closing
        )
    )
    assert writer.entries(columns, range(len(columns))) == len(records)
    writer.end_statement()
    writer.finish()
    tree = etree.parse(io.BytesIO(handle.getvalue()))
    checker = schema("camt.053.001.08")
    assert checker.validate(tree), checker.error_log
    return tree


def texts(tree, path: str) -> list[str]:
    return [str(each) for each in tree.xpath(path, namespaces=NS)]


def test_each_record_is_an_entry_and_the_balances_open_and_close_the_statement():
    tree = written([record(1), record(2), record(3, direction="credit", amount=100)])
    assert texts(tree, "//c:Bal/c:Tp/c:CdOrPrtry/c:Cd/text()") == ["OPBD", "CLBD"]
    assert texts(tree, "//c:Bal/c:Amt/text()") == ["1000.00", "968.50"]
    assert texts(tree, "//c:Bal/c:Dt/c:Dt/text()") == ["2026-03-01", "2026-03-02"]
    assert texts(tree, "//c:Ntry/c:Amt/text()") == ["10.50", "10.50", "1.00"]
    assert texts(tree, "//c:Ntry/c:CdtDbtInd/text()") == ["DBIT", "DBIT", "CRDT"]
    assert texts(tree, "//c:Ntry/c:BookgDt/c:Dt/text()") == ["2026-03-02"] * 3
    assert texts(tree, "//c:Ntry/c:AcctSvcrRef/text()") == ["TX0000001", "TX0000002", "TX0000003"]
    assert texts(tree, "//c:Ntry/c:NtryRef/text()") == ["ST000001", "ST000002", "ST000003"]
    assert texts(tree, "//c:RmtInf/c:Ustrd/text()") == ["Invoice 1", "Invoice 2", "Invoice 3"]
    # money out: the counterparty is the creditor; money in: the debtor
    assert texts(tree, "//c:Ntry[1]//c:RltdPties/c:Cdtr/c:Pty/c:Nm/text()") == ["Hans Muster"]
    assert texts(tree, "//c:Ntry[3]//c:RltdPties/c:DbtrAcct/c:Id/c:IBAN/text()") == [
        "DE89370400440532013000"
    ]


def test_hostile_and_long_texts_still_make_a_valid_file_with_the_whole_id_kept():
    long_id = "ST-" + "9" * 60
    tree = written(
        [
            record(
                1,
                id=long_id,
                description="bell \x07 and a lone \ud800 half <tag> & more " + "x" * 200,
                counterparty_name="N" * 200,
                counterparty_account="not an IBAN / 12345",
                reference=None,
            )
        ]
    )
    (description,) = texts(tree, "//c:RmtInf/c:Ustrd/text()")
    assert (
        description.startswith("bell ? and a lone ? half <tag> & more ") and len(description) == 140
    )
    assert texts(tree, "//c:NtryRef/text()") == [long_id[:35]]
    assert texts(tree, "//c:AddtlNtryInf/text()") == [f"id {long_id}; reference None"]
    assert texts(tree, "//c:CdtrAcct/c:Id/c:Othr/c:Id/text()") == ["not an IBAN / 12345"]
    assert texts(tree, "//c:Ntry/c:AcctSvcrRef/text()") == []


def test_a_currency_without_decimals_and_a_negative_balance():
    tree = written(
        [record(1, currency="JPY", amount=1500)], currency="JPY", opening=-500, closing=-2000
    )
    assert texts(tree, "//c:Ntry/c:Amt/text()") == ["1500"]
    assert texts(tree, "//c:Bal/c:Amt/text()") == ["500", "2000"]
    assert texts(tree, "//c:Bal/c:CdtDbtInd/text()") == ["DBIT", "DBIT"]


def test_the_largest_amount_the_schema_takes_is_written_and_a_longer_one_refused():
    import pytest

    from app.api.errors import InvalidInput

    largest = 10**18 - 1  # 18 digits: 9999999999999999.99 EUR
    tree = written([record(1, amount=largest)], closing=100_000 - largest)
    assert texts(tree, "//c:Ntry/c:Amt/text()") == ["9999999999999999.99"]
    for too_long in ({"amount": 10**18}, {"amount": 2**63 - 1}):
        with pytest.raises(InvalidInput) as refused:
            written([record(1, **too_long)])
        assert str(refused.value).startswith("camt.053: the amount ")
        assert str(refused.value).endswith(
            "EUR has more than the 18 digits a camt.053 amount may have: no file was written"
        )
    with pytest.raises(InvalidInput, match="the amount 10000000000000000.00 EUR has more"):
        written([record(1)], opening=-(10**18))
