"""A pain.001 file read: valid ones of both versions from another library, and every way a file
as a whole is refused — with what is wrong, where, and before anything is used."""

from __future__ import annotations

import io
from decimal import Decimal
from pathlib import Path

import pytest

from app.files.pain001 import MAX_FILE_BYTES, read_payment_file
from app.files.xml_input import FileRefused
from tests.pain_files import (
    BILLION_LAUGHS,
    CREDITOR_IBAN,
    EXTERNAL_ENTITY,
    deeply_nested,
    payment,
    payment_file,
    with_amount,
)

DEBTOR = "LT324010000000000002"


def read(data: bytes):
    return read_payment_file(io.BytesIO(data))


def refused(data: bytes) -> str:
    with pytest.raises(FileRefused) as caught:
        read(data)
    return str(caught.value)


@pytest.mark.parametrize("schema", ["pain.001.001.03", "pain.001.001.09"])
def test_both_versions_are_read_into_their_payments(schema):
    data = payment_file(DEBTOR, [payment(n) for n in range(1, 4)], schema=schema)
    read_file = read(data)
    assert read_file.version == schema
    assert read_file.declared_count == 3 and read_file.declared_sum == Decimal("30.06")
    first, second = read_file.payments[:2]
    assert (first.number, first.key, first.end_to_end_id) == (1, "E2E-1", "E2E-1")
    assert first.debtor_iban == DEBTOR and first.creditor_iban == CREDITOR_IBAN
    assert (first.amount, first.currency) == ("10.01", "EUR")
    assert first.creditor_name == "Hans Muster 1"
    assert first.creditor_country == "DE"
    assert first.creditor_address == "Friedrichstr. 10, 10117 Berlin"
    assert first.description == "Invoice 1"
    assert (second.creditor_country, second.creditor_address) == ("", "")  # none in the file
    assert first.line < second.line  # each payment knows its line
    assert data.decode().splitlines()[first.line - 1].strip() == "<CdtTrfTxInf>"


def test_a_repeated_end_to_end_id_keeps_each_payment_apart():
    # "A", "A" and "A#2": three payments, three keys (none can pass for another's)
    rows = [payment(1, endtoend_id="A"), payment(2, endtoend_id="A"), payment(3, endtoend_id="A#2")]
    keys = [each.key for each in read(payment_file(DEBTOR, rows)).payments]
    assert len(set(keys)) == 3 and keys[2] == "A#2"
    identical = [payment(1, endtoend_id="A"), payment(1, endtoend_id="A")]
    first, second = (each.key for each in read(payment_file(DEBTOR, identical)).payments)
    assert first != second and second.startswith(first)  # the same payment twice: numbered


def test_a_payment_added_to_a_corrected_file_moves_no_other_payments_key():
    """NOTPROVIDED (no EndToEndId given) for all: each is known by what it says."""
    rows = [payment(n, endtoend_id="NOTPROVIDED") for n in (1, 2, 3)]
    before = {each.number: each.key for each in read(payment_file(DEBTOR, rows)).payments}
    corrected = [payment(9, endtoend_id="NOTPROVIDED"), *rows]
    after = [each.key for each in read(payment_file(DEBTOR, corrected)).payments]
    assert after[1:] == [before[1], before[2], before[3]]
    assert after[0] not in before.values()


def test_a_not_a_number_amount_is_the_payments_problem_and_never_a_crash():
    import re

    data = payment_file(DEBTOR, [payment(1), payment(2)])
    without_sums = re.sub(rb"<CtrlSum>[^<]*</CtrlSum>", b"", data)
    for written in ("sNaN", "NaN", "Infinity", "1e3"):
        amount = f">{written}</InstdAmt>".encode()
        with pytest.raises(FileRefused, match="control sum 20.03 \\(CtrlSum\\)"):
            read(data.replace(b">10.02</InstdAmt>", amount))  # no sum can hold it: in doubt
        second = read(without_sums.replace(b">10.02</InstdAmt>", amount)).payments[1]
        assert second.amount == written and second.schema_problem.startswith("the amount: ")


def test_elements_beyond_what_a_payment_file_holds_are_refused_before_it_is_built():
    data = payment_file(DEBTOR, [payment(1)]).decode()
    many = data.replace("<Ustrd>Invoice 1</Ustrd>", "<Ustrd/>" * 20_000)
    assert refused(many.encode()).startswith(
        "The payment file has an element of more than 10,100 elements (line "
    )


