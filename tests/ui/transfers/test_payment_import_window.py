"""Import payment file… driven as operations staff would: the preview with each fee and the
refused lines, one confirmation, the counts as the payments go, a stop between two payments,
and the reports saved."""

from __future__ import annotations

import csv
import uuid

import pytest
from PySide6.QtWidgets import QFileDialog, QMessageBox

from app.api import banking as m
from app.files.xml_input import schema
from app.ui.transfers import TransfersArea
from app.ui.transfers.import_dialog import PaymentImportDialog
from tests.conftest import make_client, person_body
from tests.pain_files import payment, payment_file
from tests.ui.conftest import run_on, settle


@pytest.fixture
def debtor(qloop, sandbox) -> str:
    async def create():
        client = make_client(sandbox.url)
        body = {"client": person_body(external_id=uuid.uuid4().hex[:8])}
        person = await client.create_client(m.build(m.ClientCreate, body))
        account = await client.create_account(person.id)
        await client.aclose()
        return account.iban

    return run_on(qloop, create())


def transfers_of(url: str, iban: str) -> list[dict]:
    """The account's SEPA transfers, read as any HTTP client would (the desk's loop is busy)."""
    import httpx

    answer = httpx.get(
        f"{url}/v1/accounts/{iban}/transfers/sepa",
        params={"limit": 100},
        auth=("demo", "demo"),
        headers={"x-partner-code": "PD-TEST"},
        timeout=30,
    )
    answer.raise_for_status()
    return list(answer.json())


def opened(qloop, sandbox, open_window, file) -> tuple:
    window = open_window(sandbox.url, size=(1280, 800))
    window.show_area("Transfers")
    dialog = window.area(TransfersArea).open_import(file)
    settle(qloop, window)
    return window, dialog


def column(dialog: PaymentImportDialog, number: int) -> list[str]:
    model = dialog.model
    return [model.data(model.index(row, number)) for row in range(model.rowCount())]


def send(qloop, window, dialog: PaymentImportDialog, *, stop_at_once: bool = False) -> None:
    dialog.send_button.click()
    assert dialog.confirmation is not None and dialog.confirmation.isVisible()
    dialog.confirmation.button(QMessageBox.StandardButton.Yes).click()
    if stop_at_once:
        dialog.stop_button.click()
    settle(qloop, window)


def test_the_preview_then_each_payment_sent_once_and_the_reports(
    qloop, sandbox, open_window, debtor, tmp_path
):
    rows = [payment(1), payment(2), payment(3, IBAN="BR1500000000000010932840814P2")]
    file = tmp_path / "payments.xml"
    file.write_bytes(payment_file(debtor, rows, validate=False))
    window, dialog = opened(qloop, sandbox, open_window, file)
    assert dialog.isVisible() and dialog.problem.text() == ""
    assert column(dialog, 2) == ["E2E-1", "E2E-2", "E2E-3"]
    assert column(dialog, 6) == ["0.50", "0.50", ""]
    assert column(dialog, 7) == [
        "To send",
        "To send",
        "Refused: the creditor IBAN BR1500000000000010932840814P2 is of Brazil, outside SEPA",
    ]
    assert dialog.refused.text() == (
        "Refused before sending, nothing sent for them:\nPayment 3 (line "
        f"{dialog.plan.payments[2].payment.line}, E2E-3): the creditor IBAN "
        "BR1500000000000010932840814P2 is of Brazil, outside SEPA"
    )
    assert dialog.totals.text() == (
        f"Account {debtor}: 2 payments, 20.03 EUR + fees 1.00 EUR\n"
        "Fees in all: 1.00 EUR. 2 to send, 0 accepted before, 1 refused before sending."
    )
    assert dialog.send_button.text() == "Send 2 payments…" and dialog.send_button.isEnabled()
    assert transfers_of(sandbox.url, debtor) == []  # nothing before the confirmation
    send(qloop, window, dialog)
    assert dialog.counts.text() == "Sent 2: accepted 2, refused 0, outcome unknown 0"
    assert dialog.step.text() == (
        "Done: 2 accepted, 1 refused (see the reasons). Save the report if needed."
    )
    assert column(dialog, 7)[:2] == ["Accepted (inprogress)"] * 2
    assert not dialog.send_button.isEnabled()
    assert len(transfers_of(sandbox.url, debtor)) == 2
    dialog.save_report(tmp_path / "report.csv")
    with (tmp_path / "report.csv").open(encoding="utf-8-sig", newline="") as handle:
        outcomes = [row["outcome"] for row in csv.DictReader(handle)]
    assert outcomes == ["accepted", "accepted", "refused"]
    dialog.save_report(file)  # the payment file itself: never replaced by its report
    assert dialog.problem.text().startswith("payments.xml is the payment file itself:")
    assert file.read_bytes().startswith(b"<?xml") and b"pain.001.001.03" in file.read_bytes()
    dialog.save_report(tmp_path / "status.xml")
    from lxml import etree

    assert schema("pain.002.001.03").validate(etree.parse(str(tmp_path / "status.xml")))
    assert dialog.step.text() == f"Report saved to {tmp_path / 'status.xml'}"
    dialog.reject()
    settle(qloop, window)

    # the same file again: accepted before, nothing to send
    _window, again = opened(qloop, sandbox, open_window, file)
    assert column(again, 7)[:2] == ["Accepted before (not sent again)"] * 2
    assert again.send_button.text() == "Send 0 payments…" and not again.send_button.isEnabled()
    again.reject()
    settle(qloop, _window)


