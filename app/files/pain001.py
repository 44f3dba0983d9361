"""A pain.001 payment file (customer credit transfer initiation, versions 001.001.03 and
001.001.09) read into its payments, after the file as a whole is checked: read within bounds,
valid against its official schema, and its group header's number of transactions and control
sum (and each payment block's) equal to the transactions it holds. Anything wrong with the file
refuses all of it (FileRefused), so that nothing of a file in doubt is sent.

One kind of schema error is a payment's and not the file's: a value of the instructed amount
the schema refuses (negative, too many digits) refuses that payment only, as the checks of
each payment's amount do (app/forms/payment_import.py)."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from app.files.xml_input import (
    Bounds,
    FileRefused,
    element_at,
    message_kind,
    parse,
    read_capped,
    schema_errors,
)

if TYPE_CHECKING:
    from lxml import etree

VERSIONS = ("pain.001.001.03", "pain.001.001.09")
MAX_FILE_BYTES = 16 * 1024 * 1024  # about 20,000 payments
MAX_PAYMENTS = 10_000  # each is asked its fee in the preview
# a payment is some 30 elements; a block holds at most the most payments
BOUNDS = Bounds(elements=64 * MAX_PAYMENTS + 1_000, children=MAX_PAYMENTS + 100)
SCHEMA_ERRORS_SHOWN = 5


@dataclass(frozen=True)
class Payment:
    """One credit transfer of the file, its values as written there."""

    number: int  # 1, 2, … in the file's order
    line: int  # of its CdtTrfTxInf
    key: str  # its EndToEndId, or with what it says when the id repeats (`_keys`)
    end_to_end_id: str
    payment_info_id: str  # of its payment block
    debtor_iban: str  # "" when the debtor account is no IBAN
    amount: str  # the instructed amount as written, "1234.50"
    currency: str
    creditor_name: str
    creditor_iban: str  # "" when the creditor account is no IBAN
    creditor_country: str  # of the postal address, "" when none
    creditor_address: str  # its lines (or parts) joined, "" when none
    description: str  # the unstructured remittance information, or the creditor reference
    schema_problem: str = ""  # the schema refused this payment's amount
    digest: str = ""  # of what it says (`content_digest`): a changed payment is told apart


@dataclass(frozen=True)
class PaymentFile:
    version: str
    message_id: str
    created_at: str
    initiating_party: str
    declared_count: int
    declared_sum: Decimal | None
    digest: str  # sha256 of the file's bytes
    payments: list[Payment] = field(default_factory=list)


def read_payment_file(source: Path | IO[bytes]) -> PaymentFile:
    """The file's payments, or FileRefused saying what is wrong with the file."""
    data = read_capped(source, MAX_FILE_BYTES, "payment file")
    tree = parse(data, "payment file", BOUNDS)
    version = message_kind(tree)
    if version not in VERSIONS:
        found = f"a {version} message" if version else "no ISO 20022 message"
        raise FileRefused(
            f"The file holds {found}; a payment file is pain.001.001.03 or pain.001.001.09"
        )
    ns = {"p": f"urn:iso:std:iso:20022:tech:xsd:{version}"}
    transactions = tree.getroot().findall(".//p:CdtTrfTxInf", ns)
    if len(transactions) > MAX_PAYMENTS:
        raise FileRefused(
            f"The file holds {len(transactions):,} payments; at most {MAX_PAYMENTS:,} are "
            "imported at once: split it"
        )
    index_of = {id(each): index for index, each in enumerate(transactions)}
    amount_problems: dict[int, str] = {}
    file_problems = []
    for error in schema_errors(tree, version):
        element = element_at(tree, error.path) if error.element == "InstdAmt" else None
        owner = None
        if element is not None:
            owner = next(element.iterancestors(f"{{{ns['p']}}}CdtTrfTxInf"), None)
        if owner is not None and id(owner) in index_of:
            amount_problems.setdefault(index_of[id(owner)], f"the amount: {error.message}")
        else:
            file_problems.append(error)
    if file_problems:
        shown = "\n".join(f"- {each}" for each in file_problems[:SCHEMA_ERRORS_SHOWN])
        more = len(file_problems) - SCHEMA_ERRORS_SHOWN
        tail = f"\n… and {more} more" if more > 0 else ""
        raise FileRefused(f"The file is not a valid {version} message:\n{shown}{tail}")
    root = tree.getroot()
    header = _child(root, "CstmrCdtTrfInitn", "GrpHdr")
    blocks = _payments(root, ns, amount_problems)
    payments = [payment for _block, block_payments in blocks for payment in block_payments]
    declared_count = int(_text(header, "NbOfTxs"))
    declared_sum = _decimal_or_none(_text(header, "CtrlSum"))
    _check_totals("The group header", declared_count, declared_sum, payments)
    for block, block_payments in blocks:
        count_text, sum_text = _text(block, "NbOfTxs"), _text(block, "CtrlSum")
        where = f"The payment block {_text(block, 'PmtInfId')!r} (line {block.sourceline})"
        _check_totals(
            where,
            int(count_text) if count_text else None,
            _decimal_or_none(sum_text),
            block_payments,
        )
    return PaymentFile(
        version=version,
        message_id=_text(header, "MsgId"),
        created_at=_text(header, "CreDtTm"),
        initiating_party=_text(_child(header, "InitgPty"), "Nm"),
        declared_count=declared_count,
        declared_sum=declared_sum,
        digest=hashlib.sha256(data).hexdigest(),
        payments=payments,
    )


def _local(element: etree._Element) -> str:
    return str(element.tag).rpartition("}")[2]