def test_a_file_not_valid_against_its_schema_is_refused_with_the_line_and_element():
    data = payment_file(DEBTOR, [payment(1)]).replace(
        b"<ChrgBr>SLEV</ChrgBr>", b"<ChrgBr>XX</ChrgBr>"
    )
    message = refused(data)
    line = next(
        number for number, text in enumerate(data.decode().splitlines(), 1) if "<ChrgBr>" in text
    )
    assert message.startswith("The file is not a valid pain.001.001.03 message:\n")
    assert f"- line {line}: ChrgBr: " in message


def test_counts_and_control_sums_that_do_not_match_refuse_the_file():
    data = payment_file(DEBTOR, [payment(1), payment(2)])
    fewer = data.replace(b"<NbOfTxs>2</NbOfTxs>", b"<NbOfTxs>3</NbOfTxs>", 1)
    assert refused(fewer) == (
        "The group header counts 3 transactions (NbOfTxs) but the file holds 2: nothing is "
        "sent from a file in doubt"
    )
    wrong_sum = data.replace(b"<CtrlSum>20.03</CtrlSum>", b"<CtrlSum>20.04</CtrlSum>", 1)
    assert refused(wrong_sum) == (
        "The group header gives the control sum 20.04 (CtrlSum) but the amounts add up to "
        "20.03: nothing is sent from a file in doubt"
    )
    # the payment block's own count, the header's right
    text = data.decode()
    block_at = text.index("<PmtInf>")
    block_wrong = text[:block_at] + text[block_at:].replace("<NbOfTxs>2<", "<NbOfTxs>1<", 1)
    assert refused(block_wrong.encode()).startswith("The payment block ")


def test_a_negative_amount_is_the_payments_problem_not_the_files():
    data = with_amount(payment_file(DEBTOR, [payment(1), payment(2)]), "10.02", "-10.02")
    first, second = read(data).payments
    assert first.schema_problem == ""
    assert second.amount == "-10.02" and "minInclusive" in second.schema_problem


def test_another_message_or_no_iso_message_is_refused():
    camt = b'<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"/>'
    assert refused(camt) == (
        "The file holds a camt.053.001.08 message; a payment file is pain.001.001.03 or "
        "pain.001.001.09"
    )
    assert refused(b"<html/>").startswith("The file holds no ISO 20022 message")


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (BILLION_LAUGHS, "declares a DTD"),
        (EXTERNAL_ENTITY, "declares a DTD"),
        (
            BILLION_LAUGHS.decode().replace('"1.0"', '"1.0" encoding="UTF-32"').encode("utf-32"),
            "declares a DTD",
        ),
        (deeply_nested(), "nested deeper than 256 levels"),
        (b'<?xml version="1.0" encoding="UTF-8"?><Document>\xed\xa0\x80</Document>', "not text"),
        (b"<Document>\xff\xfe</Document>", "not text"),
        (b'<Document a="1" a="2"/>', "not well-formed XML"),
        (b"", "is empty"),
        (b"\x00\x01\x02", "not well-formed XML"),
    ],
)
def test_hostile_files_are_refused_with_a_clear_message(data, said):
    assert said in refused(data)


def test_a_file_larger_than_the_cap_is_refused_having_read_no_more_than_the_cap():
    class Endless(io.RawIOBase):
        """A file of gigabytes (or /dev/zero): counts what is read of it."""

        taken = 0

        def readable(self) -> bool:
            return True

        def readinto(self, buffer) -> int:
            Endless.taken += len(buffer)
            buffer[:] = b" " * len(buffer)
            return len(buffer)

    with pytest.raises(FileRefused, match="larger than 16 MiB"):
        read_payment_file(io.BufferedReader(Endless()))
    assert Endless.taken <= MAX_FILE_BYTES + 1 + io.DEFAULT_BUFFER_SIZE


def test_blank_lines_before_the_declaration_are_a_careless_file_not_a_bad_one():
    data = payment_file(DEBTOR, [payment(1)])
    assert data.startswith(b"<?xml")
    assert len(read(b"\n\n  " + data).payments) == 1


def test_a_file_that_cannot_be_read_says_so(tmp_path):
    with pytest.raises(FileRefused, match=r"^The file cannot be read \(No such file"):
        read_payment_file(tmp_path / "missing.xml")


def test_what_is_no_file_is_refused_before_it_is_opened(tmp_path):
    import os

    pipe = tmp_path / "pipe.xml"
    os.mkfifo(pipe)  # opening it would wait for a writer that never comes
    for path in (pipe, tmp_path, Path("/dev/zero")):
        with pytest.raises(
            FileRefused, match=r"^This is not a file \(a folder, a device or a pipe\)"
        ):
            read_payment_file(path)
