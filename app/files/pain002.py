"""The status report of an imported payment file, as pain.002.001.03 (customer payment status
report): the original message and, per payment (by its EndToEndId, in its payment block),
accepted (ACCP), rejected (RJCT) with the reason, or pending (PDNG) when it was not sent or
its outcome is unknown. Checked against the official schema before it is written."""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from pathlib import Path

from app.files.report import PaymentOutcome
from app.files.whole_file import written_whole
from app.files.xml_input import schema_errors

VERSION = "pain.002.001.03"
NAMESPACE = f"urn:iso:std:iso:20022:tech:xsd:{VERSION}"
STATUS = {"accepted": "ACCP", "refused": "RJCT", "unknown": "PDNG", "not sent": "PDNG"}
REASON_PART = 105  # Max105Text, each AddtlInf
REASON_PARTS = 3
TEXT_35 = 35


def status_report(
    original_message_id: str,
    original_version: str,
    outcomes: list[PaymentOutcome],
    *,
    sender: str = "Partner Desk",
    now: dt.datetime | None = None,
) -> bytes:
    """The report as bytes, valid against pain.002.001.03 (else ValueError: a fault here)."""
    from lxml import etree

    created = (now or dt.datetime.now(dt.UTC)).replace(microsecond=0, tzinfo=None)
    digest = hashlib.sha256(f"{original_message_id}\n{created.isoformat()}".encode()).hexdigest()

    def sub(parent: etree._Element, name: str, text: str | None = None) -> etree._Element:
        element = etree.SubElement(parent, f"{{{NAMESPACE}}}{name}")
        if text is not None:
            element.text = text
        return element

    root = etree.Element(f"{{{NAMESPACE}}}Document", nsmap={None: NAMESPACE})
    report = sub(root, "CstmrPmtStsRpt")
    header = sub(report, "GrpHdr")
    sub(header, "MsgId", f"STS-{digest[:31]}")
    sub(header, "CreDtTm", created.isoformat())
    sub(sub(header, "InitgPty"), "Nm", sender[:140])
    group = sub(report, "OrgnlGrpInfAndSts")
    sub(group, "OrgnlMsgId", _text35(original_message_id))
    sub(group, "OrgnlMsgNmId", original_version)
    sub(group, "OrgnlNbOfTxs", str(len(outcomes)))
    sub(group, "GrpSts", _group_status(outcomes))
    blocks: dict[str, list[PaymentOutcome]] = {}
    for outcome in outcomes:
        blocks.setdefault(outcome.payment_info_id, []).append(outcome)
    for block_id, block in blocks.items():
        information = sub(report, "OrgnlPmtInfAndSts")
        sub(information, "OrgnlPmtInfId", _text35(block_id or "NOTPROVIDED"))
        for outcome in block:
            transaction = sub(information, "TxInfAndSts")
            sub(transaction, "StsId", _text35(outcome.transfer_id or f"PAYMENT-{outcome.number}"))
            sub(transaction, "OrgnlEndToEndId", _text35(outcome.end_to_end_id or "NOTPROVIDED"))
            sub(transaction, "TxSts", STATUS[outcome.outcome])
            if outcome.reason:
                reason = sub(transaction, "StsRsnInf")
                sub(sub(reason, "Rsn"), "Cd", "NARR")  # narrative: the words follow
                for part in _parts(outcome.reason):
                    sub(reason, "AddtlInf", part)
    tree = root.getroottree()
    problems = schema_errors(tree, VERSION)
    if problems:
        raise ValueError(f"the status report is not valid {VERSION}: {problems[0]}")
    return bytes(etree.tostring(tree, xml_declaration=True, encoding="UTF-8", pretty_print=True))


def write_status_report(path: Path, report: bytes) -> None:
    with written_whole(path, "wb") as handle:
        handle.write(report)


def _group_status(outcomes: list[PaymentOutcome]) -> str:
    states = {STATUS[each.outcome] for each in outcomes}
    if states == {"ACCP"}:
        return "ACCP"
    if states == {"RJCT"}:
        return "RJCT"
    if "ACCP" in states:
        return "PART"
    return "PDNG"


def _text35(text: str) -> str:
    return text[:TEXT_35] if text else "NOTPROVIDED"


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _parts(text: str) -> list[str]:
    """The reason in the parts the schema takes, without what XML cannot hold (the words
    come from the service's answer)."""
    flat = " ".join(_NOT_XML.sub("?", text).split())
    parts = [flat[start : start + REASON_PART] for start in range(0, len(flat), REASON_PART)]
    return parts[:REASON_PARTS]
