"""The Accounts area against the sandbox: open, list, details, enable/disable/close with a
confirmation, balances at a date and in a currency."""

import datetime as dt
import re

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMessageBox

from app.api import banking as m
from app.ui.accounts import AccountsArea
from app.ui.clients import ClientsArea
from app.ui.statements import StatementsArea
from tests.conftest import make_client, person_body
from tests.ui.conftest import run_on, settle


def new_client(qloop, sandbox_url) -> str:
    async def create():
        client = make_client(sandbox_url)
        person = await client.create_client(m.build(m.ClientCreate, {"client": person_body()}))
        await client.aclose()
        return person.id

    return run_on(qloop, create())


def open_accounts(qloop, open_window, sandbox, client_id):
    window = open_window(sandbox.url)
    window.show_area("Accounts")
    view, accounts = window.area(AccountsArea).view, window.area(AccountsArea)
    view.client_id.setText(client_id)
    view.show_button.click()
    settle(qloop, window)
    assert view.status.text().startswith(f"Client {client_id}")
    return window, view, accounts


def cells(model, row):
    return [model.data(model.index(row, c)) for c in range(model.columnCount())]


def answer(qloop, window, accounts, button):
    """Answer the confirmation the area asks, and wait until what it does is done."""
    settle(qloop, window)
    assert accounts.confirmation is not None
    box = accounts.confirmation
    text = box.text()
    box.button(button).click()
    settle(qloop, window)
    assert accounts.confirmation is None
    return text


def test_open_list_and_operate_with_confirmation(
    qtbot, qloop, sandbox, settings, open_window, bank
):
    client_id = new_client(qloop, sandbox.url)
    window, view, accounts = open_accounts(qloop, open_window, sandbox, client_id)
    assert view.status.text() == f"Client {client_id}: 0 accounts"
    assert not view.close_button.isEnabled()

    view.open_button.click()  # it asks first: No opens nothing
    assert answer(qloop, window, accounts, QMessageBox.StandardButton.No) == (
        f"Open a new account for client {client_id}?"
    )
    assert view.model.rowCount() == 0
    view.open_button.click()
    answer(qloop, window, accounts, QMessageBox.StandardButton.Yes)
    assert view.model.rowCount() == 1
    iban, bic, kind, status, _opened = cells(view.model, 0)
    assert (bic, kind, status) == ("AGBLLT2XXXX", "payment", "active")
    assert re.fullmatch(r"LT\d{18}", iban)
    assert view.status.text() == f"Opened account {iban}"
    assert view.disable_button.isEnabled() and not view.enable_button.isEnabled()

    # No keeps it as it is
    view.disable_button.click()
    text = answer(qloop, window, accounts, QMessageBox.StandardButton.No)
    assert text == (
        f"Disable account {iban}?\nIt will neither send nor receive transfers until enabled."
    )
    assert bank.accounts[iban].status == "active"

    view.disable_button.click()
    answer(qloop, window, accounts, QMessageBox.StandardButton.Yes)
    assert view.status.text() == f"Account {iban} is disabled"
    assert cells(view.model, 0)[3] == "disabled"
    assert view.enable_button.isEnabled() and not view.disable_button.isEnabled()

    # closing with money on it: the service's 400, shown as the contract says
    view.close_button.click()
    assert "Closing is final" in answer(qloop, window, accounts, QMessageBox.StandardButton.Yes)
    box = window.presenter.open_boxes[-1]
    assert box.windowTitle() == "Operation not allowed"
    assert re.fullmatch(
        rf"Account {iban} still holds money .*\nError: [0-9a-f-]{{36}}", box.text(), re.S
    )
    box.button(QMessageBox.StandardButton.Ok).click()
    assert bank.accounts[iban].status == "disabled"


def test_balances_now_at_a_date_and_in_a_currency(qtbot, qloop, sandbox, settings, open_window):
    window, view, _accounts = open_accounts(qloop, open_window, sandbox, "C0000001")
    assert view.model.rowCount() == 2  # the demo account and the busy one
    view.table.selectRow(0)

    def balance():
        view.balance_button.click()
        settle(qloop, window)

    balance()
    rows = [cells(view.balances, r) for r in range(view.balances.rowCount())]
    assert [row[0] for row in rows] == ["CHF", "EUR", "GBP", "JPY", "USD"]
    assert rows[3][1] == "1,000,000"  # JPY has no minor unit
    view.balance_currency.setCurrentText("EUR")
    view.at_date.setChecked(True)
    five_years_ago = view.balance_date.date() - dt.timedelta(days=5 * 366)
    view.balance_date.line.setText(five_years_ago.isoformat())  # typed
    view.balances.set_rows([])
    balance()
    assert [cells(view.balances, r) for r in range(view.balances.rowCount())] == [
        ["EUR", "0.00", "0.00", five_years_ago.isoformat()]
    ]
    view.balance_currency.setCurrentText("EUX")
    view.balance_button.click()
    box = window.presenter.open_boxes[-1]
    assert (box.windowTitle(), box.text()) == (
        "Invalid input",
        "Currency: 'EUX' is not an ISO 4217 currency code such as EUR",
    )
    box.button(QMessageBox.StandardButton.Ok).click()
    view.copy_button.click()
    assert QGuiApplication.clipboard().text() == cells(view.model, 0)[0]


