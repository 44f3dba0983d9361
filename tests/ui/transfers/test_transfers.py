"""The Transfers area against the sandbox: the live fee, one transfer per form whatever
happens, every limit checked as typed, following a transfer until it is done."""

import re
import uuid

import pytest
from PySide6.QtWidgets import QMessageBox

from app.api import banking as m
from app.ui.accounts import AccountsArea
from app.ui.transfers import TransfersArea
from app.ui.transfers.form import TransferDialog
from tests.conftest import advance, make_client, person_body
from tests.ui.conftest import run_on, settle, until

DE_IBAN = "DE89 3704 0044 0532 0130 00"


def new_account(qloop, sandbox_url) -> tuple[str, str, str]:
    """A fresh client with two accounts: (client, account, other account)."""

    async def create():
        client = make_client(sandbox_url)
        person = await client.create_client(
            m.build(m.ClientCreate, {"client": person_body(external_id=uuid.uuid4().hex[:8])})
        )
        first = await client.create_account(person.id)
        second = await client.create_account(person.id)
        await client.aclose()
        return person.id, first.id, second.id

    return run_on(qloop, create())


def open_transfers(open_window, sandbox):
    window = open_window(sandbox.url)
    window.show_area("Transfers")
    return window, window.area(TransfersArea)


def form_for(area, client_id, account_id, kind="sepa") -> TransferDialog:
    dialog = area.new_transfer(client_id, account_id)  # the area deletes it once closed
    dialog.kinds.setCurrentIndex(("sepa", "world", "internal").index(kind))
    return dialog


def fill(dialog: TransferDialog, values: dict[str, str]) -> None:
    for key, text in values.items():
        dialog.set_value(key, text)


def fee_shown(qloop, window, dialog, text: str) -> None:
    """The pause in typing over and the fee asked: ``text`` is shown."""
    settle(qloop, window)
    assert dialog.fee.text() == text


def send(qloop, window, dialog) -> None:
    """Submit, confirm, and wait until the transfer was created, or its failure shown."""
    dialog.submit()
    settle(qloop, window)
    assert dialog.confirmation is not None
    dialog.confirmation.button(QMessageBox.StandardButton.Yes).click()
    settle(qloop, window)


SEPA = {
    "amount": "1 234,50",
    "recipient_name": "Hans Muster",
    "recipient_iban": DE_IBAN,
    "recipient_address": "Berlin",
    "description": "Invoice 7",
}


def test_the_fee_and_total_follow_what_is_typed_for_each_kind(
    qtbot, qloop, sandbox, settings, open_window
):
    client_id, account_id, other = new_account(qloop, sandbox.url)
    window, area = open_transfers(open_window, sandbox)
    dialog = form_for(area, client_id, account_id, "sepa")
    assert dialog.windowTitle() == "New SEPA transfer"
    fill(dialog, SEPA)
    assert dialog.value("recipient_country") == "DE"  # from the IBAN
    assert dialog.form.rows["recipient_iban"].problem.text() == "Commerzbank, COBADEFFXXX"
    fee_shown(qloop, window, dialog, "Fee: 0.50 EUR")
    assert dialog.total.text() == "Total to be debited: 1,235.00 EUR (amount 1,234.50 + fee 0.50)"
    assert dialog.available.text() == "Available: 10,000.00 EUR"
    assert dialog.warning.text() == ""
    fill(dialog, {"amount": "20000"})  # more than there is
    fee_shown(qloop, window, dialog, "Fee: 10.50 EUR")  # 0.50 + 0.1% above 10,000
    assert dialog.warning.text().startswith("The total is more than the available balance")

    # world, in yen: no decimals; what was typed where fields are shared stays
    dialog.kinds.setCurrentIndex(1)
    assert dialog.value("recipient_name") == "Hans Muster"
    fill(
        dialog,
        {
            "currency": "JPY",
            "amount": "1 000",
            "charges_type": "our",
            "priority": "urgent",
            "recipient_account": "123456789",
            "bic": "COBADEFFXXX",
        },
    )
    assert dialog.value("bank") == "Commerzbank" and dialog.value("bank_country") == "DE"
    fee_shown(qloop, window, dialog, "Fee: 45 JPY")  # 10 minimum + 20 urgent + 15 our
    assert dialog.total.text() == "Total to be debited: 1,045 JPY (amount 1,000 + fee 45)"
    fill(dialog, {"amount": "1000.5"})
    assert dialog.form.rows["amount"].problem.text() == "JPY amounts have no decimals"
    assert dialog.fee.text() == "Fee: …"

    # internal: free
    dialog.kinds.setCurrentIndex(2)
    fill(dialog, {"currency": "EUR", "amount": "12.34", "recipient_iban": other})
    fee_shown(qloop, window, dialog, "Fee: 0.00 EUR")
    assert dialog.total.text() == "Total to be debited: 12.34 EUR (amount 12.34 + fee 0.00)"
    # Escape on a form with typed input asks before anything is lost
    dialog.reject()
    assert dialog.isVisible() and dialog.discard is not None
    dialog.discard.button(QMessageBox.StandardButton.Cancel).click()
    assert dialog.isVisible()
    dialog.reject()
    dialog.discard.button(QMessageBox.StandardButton.Discard).click()
    assert not dialog.isVisible()


