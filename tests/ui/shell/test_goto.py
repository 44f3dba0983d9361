"""Go to anything (Ctrl+K): a support agent reaches the record in one step with the keyboard."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from app.sandbox.banking.demo import DEMO_PERSON_ID
from app.ui.accounts import AccountsArea
from app.ui.clients import ClientsArea
from app.ui.iban import IbanArea
from tests.ui.conftest import settle


@pytest.fixture
def window(sandbox, open_window):
    return open_window(sandbox.url, size=(1400, 900))


def ctrl_k(qtbot, window) -> None:
    from PySide6.QtWidgets import QApplication

    window.activateWindow()  # as a person's window is, once a box it opened has closed
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)
    qtbot.keyClick(window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)


def go(qtbot, qloop, window, text: str):
    """Ctrl+K, the text typed, Enter: the box, once what it set going is done."""
    ctrl_k(qtbot, window)
    dialog = window.go_to_dialog
    assert dialog is not None and dialog.isVisible()
    qtbot.keyClicks(dialog.input, text)
    qtbot.keyClick(dialog.input, Qt.Key.Key_Return)
    settle(qloop, window)
    return dialog


def test_an_iban_of_the_partners_account_opens_it_in_accounts(qtbot, qloop, window):
    dialog = go(qtbot, qloop, window, "lt59 4010 0000 0000 0001")  # spaces, lower case
    assert not dialog.isVisible()
    assert window.current_area() == "Accounts"
    accounts = window.area(AccountsArea)
    assert accounts.view.client_id.text() == DEMO_PERSON_ID
    assert accounts.selected() is not None
    assert accounts.selected().iban.replace(" ", "") == "LT594010000000000001"


def test_another_iban_opens_the_iban_check_with_the_banks_data(qtbot, qloop, window):
    dialog = go(qtbot, qloop, window, "DE89 3704 0044 0532 0130 00")
    assert not dialog.isVisible() and window.current_area() == "IBAN lookup"
    assert window.area(IbanArea).view.input.text() == "DE89370400440532013000"


def test_an_invalid_iban_or_nothing_found_is_said_in_the_box(qtbot, qloop, window):
    dialog = go(qtbot, qloop, window, "DE00 3704 0044 0532 0130 00")
    assert dialog.isVisible()
    assert dialog.status.text().startswith(
        "Invalid IBAN DE00370400440532013000: the check digits do not match"
    )  # the IBAN said once
    # shaped like an IBAN: the IBAN check is offered, Down and Enter open it
    assert dialog.recent.item(0).text() == "Open the IBAN check for DE00370400440532013000"
    qtbot.keyClick(dialog.input, Qt.Key.Key_Down)
    qtbot.keyClick(dialog.recent, Qt.Key.Key_Return)
    settle(qloop, window)
    assert not dialog.isVisible() and window.current_area() == "IBAN lookup"
    assert window.area(IbanArea).view.input.text() == "DE00370400440532013000"
    dialog = go(qtbot, qloop, window, "DE00 3704 0044 0532 0130 00")
    qtbot.keyClicks(dialog.input, " ")
    assert dialog.status.text() == ""  # said of the text before: gone as one types
    dialog.input.clear()
    qtbot.keyClicks(dialog.input, "NO-SUCH-THING-42")
    qtbot.keyClick(dialog.input, Qt.Key.Key_Return)
    settle(qloop, window)
    assert dialog.isVisible()
    assert dialog.status.text().startswith("Nothing matches 'NO-SUCH-THING-42': ")
    dialog.reject()
    settle(qloop, window)


def test_an_email_lists_its_clients_and_a_client_id_selects_it(qtbot, qloop, window, admin):
    go(qtbot, qloop, window, "Ruta@Example.LT")
    clients = window.area(ClientsArea)
    assert window.current_area() == "Clients"
    assert clients.view.filter.text.text() == 'email[eq]"ruta@example.lt"'
    admin.delete("/_sandbox/requests")
    go(qtbot, qloop, window, "C0000002")
    assert clients.view.filter.text.text() == ""  # the whole list, that client chosen
    assert clients.selected() is not None and clients.selected().id == "C0000002"
    asked = [e["path"] for e in admin.get("/_sandbox/requests").json()]
    assert not any("/orders/" in path for path in asked)  # no order looked for (a 400)


def test_a_request_or_error_id_from_a_box_opens_the_request_log_there(qtbot, qloop, window, admin):
    admin.post("/_sandbox/faults", json={"status": 500, "count": 1, "path_contains": "/accounts"})
    window.show_area("Accounts")
    accounts = window.area(AccountsArea)
    accounts.show_client(DEMO_PERSON_ID)
    settle(qloop, window)
    (box,) = window.presenter.open_boxes
    error_id = box.text().rsplit(" ", 1)[-1].rstrip(".")  # "…quote the error ID <id>."
    box.button(QMessageBox.StandardButton.Ok).click()
    failed = next(e for e in reversed(admin.get("/_sandbox/requests").json()) if e["status"] == 500)
    go(qtbot, qloop, window, error_id)
    log = window.request_log
    (row,) = log.view.selectionModel().selectedRows()
    assert log.model.data(log.model.index(row.row(), 4)) == failed["request_id"]
    assert log.isVisible()
    log.view.clearSelection()
    go(qtbot, qloop, window, failed["request_id"])  # the request ID itself
    (row,) = log.view.selectionModel().selectedRows()
    assert log.model.data(log.model.index(row.row(), 4)) == failed["request_id"]


def test_the_recent_look_ups_come_first_and_the_keyboard_does_it_all(qtbot, qloop, window):
    go(qtbot, qloop, window, "DE89 3704 0044 0532 0130 00")
    missed = go(qtbot, qloop, window, "NO-SUCH-THING-7")  # found nothing: not offered again
    missed.reject()
    settle(qloop, window)
    ctrl_k(qtbot, window)
    dialog = window.go_to_dialog
    assert dialog.recent.item(0).text() == "DE89 3704 0044 0532 0130 00"
    qtbot.keyClick(dialog.input, Qt.Key.Key_Down)  # from the box to the recent look-ups
    assert dialog.recent.currentRow() == 0
    qtbot.keyClick(dialog.recent, Qt.Key.Key_Return)
    settle(qloop, window)
    assert not dialog.isVisible() and window.current_area() == "IBAN lookup"


def test_before_signing_in_the_box_says_so(qtbot, qloop, sandbox, open_window):
    window = open_window(sandbox.url, connect=False)
    dialog = window.open_go_to()
    dialog.go("C0000001")
    settle(qloop, window)
    assert dialog.isVisible()
    assert dialog.status.text().startswith("Could not look: Not signed in")
    dialog.reject()
    settle(qloop, window)


def test_a_name_offers_its_clients_as_one_types_and_one_of_them_is_opened(
    qtbot, qloop, window, admin
):
    ctrl_k(qtbot, window)
    dialog = window.go_to_dialog
    admin.delete("/_sandbox/requests")
    qtbot.keyClicks(dialog.input, "petr")  # typed fast: asked once typing pauses
    settle(qloop, window)
    offered = [dialog.recent.item(row).text() for row in range(dialog.recent.count())]
    assert dialog.list_label.text() == "Matches:" and offered
    assert all("petr" in text.casefold() for text in offered)
    asked = [e for e in admin.get("/_sandbox/requests").json() if e["path"] == "/v2/clients"]
    assert 1 <= len(asked) <= 3  # the clients read once for the box, page by page
    qtbot.keyClick(dialog.input, Qt.Key.Key_Down)
    chosen = dialog.recent.item(0).data(Qt.ItemDataRole.UserRole)
    qtbot.keyClick(dialog.recent, Qt.Key.Key_Return)
    settle(qloop, window)
    assert not dialog.isVisible() and window.current_area() == "Clients"
    clients = window.area(ClientsArea)
    assert clients.selected() is not None and clients.selected().id == chosen


def test_a_name_matching_nothing_is_said(qtbot, qloop, window):
    dialog = go(qtbot, qloop, window, "Zzyzx Qwerty")
    assert dialog.isVisible()
    assert dialog.status.text() == "No client's name or e-mail holds 'Zzyzx Qwerty'"
    assert dialog.list_label.text() == "No client matches 'Zzyzx Qwerty'"
    dialog.reject()
    settle(qloop, window)


def test_a_transfer_id_opens_the_transfer_in_transfers(qtbot, qloop, window, sandbox_url):
    import uuid

    from app.api import banking as m
    from app.ui.transfers import TransfersArea
    from tests.conftest import make_client
    from tests.ui.conftest import run_on

    transfer_id = f"GOTO-{uuid.uuid4().hex[:10]}"

    async def send() -> None:
        client = make_client(sandbox_url)
        (company_account, *_) = await client.list_accounts("C0000002")
        body = {"id": transfer_id, "amount": 1234, "currency": "EUR"}
        body["recipient_iban"] = company_account.iban
        transfer = m.build(m.InternalTransferCreate, body)
        await client.create_internal("LT594010000000000001", transfer)
        await client.aclose()

    run_on(qloop, send())
    dialog = go(qtbot, qloop, window, transfer_id)
    assert not dialog.isVisible() and window.current_area() == "Transfers"
    area = window.area(TransfersArea)
    assert area.chooser.client_id() == DEMO_PERSON_ID
    assert area.chooser.account_id() == "LT594010000000000001"
    assert area.kind == "internal" and area.view.transfer_id.text() == transfer_id
    assert area.model.rowCount() == 1 and area.model.items()[0].id == transfer_id
    assert area.view.status.text() == (
        f"Internal transfer {transfer_id} (clear the Transfer ID to list them all)"
    )
    assert area.details is not None and area.details.isVisible()
    assert area.details.values["Transfer ID"] == transfer_id
    assert area.details.values["Amount"] == "12.34 EUR"
    area.details.reject()
    settle(qloop, window)