def _child(element: etree._Element | None, *names: str) -> etree._Element | None:
    """The first child along ``names`` (local names), or None."""
    for name in names:
        if element is None:
            return None
        element = next((each for each in element if _local(each) == name), None)
    return element


def _children(element: etree._Element | None, name: str) -> list[etree._Element]:
    return [] if element is None else [each for each in element if _local(each) == name]


def _text(element: etree._Element | None, *names: str) -> str:
    found = _child(element, *names) if names else element
    return (found.text or "").strip() if found is not None else ""


def _decimal_or_none(text: str) -> Decimal | None:
    """The decimal a text writes; None for none, and for NaN or an infinity (which the
    schema refuses, and no sum can hold)."""
    if not text:
        return None
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def _check_totals(
    where: str, count: int | None, total: Decimal | None, payments: list[Payment]
) -> None:
    if count is not None and count != len(payments):
        raise FileRefused(
            f"{where} counts {count} transactions (NbOfTxs) but the file holds "
            f"{len(payments)}: nothing is sent from a file in doubt"
        )
    if total is None:
        return
    amounts = [_decimal_or_none(payment.amount) for payment in payments]
    actual = sum((each for each in amounts if each is not None), Decimal(0))
    if total != actual:
        raise FileRefused(
            f"{where} gives the control sum {total} (CtrlSum) but the amounts add up to "
            f"{actual}: nothing is sent from a file in doubt"
        )


def _payments(
    root: etree._Element, ns: dict[str, str], amount_problems: dict[int, str]
) -> list[tuple[etree._Element, list[Payment]]]:
    """Each payment block with its payments, in the file's order."""
    blocks: list[tuple[etree._Element, list[dict[str, Any]]]] = []
    index = 0
    for block in root.iterfind(".//p:PmtInf", ns):
        debtor_iban = _text(block, "DbtrAcct", "Id", "IBAN")
        block_id = _text(block, "PmtInfId")
        values: list[dict[str, Any]] = []
        blocks.append((block, values))
        for transaction in block.iterfind("p:CdtTrfTxInf", ns):
            amount = _child(transaction, "Amt", "InstdAmt")
            creditor = _child(transaction, "Cdtr")
            address = _child(creditor, "PstlAdr")
            values.append(
                {
                    "number": index + 1,
                    "line": transaction.sourceline or 0,
                    "end_to_end_id": _text(transaction, "PmtId", "EndToEndId"),
                    "payment_info_id": block_id,
                    "debtor_iban": debtor_iban,
                    "amount": _text(amount) if amount is not None else "",
                    "currency": amount.get("Ccy", "") if amount is not None else "",
                    "creditor_name": _text(creditor, "Nm"),
                    "creditor_iban": _text(transaction, "CdtrAcct", "Id", "IBAN"),
                    "creditor_country": _text(address, "Ctry"),
                    "creditor_address": _address(address),
                    "description": _remittance(_child(transaction, "RmtInf")),
                    "schema_problem": amount_problems.get(index, ""),
                }
            )
            index += 1
    every = [each for _block, values in blocks for each in values]
    keys = _keys(every)
    return [
        (
            block,
            [
                Payment(key=keys[each["number"] - 1], digest=content_digest(each), **each)
                for each in values
            ],
        )
        for block, values in blocks
    ]


CONTENT = (
    "debtor_iban",
    "amount",
    "currency",
    "creditor_name",
    "creditor_iban",
    "creditor_country",
    "creditor_address",
    "description",
)
NOT_PROVIDED = "NOTPROVIDED"  # what SEPA files say for an EndToEndId the customer gave none


def content_digest(values: dict[str, Any]) -> str:
    """What a payment says (debtor, amount, creditor, remittance), as a short digest."""
    joined = "\x00".join(str(values[name]) for name in CONTENT)
    return hashlib.sha256(joined.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _keys(payments: list[dict[str, Any]]) -> list[str]:
    """Each payment's key in the file: its EndToEndId when that names it alone; else (an id
    repeated, or NOTPROVIDED) the id with what the payment says, so that a payment added to
    a corrected file moves no other payment's key; identical payments numbered in order. The
    parts are joined by a character XML cannot hold, so no id can look like another's key."""
    counts = Counter(each["end_to_end_id"] for each in payments)
    seen: Counter[str] = Counter()
    keys = []
    for each in payments:
        end_to_end = each["end_to_end_id"]
        if counts[end_to_end] == 1 and end_to_end.upper() != NOT_PROVIDED:
            keys.append(end_to_end)
            continue
        base = f"{end_to_end}\x00{content_digest(each)}"
        seen[base] += 1
        keys.append(base if seen[base] == 1 else f"{base}\x00{seen[base]}")
    return keys


STRUCTURED = (("StrtNm", "BldgNb"), ("PstCd", "TwnNm"))


def _address(address: etree._Element | None) -> str:
    """The address lines joined, or its structured parts ("Street 1, 10117 Berlin")."""
    lines = [_text(each) for each in _children(address, "AdrLine") if _text(each)]
    if not lines:
        for group in STRUCTURED:
            words = [_text(address, name) for name in group]
            if any(words):
                lines.append(" ".join(word for word in words if word))
    return ", ".join(lines)


def _remittance(information: etree._Element | None) -> str:
    unstructured = [_text(each) for each in _children(information, "Ustrd") if _text(each)]
    if unstructured:
        return " ".join(unstructured)
    for structured in _children(information, "Strd"):
        reference = _text(structured, "CdtrRefInf", "Ref")
        if reference:
            return reference
    return ""