def test_an_answer_for_older_input_is_never_shown_and_one_call_at_a_time(
    qtbot, qloop, sandbox, settings, open_window, admin, monkeypatch
):
    from app.api.banking import BankingClient

    # each fee call as the window makes it, and how many were on their way at once
    fee_of = BankingClient.fee_of
    on_the_way: list[int] = [0]
    most_at_once: list[int] = [0]

    async def counted_fee_of(self, *args, **kwargs):
        on_the_way[0] += 1
        most_at_once[0] = max(most_at_once[0], on_the_way[0])
        try:
            return await fee_of(self, *args, **kwargs)
        finally:
            on_the_way[0] -= 1

    monkeypatch.setattr(BankingClient, "fee_of", counted_fee_of)
    client_id, account_id, _other = new_account(qloop, sandbox.url)
    window, area = open_transfers(open_window, sandbox)
    dialog = form_for(area, client_id, account_id)
    fill(dialog, {**SEPA, "amount": "100"})
    fee_shown(qloop, window, dialog, "Fee: 0.50 EUR")
    calls = dialog.live_fee.calls
    # the next fee answer comes slowly; meanwhile the amount changes again
    admin.post(
        "/_sandbox/faults",
        json={"mode": "delay", "delay_ms": 1500, "count": 1, "path_contains": "/sepa/fee"},
    )
    fill(dialog, {"amount": "15000"})  # fee 5.50, asked slowly
    run_on(qloop, until(lambda: dialog.live_fee.in_flight))  # asked: held 1.5 s
    fill(dialog, {"amount": "20000"})  # fee 10.50, the newest input
    assert dialog.fee.text() == "Fee: …"
    fee_shown(qloop, window, dialog, "Fee: 10.50 EUR")  # every call of the window ended
    assert dialog.fee.text() == "Fee: 10.50 EUR"  # never the 5.50 of the older input
    assert dialog.live_fee.calls == calls + 2  # the newest asked once the slow one answered
    assert most_at_once == [1]  # one call at a time, the slow one included
    dialog.done(0)


def test_a_failed_fee_is_shown_inline_and_the_form_stays_usable(
    qtbot, qloop, sandbox, settings, open_window, admin
):
    client_id, account_id, _other = new_account(qloop, sandbox.url)
    window, area = open_transfers(open_window, sandbox)
    dialog = form_for(area, client_id, account_id)
    admin.post("/_sandbox/faults", json={"status": 500, "count": 3, "path_contains": "/sepa/fee"})
    fill(dialog, SEPA)
    settle(qloop, window)
    assert dialog.fee.text().startswith(
        "Fee not available: The service failed to process the request (Error: "
    )
    assert window.presenter.open_boxes == []  # never a box
    assert dialog.submit_button.isEnabled()
    admin.delete("/_sandbox/faults")
    dialog.done(0)


