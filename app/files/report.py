"""What became of each payment of an imported file, and the report of it as CSV (every cell a
spreadsheet would run as a formula neutralised: the texts come from the file)."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from app.core.csv_export import neutralise_row
from app.files.whole_file import written_whole

Outcome = Literal["accepted", "refused", "unknown", "not sent"]


@dataclass(frozen=True)
class PaymentOutcome:
    number: int
    line: int
    end_to_end_id: str
    payment_info_id: str
    debtor_iban: str
    creditor_name: str
    creditor_iban: str
    amount: str  # as in the file
    currency: str
    fee: str  # "0.50", "" when not asked
    transfer_id: str
    outcome: Outcome
    status: str  # the transfer's, when accepted
    reason: str  # why refused (or unknown)


CSV_COLUMNS = (
    "payment",
    "line",
    "end_to_end_id",
    "debtor_iban",
    "creditor_name",
    "creditor_iban",
    "amount",
    "currency",
    "fee",
    "transfer_id",
    "outcome",
    "status",
    "reason",
)


def write_csv_report(path: Path, outcomes: list[PaymentOutcome]) -> None:
    with written_whole(path, "w", encoding="utf-8-sig", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(CSV_COLUMNS)
        for each in outcomes:
            writer.writerow(
                neutralise_row(
                    [
                        str(each.number),
                        str(each.line),
                        each.end_to_end_id,
                        each.debtor_iban,
                        each.creditor_name,
                        each.creditor_iban,
                        each.amount,
                        each.currency,
                        each.fee,
                        each.transfer_id,
                        each.outcome,
                        each.status,
                        each.reason,
                    ]
                )
            )
