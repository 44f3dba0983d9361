"""pain.001 files made by an independent library (sepaxml), as a partner's customer would send
them, and hostile ones by hand."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sepaxml import SepaTransfer

CREDITOR_IBAN = "DE89370400440532013000"


def payment(number: int, **changes: Any) -> dict[str, Any]:
    """The number-th payment of a file: 10.00 EUR + number cents to a German creditor."""
    values: dict[str, Any] = {
        "name": f"Hans Muster {number}",
        "IBAN": CREDITOR_IBAN,
        "BIC": "COBADEFFXXX",
        "amount": 1000 + number,
        "execution_date": dt.date.today(),
        "description": f"Invoice {number}",
        "endtoend_id": f"E2E-{number}",
    }
    if number % 2:
        values["address"] = {"country": "DE", "lines": ["Friedrichstr. 10", "10117 Berlin"]}
    values.update(changes)
    return values


def payment_file(
    debtor_iban: str,
    payments: list[dict[str, Any]],
    *,
    schema: str = "pain.001.001.03",
    validate: bool = True,
    message_id: str | None = None,
) -> bytes:
    """The file; ``message_id`` gives it the MsgId of an earlier one (a corrected file)."""
    config = {
        "name": "Baltic Widgets UAB",
        "IBAN": debtor_iban,
        "BIC": "AGBLLT2XXXX",
        "batch": True,
        "currency": "EUR",
    }
    transfer = SepaTransfer(config, clean=True, schema=schema)
    for each in payments:
        transfer.add_payment(dict(each))
    data = bytes(transfer.export(validate=validate, pretty_print=True))
    if message_id is not None:  # the library makes its own: the header's is replaced
        start, end = data.index(b"<MsgId>") + len(b"<MsgId>"), data.index(b"</MsgId>")
        data = data[:start] + message_id.encode() + data[end:]
    return data


def with_amount(data: bytes, old: str, new: str) -> bytes:
    """The file with one amount changed and its control sums kept right (both of them)."""
    text = data.decode()
    total_before = _control_sum(text)
    changed = text.replace(f">{old}</InstdAmt>", f">{new}</InstdAmt>", 1)
    from decimal import Decimal

    total_after = Decimal(total_before) - Decimal(old) + Decimal(new)
    changed = changed.replace(
        f"<CtrlSum>{total_before}</CtrlSum>", f"<CtrlSum>{total_after}</CtrlSum>"
    )
    return changed.encode()


def _control_sum(text: str) -> str:
    return text.split("<CtrlSum>", 1)[1].split("</CtrlSum>", 1)[0]


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE Document [
 <!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">
 <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
 <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
 <!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">
 <!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">
 <!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">
]>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.03">
<CstmrCdtTrfInitn>&f;</CstmrCdtTrfInitn></Document>
"""

EXTERNAL_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE Document [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.03">
<CstmrCdtTrfInitn><GrpHdr><MsgId>&secret;</MsgId></GrpHdr></CstmrCdtTrfInitn></Document>
"""


def deeply_nested(depth: int = 100_000) -> bytes:
    return (
        b'<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.03">'
        + b"<a>" * depth
        + b"</a>" * depth
        + b"</Document>"
    )
