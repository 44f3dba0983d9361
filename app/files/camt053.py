"""A statement written as camt.053.001.08 (bank-to-customer statement), as it goes: the group
header, then per currency one statement — the account, the period, the opening and closing
booked balances, one entry per record (amount, credit or debit, booking date, the
counterparty, the description, the transfer's reference) — written a chunk of records at a
time from the statement's columns, so a million records take the memory of a chunk.

Every text comes from the service: what XML cannot hold is replaced, and a value longer than
the schema's field is cut there (the record's whole id and reference then go in the entry's
additional information, which holds 500)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING
from xml.sax.saxutils import escape, quoteattr

from app.api.errors import InvalidInput
from app.core.money import decimal_text, exponent

if TYPE_CHECKING:
    from app.api.banking.columns import StatementColumns

VERSION = "camt.053.001.08"
NAMESPACE = f"urn:iso:std:iso:20022:tech:xsd:{VERSION}"
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_IBAN = re.compile(r"[A-Z]{2}[0-9]{2}[a-zA-Z0-9]{1,30}")
_BIC = re.compile(r"[A-Z0-9]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?")
TEXT_35, TEXT_140, TEXT_500 = 35, 140, 500
_AMOUNT_DIGITS = 18  # ActiveOrHistoricCurrencyAndAmount: totalDigits


def xml_text(text: str, most: int) -> str:
    """The text as XML can hold it, cut to ``most`` characters, escaped."""
    cleaned = _NOT_XML.sub("?", text)[:most]
    return escape(cleaned)


@dataclass(frozen=True)
class StatementPart:
    """One currency's statement of the account over the period."""

    statement_id: str
    iban: str
    bic: str
    currency: str
    date_from: dt.date
    date_to: dt.date
    opening: int  # booked balance at the end of the day before the period, minor units
    closing: int  # at the end of the period's last day