# every limit is checked in the draft's own tests (tests/unit/forms); the window shows them
@pytest.mark.parametrize(
    ("values", "key", "problem"),
    [
        ({"amount": "0"}, "amount", "From 0.01 EUR to 21,474,836.47 EUR"),
        ({"recipient_iban": "BR15 0000 0000 0000 1093 2840 814P 2"}, "recipient_iban", "SEPA"),
    ],
)
def test_every_limit_is_checked_as_typed_and_nothing_goes_out(
    qtbot, qloop, sandbox, settings, open_window, admin, values, key, problem
):
    client_id, account_id, _other = new_account(qloop, sandbox.url)
    window, area = open_transfers(open_window, sandbox)
    dialog = form_for(area, client_id, account_id)
    fill(dialog, {**SEPA, **values})
    assert problem in dialog.form.rows[key].problem.text()
    assert dialog.form.rows[key].widget.styleSheet()
    assert not dialog.submit_button.isEnabled()
    label = dialog.form.rows[key].label
    assert label in dialog.submit_button.toolTip()  # says why on hover
    admin.delete("/_sandbox/requests")
    dialog.submit()
    settle(qloop, window)
    assert dialog.confirmation is None
    sent = admin.get("/_sandbox/requests").json()
    assert [e for e in sent if e["method"] == "POST" and not e["path"].endswith("/fee")] == []
    dialog.done(0)


def test_world_needs_a_description_a_bic_and_a_known_currency(qloop, sandbox, open_window):
    client_id, account_id, _other = new_account(qloop, sandbox.url)
    window, area = open_transfers(open_window, sandbox)
    dialog = form_for(area, client_id, account_id, "world")
    settle(qloop, window)  # the currencies world transfers are made in, asked once
    fill(dialog, {"currency": "SEK"})  # a currency, but not one world transfers are made in
    assert dialog.form.rows["currency"].problem.text() == (
        "World transfers are made in EUR, USD, GBP, CHF, JPY"
    )
    fill(
        dialog,
        {
            **SEPA,
            "description": "",
            "currency": "EUX",
            "recipient_account": "1",
            "bic": "COBA",
            "bank_country": "DE",
        },
    )
    dialog.submit()  # tried: every required field is marked
    rows = dialog.form.rows
    assert rows["description"].problem.text() == "Required"
    assert rows["currency"].problem.text() == "Enter an ISO 4217 code such as EUR"
    assert rows["bic"].problem.text() == "A BIC has 8 or 11 letters and digits, like COBADEFFXXX"
    assert dialog.confirmation is None
    dialog.done(0)


def count_transfers(bank, account_id) -> int:
    return sum(1 for t in bank.transfers if t.account_id == account_id)


def test_a_double_click_on_submit_makes_one_transfer(
    qtbot, qloop, sandbox, settings, open_window, bank
):
    client_id, account_id, _other = new_account(qloop, sandbox.url)
    window, area = open_transfers(open_window, sandbox)
    dialog = form_for(area, client_id, account_id)
    fill(dialog, SEPA)
    dialog.submit()
    dialog.submit()  # the second click while the first waits for its confirmation
    settle(qloop, window)
    assert dialog.confirmation is not None
    dialog.confirmation.button(QMessageBox.StandardButton.Yes).click()
    settle(qloop, window)
    assert dialog.created is not None
    dialog.submit()  # and once created, Submit sends nothing more
    settle(qloop, window)
    assert count_transfers(bank, account_id) == 1
    assert not dialog.submit_button.isEnabled()
    dialog.done(0)


def test_a_408_after_the_create_is_retried_with_its_key_and_makes_one(
    qtbot, qloop, sandbox, settings, open_window, admin, bank
):
    client_id, account_id, _other = new_account(qloop, sandbox.url)
    window, area = open_transfers(open_window, sandbox)
    transport = window.session.banking.transport
    transport.retry = type(transport.retry)(attempts=3, backoff=0.01)
    dialog = form_for(area, client_id, account_id)
    fill(dialog, SEPA)
    fee_shown(qloop, window, dialog, "Fee: 0.50 EUR")  # the fee's call is not the one to fail
    admin.post(
        "/_sandbox/faults",
        json={"status": 408, "count": 1, "mode": "after", "path_contains": "/transfers/sepa"},
    )
    admin.delete("/_sandbox/requests")
    send(qloop, window, dialog)
    assert dialog.created is not None and dialog.created.status == "inprogress"
    sent = admin.get("/_sandbox/requests").json()
    posts = [e for e in sent if e["method"] == "POST" and e["path"].endswith("/transfers/sepa")]
    assert [e["status"] for e in posts] == [408, 200]
    assert posts[0]["request_id"] == posts[1]["request_id"] == dialog.action.key
    assert count_transfers(bank, account_id) == 1
    dialog.done(0)


