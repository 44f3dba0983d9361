"""Sizing helpers the areas share, so nothing a user needs to read is cut off."""

from __future__ import annotations

from PySide6.QtWidgets import QLineEdit, QTableView

_FRAME = 24  # the edit's frame, margins and clear button


def fit_placeholder(edit: QLineEdit) -> None:
    """Wide enough to show the whole placeholder."""
    width = edit.fontMetrics().horizontalAdvance(edit.placeholderText()) + _FRAME
    edit.setMinimumWidth(max(edit.minimumWidth(), width))


def show_rows(table: QTableView, rows: int) -> None:
    """Tall enough to show this many rows and the header without scrolling."""
    header = table.horizontalHeader().sizeHint().height()
    height = header + rows * table.verticalHeader().defaultSectionSize() + 2 * table.frameWidth()
    table.setMinimumHeight(height + 2)


def row_table(name: str, spoken: str) -> QTableView:
    """A read-only table of rows as every list of the desk shows them: one row chosen at a
    time, alternating colours, no row numbers, fixed row heights (fast with many rows)."""
    from PySide6.QtWidgets import QAbstractItemView, QHeaderView

    table = QTableView()
    table.setObjectName(name)
    table.setAccessibleName(spoken)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setAlternatingRowColors(True)
    table.verticalHeader().setVisible(False)
    table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    table.verticalHeader().setDefaultSectionSize(22)
    return table


def choose_row(table: QTableView, row: int) -> None:
    """That row chosen alone and shown, whatever keys are held: QTableView.selectRow follows
    the keyboard's modifiers (Ctrl toggles, Shift extends), so a row chosen right after a
    Ctrl+K or a Ctrl+1 could be unchosen instead."""
    from PySide6.QtCore import QItemSelectionModel

    index = table.model().index(row, 0)
    flags = QItemSelectionModel.SelectionFlag
    table.selectionModel().setCurrentIndex(index, flags.ClearAndSelect | flags.Rows)
    table.scrollTo(index)