def test_stopped_between_payments_the_rest_is_sent_by_the_next_import(
    qloop, sandbox, open_window, debtor, tmp_path
):
    file = tmp_path / "payments.xml"
    file.write_bytes(payment_file(debtor, [payment(n) for n in range(1, 4)]))
    window, dialog = opened(qloop, sandbox, open_window, file)
    send(qloop, window, dialog, stop_at_once=True)
    assert dialog.step.text() == (
        "Stopped: 3 not sent. Import the file again to send them; what was accepted is not "
        "sent twice."
    )
    assert transfers_of(sandbox.url, debtor) == []
    dialog.reject()
    settle(qloop, window)
    _window, again = opened(qloop, sandbox, open_window, file)
    send(qloop, _window, again)
    assert again.counts.text() == "Sent 3: accepted 3, refused 0, outcome unknown 0"
    assert len(transfers_of(sandbox.url, debtor)) == 3
    again.reject()
    settle(qloop, _window)


def test_closing_while_sending_stops_after_the_payment_on_its_way(
    qloop, sandbox, open_window, debtor, tmp_path
):
    file = tmp_path / "payments.xml"
    file.write_bytes(payment_file(debtor, [payment(n) for n in range(1, 4)]))
    window, dialog = opened(qloop, sandbox, open_window, file)
    closed: list[int] = []
    dialog.finished.connect(closed.append)
    dialog.send_button.click()
    dialog.confirmation.button(QMessageBox.StandardButton.Yes).click()
    dialog.reject()  # Escape while it sends: it stops, then closes
    assert dialog.isVisible() and dialog.close_when_stopped and closed == []
    settle(qloop, window)
    assert closed == [0]  # closed once the payment on its way was done
    assert len(transfers_of(sandbox.url, debtor)) <= 1


def test_a_stray_escape_while_sending_ends_nothing(
    qtbot, qloop, sandbox, open_window, debtor, tmp_path
):
    from PySide6.QtCore import Qt

    file = tmp_path / "payments.xml"
    file.write_bytes(payment_file(debtor, [payment(n) for n in range(1, 4)]))
    window, dialog = opened(qloop, sandbox, open_window, file)
    dialog.send_button.click()
    dialog.confirmation.button(QMessageBox.StandardButton.Yes).click()
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert dialog.isVisible() and dialog.step.text().startswith("Sending… To stop, press Stop")
    settle(qloop, window)
    assert dialog.isVisible() and dialog.counts.text().startswith("Sent 3: accepted 3")
    assert dialog.table.tabKeyNavigation() is False  # Tab goes on to the buttons
    dialog.reject()
    settle(qloop, window)


def test_an_invalid_file_says_why_and_nothing_can_be_sent(
    qloop, sandbox, open_window, debtor, admin, tmp_path
):
    file = tmp_path / "payments.xml"
    data = payment_file(debtor, [payment(1), payment(2)])
    file.write_bytes(data.replace(b"<NbOfTxs>2</NbOfTxs>", b"<NbOfTxs>3</NbOfTxs>", 1))
    window, dialog = opened(qloop, sandbox, open_window, file)
    assert dialog.problem.text() == (
        "Nothing can be sent from this file. The group header counts 3 transactions (NbOfTxs) "
        "but the file holds 2: nothing is sent from a file in doubt"
    )
    assert dialog.model.rowCount() == 0 and not dialog.send_button.isEnabled()
    assert not any("/transfers/" in e["path"] for e in admin.get("/_sandbox/requests").json())
    dialog.reject()
    settle(qloop, window)


def test_texts_from_the_file_are_shown_as_they_are_never_as_rich_text(
    qloop, sandbox, open_window, debtor, tmp_path
):
    from PySide6.QtCore import Qt

    file = tmp_path / "payments.xml"
    name = "<b>Bold</b> <img src=x>"
    data = payment_file(debtor, [payment(1, IBAN="BR1500000000000010932840814P2", name=name)])
    file.write_bytes(data)
    window, dialog = opened(qloop, sandbox, open_window, file)
    assert dialog.refused.textFormat() == Qt.TextFormat.PlainText
    assert dialog.problem.textFormat() == Qt.TextFormat.PlainText
    assert column(dialog, 3) == [name]
    dialog.reject()
    settle(qloop, window)


def test_the_file_menu_and_the_area_offer_the_import(qloop, sandbox, open_window):
    from app.ui.shell.harness import find_action

    window = open_window(sandbox.url)
    find_action(window, "action.new.paymentImport").trigger()
    assert window.current_area() == "Transfers"
    chooser = next(each for each in window.findChildren(QFileDialog) if each.isVisible())
    assert chooser.windowTitle() == "Import payment file (pain.001)"
    assert chooser.fileMode() == QFileDialog.FileMode.ExistingFile
    chooser.reject()
    assert window.area(TransfersArea).view.import_button.text() == "Import payment file…"