def test_submit_again_after_a_500_makes_one_transfer(
    qtbot, qloop, sandbox, settings, open_window, admin, bank
):
    client_id, account_id, _other = new_account(qloop, sandbox.url)
    window, area = open_transfers(open_window, sandbox)
    dialog = form_for(area, client_id, account_id)
    fill(dialog, SEPA)
    fee_shown(qloop, window, dialog, "Fee: 0.50 EUR")  # the fee's call is not the one to fail
    admin.post(
        "/_sandbox/faults",
        json={"status": 500, "count": 1, "mode": "after", "path_contains": "/transfers/sepa"},
    )
    send(qloop, window, dialog)
    box = window.presenter.open_boxes[-1]
    assert box.windowTitle() == "Internal error"
    box.button(QMessageBox.StandardButton.Ok).click()
    assert dialog.created is None and count_transfers(bank, account_id) == 1
    send(qloop, window, dialog)  # Submit again: the same request, the same key: replayed
    assert dialog.created is not None
    assert count_transfers(bank, account_id) == 1
    dialog.done(0)


@pytest.mark.parametrize(("name", "final"), [("Hans Muster", "Done"), ("REJECT me", "Error")])
def test_the_form_follows_the_transfer_until_it_is_done_or_in_error(
    qtbot, qloop, sandbox, settings, open_window, name, final
):
    client_id, account_id, _other = new_account(qloop, sandbox.url)
    window, area = open_transfers(open_window, sandbox)
    accounts = window.area(AccountsArea)
    accounts.show_client(client_id)
    settle(qloop, window)
    assert accounts.view.model.rowCount() == 2
    accounts.view.table.selectRow(0)
    accounts.show_balance()
    settle(qloop, window)
    assert accounts.view.balances.rowCount() == 5
    dialog = form_for(area, client_id, account_id)
    fill(dialog, {**SEPA, "recipient_name": name})
    send(qloop, window, dialog)
    transfer_id = dialog.created.id
    assert dialog.status.text().startswith(f"Transfer {transfer_id}: In progress")
    # the Accounts area's balance shows the money held
    assert balance_of(accounts, "EUR")[2] == "8,765.00"
    advance(sandbox.url, 2)  # the sandbox settles it; the form asks every second
    run_on(qloop, until(lambda: f"{transfer_id}: {final}" in dialog.status.text(), timeout=10))
    settle(qloop, window)
    expected = "8,765.00" if final == "Done" else "10,000.00"
    assert balance_of(accounts, "EUR")[1] == expected
    # New transfer: a fresh form with a fresh id
    dialog.new_button.click()
    assert dialog.created is None and dialog.value("id") != transfer_id
    assert dialog.value("amount") == "" and dialog.status.text() == ""
    dialog.done(0)


def balance_of(accounts, currency) -> list[str]:
    model = accounts.view.balances
    for row in range(model.rowCount()):
        cells = [model.data(model.index(row, c)) for c in range(model.columnCount())]
        if cells[0] == currency:
            return cells
    return ["", "", ""]


