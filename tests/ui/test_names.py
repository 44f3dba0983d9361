"""Every control of every area and dialog has an object name and an accessible name, and
docs/testing.md lists them as they are (PARTNER_DESK_WRITE_NAMES=1 rewrites it from the
widgets after a change)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDialog, QWidget

from app.ui.common.names import give_accessible_names, interactive_widgets
from app.ui.shell.main_window import MainWindow
from tests.ui.conftest import run_on, settle, until

DOC = Path(__file__).parents[2] / "docs" / "testing.md"
CLIENT = "C0000001"

HEADER = """# Partner Desk for testers: the names of the controls

Every control a person can act on carries a stable object name, which `desk.widget(name)`
finds (the one visible widget of that name; a menu action: `desk.action(name)`), and an
accessible name, which a screen reader says. `subscriptions` in Events is shown with the
embedded sandbox only (its webhook subscriptions). This list is checked against the windows
by `tests/ui/test_names.py`: it is what the windows have. The names of message boxes and
their buttons: `confirmation` (`.yes`, `.no`), `discard` (`.discard`, `.cancel`), `errorBox`
(`.ok`, `.retry`, `.sign_in`…).

Fixtures, options and an example: the README's "Testing with pytest-qt".
"""


def _kind(widget: QWidget) -> str:
    return type(widget).__name__.removeprefix("Q")


def rows(root: QWidget) -> list[tuple[str, str, str]]:
    give_accessible_names(root)
    return sorted((w.objectName(), _kind(w), w.accessibleName()) for w in interactive_widgets(root))


def windows(window: MainWindow, qloop) -> Iterator[tuple[str, list[tuple[str, str, str]]]]:
    """Each window and area, its controls."""
    chrome = [(a.objectName(), "Action", a.text().replace("&", "")) for a in _actions(window)]
    main = [r for r in rows(window) if not _in_an_area(window, r[0])]
    yield "Main window", sorted(chrome + main)
    for name in window.area_names():
        window.show_area(name)
        settle(qloop, window)
        yield f"Area: {name}", rows(window._containers[name])
    for title, opener in dialogs(window, qloop):
        dialog = opener()
        settle(qloop, window)
        yield f"Dialog: {title}", rows(dialog)
        dialog.done(0)


def _actions(window: MainWindow) -> list[QAction]:
    """The menus' actions (a menu's own action, and separators, are not acted on)."""
    window.request_log  # noqa: B018 - made after the first paint; its toggle is in View
    found = {id(a): a for a in window.actions() if a.text()}
    for menu_action in window.menuBar().actions():
        menu = menu_action.menu()
        for action in menu.actions() if menu is not None else []:
            if action.text() and not action.isSeparator():
                found[id(action)] = action
    return list(found.values())


def _in_an_area(window: MainWindow, name: str) -> bool:
    return (
        any(page.findChild(QWidget, name) for page in window._containers.values())
        if name
        else False
    )


def dialogs(window: MainWindow, qloop) -> list[tuple[str, Callable[[], QDialog]]]:
    from decimal import Decimal

    from app.api.banking import SepaTransfer
    from app.api.gateway import Order
    from app.ui.clients import ClientsArea
    from app.ui.clients.attachment import AttachmentDialog
    from app.ui.clients.dialog import ClientDialog
    from app.ui.events import EventsArea
    from app.ui.orders import OrdersArea
    from app.ui.orders.amount_dialog import AmountDialog
    from app.ui.orders.card_entry import CardEntryDialog
    from app.ui.transfers import TransfersArea
    from app.ui.transfers.details import TransferDetails
    from tests.gateway_helpers import ORDER

    context = window.context

    def sign_in() -> QDialog:
        window.open_sign_in()
        assert window.sign_in_dialog is not None
        return window.sign_in_dialog

    def transfer() -> QDialog:
        return window.area(TransfersArea).new_transfer(CLIENT, "any-account")

    def order() -> QDialog:
        area = window.area(OrdersArea)
        area.new_order()
        settle(qloop, window)
        assert area.order_dialog is not None
        return area.order_dialog

    def orders_dialog(kind: str) -> Callable[[], QDialog]:
        def open_() -> QDialog:
            area = window.area(OrdersArea)
            getattr(area, f"open_{kind}")()
            settle(qloop, window)
            dialog = getattr(area, f"{kind}_dialog")
            assert dialog is not None
            return dialog

        return open_

    def client(kind: str) -> Callable[[], QDialog]:
        return lambda: _shown(ClientDialog(kind, context, nace_codes=(), parent=window))

    def upload() -> QDialog:
        clients = window.area(ClientsArea)
        first = clients.model.items()[0]
        return _shown(AttachmentDialog(context, first, window))

    def card() -> QDialog:
        return _shown(CardEntryDialog(context, Order.model_validate(ORDER), [], parent=window))

    def amount() -> QDialog:
        return _shown(
            AmountDialog(
                "Refund",
                "Refund order X",
                Decimal("45.00"),
                "EUR",
                "Remains after the refund",
                full_choice="All that remains",
                parent=window,
            )
        )

    def subscriptions() -> QDialog:
        area = window.area(EventsArea)
        area.open_subscriptions()
        settle(qloop, window)
        assert area.subscriptions_dialog is not None
        return area.subscriptions_dialog

    def details() -> QDialog:
        transfer = SepaTransfer.model_validate(
            {
                "id": "T1",
                "amount": 100,
                "recipient_name": "Hans",
                "recipient_iban": "DE89370400440532013000",
                "recipient_country": "DE",
                "recipient_address": "Berlin",
                "status": "done",
            }
        )
        return _shown(TransferDetails(transfer, window))

    def payment_import() -> QDialog:
        from app.ui.transfers.import_dialog import PaymentImportDialog

        return _shown(PaymentImportDialog(context, window))

    return [
        ("Go to", window.open_go_to),
        ("Import payment file", payment_import),
        ("Sign in", sign_in),
        ("New transfer", transfer),
        ("Transfer details", details),
        ("New order", order),
        ("Taxes", orders_dialog("taxes")),
        ("Customers", orders_dialog("customers")),
        ("Card payment", card),
        ("Capture or refund", amount),
        ("New person", client("person")),
        ("New company", client("company")),
        ("Upload document", upload),
        ("Webhook subscriptions", subscriptions),
    ]


def _shown(dialog: QDialog) -> QDialog:
    dialog.open()
    return dialog


def listing(found: list[tuple[str, list[tuple[str, str, str]]]]) -> str:
    parts = [HEADER]
    for title, controls in found:
        parts.append(
            f"\n## {title}\n\n| object name | kind | accessible name |\n| --- | --- | --- |\n"
        )
        parts.extend(f"| `{name}` | {kind} | {spoken} |\n" for name, kind, spoken in controls)
    return "".join(parts)


def test_every_control_has_both_names_and_the_document_lists_them(qloop, sandbox, open_window):
    window = open_window(sandbox.url)
    settle(qloop, window)
    found = list(windows(window, qloop))
    missing = [
        f"{title}: {kind} {name or '(no object name)'} {spoken or '(no accessible name)'}"
        for title, controls in found
        for name, kind, spoken in controls
        if not name or not spoken
    ]
    text = listing(found)
    if os.environ.get("PARTNER_DESK_WRITE_NAMES"):
        DOC.parent.mkdir(exist_ok=True)
        DOC.write_text(text, encoding="utf-8")
    assert missing == []
    assert DOC.read_text(encoding="utf-8") == text, "docs/testing.md differs from the windows"


def test_message_boxes_and_their_buttons_are_named(qloop, sandbox, open_window):
    from types import SimpleNamespace

    from PySide6.QtWidgets import QMessageBox

    from app.ui.shell.dialogs import confirmed

    window = open_window(sandbox.url)
    window.show_about()
    about = window.about_box
    assert about is not None and about.objectName() == "aboutBox"
    ok = about.button(QMessageBox.StandardButton.Ok)
    assert (ok.objectName(), ok.accessibleName()) == ("aboutBox.ok", "OK")
    about.done(0)

    owner = SimpleNamespace(confirmation=None)
    asking = window.tasks.spawn(confirmed(owner, window, "Send?", "Send it?"))
    run_on(qloop, until(lambda: owner.confirmation is not None))
    box = owner.confirmation
    names = {b.objectName(): b.accessibleName() for b in box.buttons()}
    assert box.objectName() == "confirmation"
    assert names == {"confirmation.yes": "Yes", "confirmation.no": "No"}
    box.button(QMessageBox.StandardButton.No).click()
    run_on(qloop, asking)
