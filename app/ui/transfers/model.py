"""Transfers as the desk shows them: the kinds, their service calls, the list model."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from app.core.money import plain_decimal
from app.forms.transfer import STATUS_TEXT
from app.ui.common.formatting import money_text
from app.ui.common.paged_model import PagedTableModel, PageSource
from app.ui.shell.tasks import TaskGroup

if TYPE_CHECKING:
    from app.api.banking.transfers import Transfer

COLUMNS = (
    "ID",
    "Status",
    "Amount",
    "Currency",
    "Fee",
    "Recipient",
    "Recipient account",
    "Description",
    "Processing date",
)
ID, STATUS, AMOUNT, CURRENCY, FEE, RECIPIENT, RECIPIENT_ACCOUNT, DESCRIPTION, PROCESSED = range(
    len(COLUMNS)
)
WIDTHS = {
    ID: 285,
    STATUS: 95,
    AMOUNT: 110,
    CURRENCY: 65,
    FEE: 75,
    RECIPIENT: 150,
    RECIPIENT_ACCOUNT: 200,
    DESCRIPTION: 150,
    PROCESSED: 150,
}

#: the status's colour, beside its words (never colour alone)
STATUS_COLOUR = {"inprogress": "#8a5a00", "done": "#1b7f3b", "error": "#b3261e"}
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


def currency_of(transfer: Transfer) -> str:
    return str(getattr(transfer, "currency", "EUR"))  # a SEPA transfer is in euro


def counterparty_account(transfer: Transfer) -> str:
    return str(
        getattr(transfer, "recipient_iban", None) or getattr(transfer, "recipient_account", "")
    )


def cells(transfer: Transfer) -> tuple[str, ...]:
    currency = currency_of(transfer)
    fee = transfer.fee
    return (
        transfer.id,
        STATUS_TEXT.get(transfer.status, transfer.status),
        money_text(transfer.amount, currency),
        currency,
        money_text(fee.amount, fee.currency) if fee is not None else "",
        transfer.recipient_name or "",
        counterparty_account(transfer),
        transfer.description or "",
        (transfer.processing_date or "").replace("T", " ").removesuffix("Z"),
    )


def export_cells(transfer: Transfer) -> tuple[str, ...]:
    """A row as a spreadsheet reads it: numbers as plain decimals."""
    currency = currency_of(transfer)
    fee = transfer.fee
    return (
        transfer.id,
        transfer.status,
        plain_decimal(transfer.amount, currency),
        currency,
        plain_decimal(fee.amount, fee.currency) if fee is not None else "",
        transfer.recipient_name or "",
        counterparty_account(transfer),
        transfer.description or "",
        transfer.processing_date or "",
    )


class TransfersModel(PagedTableModel["Transfer"]):
    """One kind's transfers of one account, paged; the query is (filter text, transfer id)."""

    def __init__(self, fetch_page: PageSource[Transfer], tasks: TaskGroup, parent: Any = None):
        super().__init__(COLUMNS, fetch_page, cells, tasks, parent)

    def export_rows(self) -> Iterator[tuple[str, ...]]:
        return (export_cells(transfer) for transfer in list(self.items()))

    def decoration(self, item: Transfer, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.ForegroundRole and column == STATUS:
            return QColor(STATUS_COLOUR.get(item.status, "#000000"))
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (AMOUNT, FEE):
            return _RIGHT
        return None