def test_the_lists_filter_page_look_up_export_and_open_details(
    qtbot, qloop, sandbox, settings, open_window, tmp_path
):
    import csv
    import datetime as dt

    from PySide6.QtCore import QModelIndex, Qt

    from app.ui.transfers.model import STATUS

    client_id, account_id, other = new_account(qloop, sandbox.url)

    async def many_transfers():
        client = make_client(sandbox.url)
        for n in range(60):
            body = {
                "id": f"I{n:03d}",
                "amount": 100 + n,
                "currency": "EUR",
                "recipient_iban": other,
            }
            await client.create_internal(account_id, m.build(m.InternalTransferCreate, body))
        sepa = {**SEPA, "id": "S-1", "amount": 1_000, "recipient_iban": DE_IBAN.replace(" ", "")}
        sepa["recipient_country"] = "DE"
        del sepa["description"]
        await client.create_sepa(account_id, m.build(m.SepaTransferCreate, sepa))
        await client.aclose()

    run_on(qloop, many_transfers())
    window, area = open_transfers(open_window, sandbox)
    view = area.view
    area.chooser.choose(client_id, account_id)
    view.kinds.setCurrentIndex(2)  # internal: shows at once

    def listed(count):
        settle(qloop, window)
        assert area.model.rowCount() == count and not area.model.fetching

    listed(50)
    assert view.status.text() == "50 transfers (scroll for more)"
    assert area.model.canFetchMore(QModelIndex())
    area.model.fetchMore(QModelIndex())  # as the user scrolls
    listed(60)
    first = [area.model.data(area.model.index(0, c)) for c in range(area.model.columnCount())]
    assert first[:5] == ["I000", "Done", "1.00", "EUR", "0.00"]
    assert area.model.data(area.model.index(0, STATUS), Qt.ItemDataRole.ForegroundRole) is not None

    # the processing_date filter, from the builder
    today = dt.date.fromisoformat(area.model.items()[0].processing_date[:10])
    view.filter.text.setText(f"processing_date[gte]{today + dt.timedelta(days=1)}")
    view.filter.apply()
    listed(0)
    view.filter.text.setText(f"processing_date[range]{today},{today}")
    view.filter.apply()
    listed(50)

    # one transfer by id, then its details
    view.transfer_id.setText("I042")
    view.lookup_button.click()
    listed(1)
    area.open_details(area.model.index(0, 0))
    assert area.details.values["Transfer ID"] == "I042"
    assert area.details.values["Amount"] == "1.42 EUR"
    assert area.details.values["Status"] == "Done"
    area.details.reject()

    # the SEPA list, and its export
    view.transfer_id.clear()
    view.filter.clear()
    view.kinds.setCurrentIndex(0)
    listed(1)
    assert area.model.data(area.model.index(0, STATUS)) == "In progress"
    settings.setValue("export/folder", str(tmp_path))
    chooser = area.choose_export_file()  # the name it offers says what the file holds
    assert chooser.selectedFiles()[0] == str(
        tmp_path / f"transfers-sepa-{client_id}-{account_id}.csv"
    )
    chooser.close()
    target = tmp_path / "sepa.csv"
    run_on(qloop, area.export_to(target))
    with target.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[1][:5] == ["S-1", "inprogress", "10.00", "EUR", "0.50"]
    assert rows[1][5] == "Hans Muster"

    # F5 after it settled
    advance(sandbox.url, 2)
    window.show_area("Transfers")
    window.refresh_current()
    listed(1)
    assert area.model.data(area.model.index(0, STATUS)) == "Done"


def test_a_form_nothing_was_typed_in_closes_without_asking(qloop, sandbox, open_window):
    client_id, account_id, _other = new_account(qloop, sandbox.url)
    window, area = open_transfers(open_window, sandbox)
    dialog = form_for(area, client_id, account_id, "world")
    settle(qloop, window)  # the currencies listed, the id filled in: nothing typed
    dialog.reject()
    assert dialog.discard is None and not dialog.isVisible()


def test_new_transfer_from_an_account_has_its_source_filled(
    qtbot, qloop, sandbox, settings, open_window
):
    client_id, account_id, _other = new_account(qloop, sandbox.url)
    window, area = open_transfers(open_window, sandbox)
    window.show_area("Accounts")
    accounts = window.area(AccountsArea)
    accounts.show_client(client_id)
    settle(qloop, window)
    assert accounts.view.model.rowCount() == 2
    accounts.view.table.selectRow(0)
    assert accounts.view.transfer_button.isEnabled()
    accounts.view.transfer_button.click()
    assert window.current_area() == "Transfers"
    dialog = area.dialogs[-1]
    assert (dialog.client_id, dialog.account_id) == (client_id, account_id)
    assert dialog.source.text() == f"From account {account_id} of client {client_id}"
    assert (area.chooser.client_id(), area.chooser.account_id()) == (client_id, account_id)
    assert len(dialog.value("id")) == 36  # a UUIDv7, which the user may overwrite
    dialog.done(0)


def test_typing_into_a_country_filled_from_the_iban_replaces_it(qtbot, qloop, sandbox, open_window):
    client_id, account_id, _other = new_account(qloop, sandbox.url)
    _window, area = open_transfers(open_window, sandbox)
    dialog = form_for(area, client_id, account_id)
    fill(dialog, {"recipient_iban": DE_IBAN})
    country = dialog.inputs["recipient_country"]
    assert country.text() == "DE"  # filled from the IBAN
    qtbot.keyClicks(country, "AT")
    assert country.text() == "AT"  # replaced, not "DEAT"
    qtbot.keyClicks(country, "X")
    assert country.text() == "ATX"  # the user's own value now: typing adds to it
    fill(dialog, {"recipient_iban": "FR14 2004 1010 0505 0001 3M02 606"})
    assert country.text() == "ATX"  # and the next IBAN leaves it alone
    dialog.done(0)


