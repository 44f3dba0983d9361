"""Names on every control: a stable object name for tests and tools (docs/testing.md lists
them per window), and an accessible name for screen readers, taken from what a sighted person
reads beside or on the control (its caption, its text, its placeholder) when none was given."""

from __future__ import annotations

from typing import TypeVar

from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QMessageBox,
    QWidget,
)

W = TypeVar("W", bound=QWidget)

#: what a person can act on: each of these carries an object name and an accessible name
INTERACTIVE = (
    "QAbstractButton",
    "QLineEdit",
    "QComboBox",
    "QAbstractSpinBox",
    "QAbstractItemView",
    "QTabBar",
    "QTextEdit",
    "QPlainTextEdit",
    "QSlider",
)
# a control's own parts: named by the control that owns them
_COMPOSITES = ("QComboBox", "QAbstractSpinBox", "QAbstractItemView", "QLineEdit", "QTabBar")


def named(widget: W, name: str, accessible: str = "", description: str = "") -> W:
    """The widget with its object name, and its accessible name (its visible text when none
    is given) and description."""
    widget.setObjectName(name)
    if accessible:
        widget.setAccessibleName(accessible)
    if description:
        widget.setAccessibleDescription(description)
    return widget


def interactive_widgets(root: QWidget) -> list[QWidget]:
    """The widgets of ``root`` a person can act on (the parts Qt builds inside a combo box,
    a spin box, a line edit, a tab bar or a table are left out: they are the part of the
    control that owns them)."""
    found = []
    for widget in [root, *root.findChildren(QWidget)]:
        if not any(widget.inherits(kind) for kind in INTERACTIVE):
            continue
        if widget.objectName().startswith("qt_") or _inside_a_composite(widget):
            continue
        found.append(widget)
    return found


def _inside_a_composite(widget: QWidget) -> bool:
    parent = widget.parentWidget()
    while parent is not None:
        if any(parent.inherits(kind) for kind in _COMPOSITES):
            return True
        parent = parent.parentWidget()
    return False


def give_accessible_names(root: QWidget) -> None:
    """Every control of ``root`` without an accessible name gets the words a person reads for
    it: its caption (a label whose buddy it is, or the form's caption beside it), its text,
    its placeholder."""
    captions = {
        id(label.buddy()): label.text()
        for label in root.findChildren(QLabel)
        if label.buddy() is not None
    }
    for widget in interactive_widgets(root):
        if widget.accessibleName():
            continue
        words = captions.get(id(widget), "") or _own_words(widget)
        if words:
            widget.setAccessibleName(_plain(words))


def _own_words(widget: QWidget) -> str:
    if isinstance(widget, QAbstractButton):
        return widget.text() or widget.toolTip()
    if isinstance(widget, QLineEdit):
        return widget.placeholderText() or widget.toolTip()
    if isinstance(widget, QComboBox):
        edit = widget.lineEdit()
        return (edit.placeholderText() if edit is not None else "") or widget.toolTip()
    return widget.toolTip()


def _plain(text: str) -> str:
    """A caption as it is heard: no mnemonic ampersand, no colon, no ellipsis."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").rstrip(":…. ").strip()


def name_buttons(box: QDialogButtonBox, prefix: str) -> None:
    """The buttons of a dialog's button box that have no name yet: ``prefix.close``,
    ``prefix.cancel``… (a button of its own by its words: ``prefix.upload``)."""
    for button in box.buttons():
        if button.objectName():
            continue
        standard = box.standardButton(button)
        words = str(standard.name) if standard else _plain(button.text())
        button.setObjectName(f"{prefix}.{words.lower().replace(' ', '_')}")


def name_box(box: QMessageBox, name: str) -> QMessageBox:
    """A message box and each of its buttons named: ``name`` and ``name.yes``,
    ``name.cancel``…; each button's accessible name is its text."""
    box.setObjectName(name)
    box.setAccessibleName(box.windowTitle())
    for button in box.buttons():
        if not button.objectName():
            standard = box.standardButton(button)
            suffix = str(standard.name).lower() if standard else _plain(button.text()).lower()
            button.setObjectName(f"{name}.{suffix.replace(' ', '_')}")
        button.setAccessibleName(_plain(button.text()))
    return box


class NamedDialog(QDialog):
    """A dialog whose controls all have accessible names when it shows (rows added later,
    such as an order's products, are named when they are added)."""

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt's name
        for box in self.findChildren(QDialogButtonBox):
            name_buttons(box, self.objectName())
        give_accessible_names(self)
        super().showEvent(event)
