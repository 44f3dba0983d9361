import datetime as dt

from PySide6.QtCore import QModelRoleData, QModelRoleDataSpan, Qt
from PySide6.QtWidgets import QStyledItemDelegate, QStyleOptionViewItem

from app.api.banking import StatementRecord
from app.ui.common.table_model import RowsModel
from app.ui.statements.model import StatementModel
from app.ui.statements.table_columns import AMOUNT, DESCRIPTION


def painted(model, row: int, column: int) -> QStyleOptionViewItem:
    """What the view's delegate reads of a cell when it paints it: every role in one call
    (ReadOnlyTableModel.multiData)."""
    option = QStyleOptionViewItem()
    QStyledItemDelegate().initStyleOption(option, model.index(row, column))
    return option


def test_the_delegate_paints_what_data_answers(qapp):
    model = StatementModel()
    model.add_records(
        [
            StatementRecord(
                id="ST1",
                booking_date=dt.date(2024, 3, 1),
                type="card",
                direction="debit",
                amount=1250,
                currency="EUR",
                description="Groceries",
                balance_after=100,
            )
        ]
    )
    amount = painted(model, 0, AMOUNT)
    assert amount.text == "-12.50"
    assert amount.displayAlignment == Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
    description = painted(model, 0, DESCRIPTION)
    assert description.text == "Groceries"
    assert not description.displayAlignment & Qt.AlignmentFlag.AlignRight


def test_roles_a_model_does_not_answer_are_cleared(qapp):
    model = RowsModel(("Name",))
    model.set_rows([("Ada",)])
    asked = QModelRoleData(int(Qt.ItemDataRole.ToolTipRole))
    asked.setData("left over")
    model.multiData(model.index(0, 0), QModelRoleDataSpan(asked))
    assert asked.data() is None
    shown = QModelRoleData(int(Qt.ItemDataRole.DisplayRole))
    model.multiData(model.index(0, 0), shown)  # a role alone, not in a span
    assert shown.data() == "Ada"