def test_while_sending_the_form_says_so_and_nothing_in_it_can_change(
    qtbot, qloop, sandbox, settings, open_window, admin
):
    client_id, account_id, _other = new_account(qloop, sandbox.url)
    window, area = open_transfers(open_window, sandbox)
    dialog = form_for(area, client_id, account_id)
    fill(dialog, SEPA)
    fee_shown(qloop, window, dialog, "Fee: 0.50 EUR")
    # what the status said, and whether anything could be changed as it said it
    said: list[tuple[str, bool, bool]] = []
    dialog.status.shown.connect(
        lambda text: said.append(
            (
                text,
                any(widget.isEnabled() for widget in dialog.inputs.values()),
                dialog.kinds.isEnabled() or dialog.submit_button.isEnabled(),
            )
        )
    )
    send(qloop, window, dialog)
    assert said[0] == ("Sending…", False, False)  # locked while it is on its way
    assert said[-1][0].startswith(f"Transfer {dialog.created.id}: ")
    assert not any(widget.isEnabled() for widget in dialog.inputs.values())  # sent: kept
    dialog.done(0)


def test_the_form_shrinks_back_when_the_rows_of_a_kind_go(
    qtbot, qloop, sandbox, settings, open_window
):
    client_id, account_id, _other = new_account(qloop, sandbox.url)
    window, area = open_transfers(open_window, sandbox)
    dialog = form_for(area, client_id, account_id)
    settle(qloop, window)
    qtbot.wait(0)
    sepa = dialog.height()
    dialog.kinds.setCurrentIndex(1)  # world: bank, charges, priority, currency…
    settle(qloop, window)
    qtbot.wait(0)
    assert dialog.height() > sepa
    dialog.kinds.setCurrentIndex(0)
    settle(qloop, window)
    qtbot.wait(0)
    assert dialog.height() == sepa
    dialog.done(0)


def test_a_transfer_on_its_way_when_signing_in_anew_is_said_unknown_then_sent_once(
    qtbot, qloop, sandbox, settings, open_window, admin, bank
):
    """Its answer held by the server, the transfer's connection is closed by a sign-in anew:
    the box says the desk closed it and the outcome is not known (never that the server
    broke off); Submit again, over the new session, makes the one transfer."""
    client_id, account_id, _other = new_account(qloop, sandbox.url)
    window, area = open_transfers(open_window, sandbox)
    dialog = form_for(area, client_id, account_id)
    fill(dialog, SEPA)
    fee_shown(qloop, window, dialog, "Fee: 0.50 EUR")
    # the transfer's answer comes 5 s late, and nothing is made: the sign-in comes first
    admin.post(
        "/_sandbox/faults",
        json={
            "status": 503,
            "count": 1,
            "mode": "before",
            "method": "POST",
            "path_contains": "/transfers/sepa",
            "delay_ms": 5000,
        },
    )
    profile = window.session.profile

    def sign_in_anew(text: str) -> None:
        if text == "Sending…":
            dialog.status.shown.disconnect(sign_in_anew)
            window.tasks.spawn(window.use_profile(profile, "demo"))

    dialog.status.shown.connect(sign_in_anew)
    send(qloop, window, dialog)
    box = window.presenter.open_boxes[-1]
    assert box.windowTitle() == "No answer"
    assert re.fullmatch(
        re.escape(
            f"The desk closed its connection to {sandbox.url} (signed in anew) before the "
            "answer came: whether it was carried out is not known (x-request-id "
        )
        + r"[0-9a-f]{32}\)\nSend it again: it will not be carried out twice\.",
        box.text(),
    )
    box.button(QMessageBox.StandardButton.Ok).click()
    assert dialog.created is None and count_transfers(bank, account_id) == 0
    assert dialog.submit_button.isEnabled()
    send(qloop, window, dialog)  # Submit again: the same request and key, the new session
    assert dialog.created is not None
    assert count_transfers(bank, account_id) == 1
    assert window.presenter.open_boxes == []
    dialog.done(0)