class Camt053Writer:
    """Write to a binary handle: `begin`, then per currency `statement` … `entries` …
    `end_statement`, then `finish`."""

    def __init__(self, handle: IO[bytes], message_id: str, created: dt.datetime) -> None:
        self._handle = handle
        self._message_id = message_id
        self._created = created.replace(microsecond=0, tzinfo=None).isoformat()
        self._places = 2
        self._currency = "EUR"
        self.entries_written = 0

    def _write(self, text: str) -> None:
        self._handle.write(text.encode("utf-8"))

    def begin(self) -> None:
        self._write(
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<Document xmlns="{NAMESPACE}"><BkToCstmrStmt>'
            f"<GrpHdr><MsgId>{xml_text(self._message_id, TEXT_35)}</MsgId>"
            f"<CreDtTm>{self._created}</CreDtTm></GrpHdr>\n"
        )

    def statement(self, part: StatementPart) -> None:
        self._currency = part.currency
        self._places = exponent(part.currency)
        servicer = (
            f"<Svcr><FinInstnId><BICFI>{part.bic}</BICFI></FinInstnId></Svcr>"
            if _BIC.fullmatch(part.bic)
            else ""
        )
        self._write(
            f"<Stmt><Id>{xml_text(part.statement_id, TEXT_35)}</Id>"
            f"<CreDtTm>{self._created}</CreDtTm>"
            f"<FrToDt><FrDtTm>{part.date_from.isoformat()}T00:00:00</FrDtTm>"
            f"<ToDtTm>{part.date_to.isoformat()}T23:59:59</ToDtTm></FrToDt>"
            f"<Acct>{_account(part.iban)}<Ccy>{part.currency}</Ccy>{servicer}</Acct>"
            + self._balance("OPBD", part.opening, _day_before(part.date_from))
            + self._balance("CLBD", part.closing, part.date_to)
            + "\n"
        )

    def _balance(self, kind: str, amount: int, day: dt.date) -> str:
        return (
            f"<Bal><Tp><CdOrPrtry><Cd>{kind}</Cd></CdOrPrtry></Tp>"
            f"<Amt Ccy={quoteattr(self._currency)}>{self._amount(abs(amount))}</Amt>"
            f"<CdtDbtInd>{'DBIT' if amount < 0 else 'CRDT'}</CdtDbtInd>"
            f"<Dt><Dt>{day.isoformat()}</Dt></Dt></Bal>"
        )

    def _amount(self, minor: int) -> str:
        """An amount as the schema takes it: at most 18 digits (the contract's 64-bit minor
        units take 19); a longer one is refused, not written into a file the schema fails."""
        text = decimal_text(minor, self._places)
        if len(text) - ("." in text) > _AMOUNT_DIGITS:
            raise InvalidInput(
                "camt.053",
                f"the amount {text} {self._currency} has more than the {_AMOUNT_DIGITS} digits "
                "a camt.053 amount may have: no file was written",
            )
        return text

    def entries(self, columns: StatementColumns, rows: Iterable[int]) -> int:
        """One entry per row (in the order given); the number written."""
        written = 0
        currency = quoteattr(self._currency)
        parts: list[str] = []
        for row in rows:
            record_id = columns.ids[row]
            reference = columns.references.value(row)
            day = dt.date.fromordinal(columns.days[row]).isoformat()
            credit = bool(columns.credits[row])
            name = columns.counterparty_names[row]
            account = columns.counterparty_accounts[row]
            description = columns.descriptions[row]
            cut = len(record_id) > TEXT_35 or len(reference or "") > TEXT_35
            kind = xml_text(columns.types[row] or "statement", TEXT_35)
            servicer_ref = (
                f"<AcctSvcrRef>{xml_text(reference, TEXT_35)}</AcctSvcrRef>" if reference else ""
            )
            party = ""
            if name or account:
                side = "Dbtr" if credit else "Cdtr"
                party = "<RltdPties>"
                if name:
                    party += f"<{side}><Pty><Nm>{xml_text(name, TEXT_140)}</Nm></Pty></{side}>"
                if account:
                    party += f"<{side}Acct>{_account(account)}</{side}Acct>"
                party += "</RltdPties>"
            remittance = (
                f"<RmtInf><Ustrd>{xml_text(description, TEXT_140)}</Ustrd></RmtInf>"
                if description
                else ""
            )
            whole = (
                f"<AddtlNtryInf>{xml_text(f'id {record_id}; reference {reference}', TEXT_500)}"
                "</AddtlNtryInf>"
                if cut
                else ""
            )
            parts.append(
                f"<Ntry><NtryRef>{xml_text(record_id, TEXT_35)}</NtryRef>"
                f"<Amt Ccy={currency}>{self._amount(columns.amounts[row])}</Amt>"
                f"<CdtDbtInd>{'CRDT' if credit else 'DBIT'}</CdtDbtInd>"
                f"<Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>{day}</Dt></BookgDt>"
                f"<ValDt><Dt>{day}</Dt></ValDt>"
                f"{servicer_ref}<BkTxCd><Prtry><Cd>{kind}</Cd></Prtry></BkTxCd>"
                f"<NtryDtls><TxDtls>{party}{remittance}</TxDtls></NtryDtls>{whole}</Ntry>\n"
            )
            written += 1
        self._write("".join(parts))
        self.entries_written += written
        return written

    def end_statement(self) -> None:
        self._write("</Stmt>\n")

    def finish(self) -> None:
        self._write("</BkToCstmrStmt></Document>\n")


def _day_before(day: dt.date) -> dt.date:
    return day - dt.timedelta(days=1) if day > dt.date.min else day


def _account(identifier: str) -> str:
    """An account's identification: its IBAN, else the identifier as it is (34 at most)."""
    compact = "".join(identifier.split())
    if _IBAN.fullmatch(compact):
        return f"<Id><IBAN>{compact}</IBAN></Id>"
    return f"<Id><Othr><Id>{xml_text(identifier, 34)}</Id></Othr></Id>"