def test_from_clients_to_accounts_to_statement(qloop, sandbox, open_window):
    window = open_window(sandbox.url)
    window.show_area("Clients")
    settle(qloop, window)
    window.area(ClientsArea).view.table.selectRow(0)
    window.area(ClientsArea).view.accounts.click()
    settle(qloop, window)
    assert window.area(AccountsArea).view.model.rowCount() == 2  # the demo and the busy ones
    assert window.current_area() == "Accounts"
    assert window.area(AccountsArea).view.client_id.text() == "C0000001"
    iban = cells(window.area(AccountsArea).view.model, 0)[0]
    window.area(AccountsArea).view.statement_button.click()
    assert window.current_area() == "Statements"
    assert window.area(StatementsArea).view.client_id.text() == "C0000001"
    settle(qloop, window)
    assert window.area(StatementsArea).view.account.count() == 2
    assert window.area(StatementsArea).chooser.account_id() == iban


def test_a_refused_action_shows_the_account_as_it_is_now(
    qtbot, qloop, sandbox, settings, open_window, admin
):
    client_id = new_client(qloop, sandbox.url)

    async def with_account():
        client = make_client(sandbox.url)
        account = await client.create_account(client_id)
        await client.aclose()
        return account

    account = run_on(qloop, with_account())
    window, view, accounts = open_accounts(qloop, open_window, sandbox, client_id)
    view.table.selectRow(0)
    assert cells(view.model, 0)[3] == "active"
    # someone else disables it meanwhile; this desk still shows it active
    admin.post(
        f"/v1/clients/{client_id}/accounts/{account.id}/disable",
        auth=("demo", "demo"),
        headers={"x-partner-code": "PD"},
    )
    view.disable_button.click()
    answer(qloop, window, accounts, QMessageBox.StandardButton.Yes)
    assert window.presenter.open_boxes[-1].windowTitle() == "Operation not allowed"
    assert cells(view.model, 0)[3] == "disabled"
    assert view.enable_button.isEnabled() and not view.disable_button.isEnabled()
    window.presenter.open_boxes[-1].done(0)


def test_every_balance_shows_and_the_date_can_be_typed(
    qtbot, qloop, sandbox, settings, open_window
):
    window, view, _accounts = open_accounts(qloop, open_window, sandbox, "C0000001")
    view.table.selectRow(0)
    assert view.balance_date.isEnabled() and not view.at_date.isChecked()
    view.balance_date.line.setText("2025-0")  # half typed: nothing asked yet
    assert not view.at_date.isChecked()
    view.balance_date.line.setText("2025-01-01")  # typed whole: taken as typed
    assert view.at_date.isChecked() and view.balance_date.date() == dt.date(2025, 1, 1)
    view.balance_date.line.setText("2025-02-30")
    assert view.balance_date.date() is None
    assert view.balance_date.line.toolTip() == "2025-02-30 is not a day of the calendar"
    view.at_date.setChecked(False)
    view.balance_button.click()
    settle(qloop, window)
    assert view.balances.rowCount() == 5
    qtbot.waitUntil(lambda: view.balance_table.isVisible())
    assert view.balance_table.verticalScrollBar().maximum() == 0  # all five rows in view
    for edit in (view.client_id, window.area(StatementsArea).view.client_id):
        needed = edit.fontMetrics().horizontalAdvance(edit.placeholderText())
        assert edit.minimumWidth() > needed  # the placeholder is never cut


def test_the_accounts_follow_the_typing_with_one_call_once_it_pauses_quietly(
    qtbot, qloop, sandbox, open_window, admin
):
    client_id = new_client(qloop, sandbox.url)
    window = open_window(sandbox.url)
    window.show_area("Accounts")
    view = window.area(AccountsArea).view
    view.client_id.clear()
    qtbot.keyClicks(view.client_id, client_id)  # typed, neither Enter nor Show
    settle(qloop, window)
    assert view.status.text() == f"Client {client_id}: 0 accounts"
    asked = [
        each["path"]
        for each in admin.get("/_sandbox/requests").json()
        if f"/clients/{client_id}/accounts" in each["path"]
    ]
    assert len(asked) == 1  # one call for the whole ID, not one per key
    view.client_id.selectAll()
    qtbot.keyClicks(view.client_id, "C99")  # half typed, or a client that does not exist
    settle(qloop, window)
    assert window.context.presenter.open_boxes == []  # a pause in typing is no error
    assert view.model.rowCount() == 0
    assert view.status.text() == "Client C99 not found"  # as the service says it
    view.show_button.click()  # asked for: says what is wrong
    settle(qloop, window)
    assert len(window.context.presenter.open_boxes) == 1
    window.context.presenter.open_boxes[0].close()
