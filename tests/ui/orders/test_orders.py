"""The Orders area driven as a person would: the new order form and the matrix, card entry,
capture, refund, reversal and charge from the detail, and card data kept out of every trace."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import logging
import uuid
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import httpx
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from app.core.gateway.matrix import Item, conflicts
from app.sandbox.app import SandboxSettings
from app.sandbox.server import BackgroundSandbox
from app.ui.orders import OrdersArea
from app.ui.orders.order_form import CAPABILITIES, SCENARIOS, OrderDialog
from app.ui.shell.main_window import MainWindow
from tests.conftest import advance
from tests.ui.conftest import run_on, settle

VISA = "4111111111111111"


@pytest.fixture(scope="module")
def gateway_sandbox() -> Iterator[BackgroundSandbox]:
    """The orders' own sandbox: its clock is moved by days here."""
    server = BackgroundSandbox(SandboxSettings(frozen_clock=True, demo_statement_records=0))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def window(gateway_sandbox, open_window) -> MainWindow:
    return open_window(gateway_sandbox.url, size=(1400, 900))


def orders(window: MainWindow) -> OrdersArea:
    area = window.area(OrdersArea)
    window.show_area(OrdersArea.NAME)
    return area


def answer(qloop, window, holder, name: str, button=QMessageBox.StandardButton.Yes) -> None:
    """Answer the confirmation box the area or dialog asks (once its work before asking is
    done), and wait until what the answer sets going is done."""
    settle(qloop, window)
    box = getattr(holder, name)
    assert box is not None, f"no {name} asked"
    box.done(button)
    settle(qloop, window)


def open_form(qloop, window, area: OrdersArea) -> OrderDialog:
    area.new_order()
    settle(qloop, window)  # open, and what it lists (taxes, customers) listed
    dialog = area.order_dialog
    assert dialog is not None and dialog.isVisible()
    return dialog


def fill_basic(dialog: OrderDialog, *, price: str = "25.50", email: str = "phone@ex.lt") -> None:
    dialog.set_text("client.email", email)
    row = dialog.products[0]
    row.title.setText("Concert ticket")
    row.price.setText(price)
    row.quantity.setText("2")
    dialog.refresh()


def create(qloop, window, area: OrdersArea, dialog: OrderDialog):
    assert dialog.create_button.isEnabled(), (dialog.reason.text(), dialog.general_problem.text())
    dialog.create_button.click()
    answer(qloop, window, dialog, "confirmation")
    assert area.order_dialog is None
    assert dialog.created is not None
    assert area.current is not None and area.current.id == dialog.created.id
    return dialog.created


def pay_with_card(
    qloop,
    window,
    area: OrdersArea,
    number: str = VISA,
    cvv: str = "123",
    *,
    close: bool = True,
    **extra,
):
    """Pay the current order by card; the number, code and status then shown, or with
    ``close`` false the card dialog, still open."""
    area.view.detail.action_buttons["pay"].click()
    settle(qloop, window)
    card = area.card_dialog
    assert card is not None and card.isVisible()
    if number:
        card.card_choice.setCurrentIndex(0)
        card.number.setText("")
        card.number.insert(number)
        card._regroup(card.number.text())
        card.month.setText("12")
        card.year.setText(str(dt.date.today().year + 3))
    card.cvv.setText(cvv)
    for name, value in extra.items():
        getattr(card, name).setChecked(value)
    card.refresh()
    assert card.pay_button.isEnabled(), card.reason.text()
    card.pay_button.click()
    answer(qloop, window, card, "confirmation")
    assert card.paid is not None
    if not close:
        return card
    shown = card.number.text(), card.cvv.text(), card.status.text()
    assert card.reason.text() == ""  # paid: nothing is left to correct
    assert all(not row.problem.text() for row in card.form.rows.values())
    card.done(0)
    settle(qloop, window)
    assert area.card_dialog is None
    assert area.current.status != "new"
    return shown


# ---------------------------------------------------------------- the matrix in the form


FORM_ITEMS = [*CAPABILITIES]


def test_the_form_offers_exactly_the_matrix_combinations(qtbot, qloop, window):
    area = orders(window)
    dialog = open_form(qloop, window, area)
    dialog.saving.setCurrentText("one-click")
    names = [name for name, _ in SCENARIOS]
    # every scenario against every capability: choosing the scenario keeps or disables the box
    for name, items in SCENARIOS:
        dialog.choose_scenario(name)
        dialog.refresh()
        for capability in CAPABILITIES:
            expected = not any(
                capability in pair[:2]
                for pair in conflicts(set(items) | {capability}, saved_as="one-click")
            )
            assert dialog.capability_boxes[capability].isEnabled() == expected, (name, capability)
            if not expected:
                assert "cannot be combined" in dialog.capability_boxes[capability].toolTip()
    dialog.choose_scenario("One-Step")
    # every pair of capabilities: ticking one keeps or disables the other, as the matrix says
    for first, second in itertools.permutations(CAPABILITIES, 2):
        box = dialog.capability_boxes[first]
        if not box.isEnabled():
            continue
        box.setChecked(True)
        dialog.refresh()
        chosen = {Item.OS, first}
        saved_as = "one-click"  # the saving choice shown
        expected = not any(
            second in pair[:2] for pair in conflicts(chosen | {second}, saved_as=saved_as)
        )
        assert dialog.capability_boxes[second].isEnabled() == expected, (first, second)
        # and the scenarios that cannot go with it are not offered
        model = dialog.scenario.model()
        for index, (name, items) in enumerate(SCENARIOS):
            if name == "One-Step":
                continue
            allowed = not any(pair for pair in conflicts(set(items) | {first}, saved_as=saved_as))
            assert model.item(index).isEnabled() == allowed, (first, name)
        box.setChecked(False)
    assert names[0] == "One-Step"
    dialog.done(0)


def test_travel_data_with_saving_only_when_saved_as_one_click_or_automatic(qtbot, qloop, window):
    dialog = open_form(qloop, window, orders(window))
    dialog.capability_boxes[Item.PMS].setChecked(True)
    dialog.saving.setCurrentText("recurring")
    dialog.refresh()
    travel = dialog.capability_boxes[Item.TD]
    assert not travel.isEnabled()
    assert "only when saved as one-click or automatic" in travel.toolTip()
    dialog.saving.setCurrentText("automatic")
    dialog.refresh()
    assert travel.isEnabled()
    dialog.done(0)


def test_fields_are_checked_as_typed_and_create_waits(qtbot, qloop, window):
    dialog = open_form(qloop, window, orders(window))
    fill_basic(dialog, price="10.505")
    assert not dialog.create_button.isEnabled()
    assert "EUR amounts have 2 decimal places" in dialog.products[0].problem.text()
    dialog.products[0].price.setText("0")
    dialog.refresh()
    assert "at least 0.01" in dialog.products[0].problem.text()
    dialog.products[0].price.setText("10,50")
    dialog.refresh()
    assert dialog.create_button.isEnabled()
    assert dialog.total.text() == "Total: 21.00 EUR"
    dialog.capability_boxes[Item.DD].setChecked(True)
    dialog.set_text("dynamic_descriptor", "X" * 26)
    dialog.refresh()
    assert not dialog.create_button.isEnabled()
    assert (
        dialog._rows_of["dynamic_descriptor"].rows["dynamic_descriptor"].problem.text()
        == "At most 25 characters (26 now)"
    )
    dialog.set_text("dynamic_descriptor", "SHOP*TICKETS")
    dialog.capability_boxes[Item.TD].setChecked(True)
    dialog.travel_member.setCurrentIndex(1)  # lodging
    dialog.set_text("travel_data.lodging.booking_number", "B-1")
    dialog.set_text("travel_data.lodging.checkin_date", "20261301")
    dialog.set_text("travel_data.lodging.checkout_date", "20261203")
    dialog.refresh()
    assert not dialog.create_button.isEnabled()
    dialog.set_text("travel_data.lodging.checkin_date", "20261201")
    dialog.refresh()
    assert dialog.create_button.isEnabled(), dialog.reason.text()
    dialog.done(0)


# ---------------------------------------------------------------- the phone order end to end


def test_a_phone_order_end_to_end_and_the_card_leaves_no_trace(
    qtbot, qloop, window, settings, gateway_sandbox, caplog
):
    caplog.set_level(logging.DEBUG)
    area = orders(window)
    dialog = open_form(qloop, window, area)
    fill_basic(dialog)
    dialog.new_customer_button.click()
    settle(qloop, window)
    assert dialog.text("client.original_client") != ""
    dialog.capability_boxes[Item.MO].setChecked(True)
    dialog.refresh()
    order = create(qloop, window, area, dialog)
    assert order.capabilities == ["moto"] and order.amount == Decimal("51.00")
    detail = area.view.detail
    assert detail.fields["status"].text() == "New"
    order_id = detail.fields["id"]
    assert order_id.text() == order.id and order_id.objectName() == "detail:id"
    assert order_id.textInteractionFlags() & Qt.TextInteractionFlag.TextSelectableByMouse
    number, cvv, status = pay_with_card(qloop, window, area, "4111 1111 1111 1111", cvv="")
    assert number == "" and cvv == ""
    assert status.endswith(": Charged, card •••• 1111.")
    assert area.current.status == "charged"
    assert detail.fields["card"].text() == "visa •••• 1111"
    assert detail.fields["captured"].text() == "51.00 EUR"
    # the full number is nowhere: logs, the request log, settings, journal files, widgets
    settings.sync()
    traces = [caplog.text, Path(settings.fileName()).read_text(encoding="utf-8")]
    traces += [
        path.read_text(encoding="utf-8", errors="replace")
        for path in window.context.data_dir.iterdir()
        if path.is_file()
    ]
    traces += [
        str(window.request_log.model.data(window.request_log.model.index(r, c)))
        for r in range(window.request_log.model.rowCount())
        for c in range(window.request_log.model.columnCount())
    ]
    traces.append(httpx.get(f"{gateway_sandbox.url}/_sandbox/requests").text)
    from PySide6.QtWidgets import QApplication, QLabel, QLineEdit

    for widget in QApplication.allWidgets():
        if isinstance(widget, QLineEdit | QLabel):
            traces.append(widget.text())
    for text in traces:
        assert VISA not in text.replace(" ", "")
    assert area.journal.ids()[0] == order.id


@pytest.mark.parametrize(
    ("number", "outcome", "colour", "meaning"),
    [
        ("4000 0000 0000 0002", "Declined", "#b3261e", "declined"),
        ("5555 5555 5555 4444", "Charged", "#1b7f3b", "accepted"),
    ],
)
def test_a_payments_outcome_reads_in_its_colour_and_icon(
    qtbot, qloop, window, number, outcome, colour, meaning
):
    area = orders(window)
    dialog = open_form(qloop, window, area)
    fill_basic(dialog)
    create(qloop, window, area, dialog)
    card = pay_with_card(qloop, window, area, number, close=False)
    assert card.status.text().startswith(f"Order {card.paid.id}: {outcome}, card ")
    assert f"color: {colour}" in card.status.styleSheet()  # not black text
    assert card.status_icon.accessibleDescription() == meaning
    assert not card.status_icon.pixmap().isNull()
    assert not any(row.widget.isEnabled() for row in card.form.rows.values())  # all of it sent
    assert not card.by_merchant.isEnabled() and not card.card_choice.isEnabled()
    card.done(0)
    settle(qloop, window)
    assert area.view.detail.fields["status"].text() == outcome


def test_opening_an_order_asks_for_it_once(qtbot, qloop, window, gateway_sandbox):
    area = orders(window)
    dialog = open_form(qloop, window, area)
    fill_basic(dialog)
    order = create(qloop, window, area, dialog)
    settle(qloop, window)

    def asked() -> int:
        journal = httpx.get(f"{gateway_sandbox.url}/_sandbox/requests").json()
        return sum(
            1
            for each in journal
            if each["method"] == "GET" and each["path"].rstrip("/").endswith(f"/{order.id}")
        )

    assert asked() == 0  # the created order came whole with the answer: not asked again
    table = area.view.table  # the ID read whole in the list, the history's lines whole too
    assert table.horizontalHeader().sectionSize(0) > table.fontMetrics().horizontalAdvance(order.id)
    history = area.view.detail.history
    assert history.wordWrap() and history.item(0).toolTip() == history.item(0).text()
    area.view.order_id.setText(order.id)
    area.look_up()
    settle(qloop, window)
    assert area.view.detail.fields["id"].text() == order.id
    assert asked() == 1
    area.view.detail.copy_button.click()
    assert QApplication.clipboard().text() == order.id
    assert area.view.status.text() == f"Copied the order ID {order.id}"
    pay_with_card(qloop, window, area)  # the payment's answer is the order as it is now
    assert area.current.status == "charged"
    assert asked() == 1


def test_the_details_buttons_keep_their_places_whatever_the_orders_state(qtbot, qloop, window):
    from PySide6.QtCore import QPoint

    area = orders(window)
    detail = area.view.detail
    buttons = [detail.copy_button, *detail.action_buttons.values()]

    def places() -> list[QPoint]:
        qtbot.wait(0)  # laid out
        return [button.mapTo(detail, QPoint(0, 0)) for button in buttons]

    dialog = open_form(qloop, window, area)
    fill_basic(dialog, price="50.00")
    dialog.choose_scenario("Two-Step")
    dialog.refresh()
    create(qloop, window, area, dialog)
    new = places()  # a new order: most values empty, every action refused with a reason
    window.activateWindow()
    detail.action_buttons["pay"].setFocus()  # the button clicked has the focus
    pay_with_card(qloop, window, area)
    scrolled = area.view.detail.parentWidget().parentWidget()  # the detail's scroll area
    assert type(scrolled).__name__ == "QScrollArea"
    assert scrolled.verticalScrollBar().value() == 0  # not scrolled to another field
    assert area.current.status == "hold"  # reserved, until a date, days left: longer values
    assert places() == new
    area.view.detail.show_order(None, {}, dt.datetime.now(dt.UTC))
    assert places() == new


def test_two_step_capture_in_part_then_refunds_and_a_second_capture_is_not_offered(
    qtbot, qloop, window
):
    area = orders(window)
    dialog = open_form(qloop, window, area)
    fill_basic(dialog, price="50.00")
    dialog.choose_scenario("Two-Step")
    dialog.refresh()
    order = create(qloop, window, area, dialog)
    assert order.scenario == "two_step"
    pay_with_card(qloop, window, area)
    detail = area.view.detail
    assert area.current.status == "hold"
    assert "days left" in detail.fields["reserved"].text()
    assert detail.action_buttons["capture"].isEnabled()
    detail.action_buttons["capture"].click()
    settle(qloop, window)
    assert area.amount_dialog is not None
    amounts = area.amount_dialog
    assert amounts.amount.text() == "100.00"
    amounts.amount.setText("100.01")
    assert not amounts.ok_button.isEnabled()
    amounts.amount.setText("60")
    assert amounts.consequence.text() == "Released: 40.00 EUR"
    amounts.accept()
    settle(qloop, window)
    assert area.confirmation is not None
    assert "40.00 EUR will be released" in area.confirmation.text()
    answer(qloop, window, area, "confirmation")
    assert area.current.status == "charged"
    assert detail.fields["captured"].text() == "60.00 EUR"
    history = [detail.history.item(i).text() for i in range(detail.history.count())]
    assert "Released  40.00 EUR" in history[-1]
    assert not detail.action_buttons["capture"].isEnabled()
    assert detail.action_buttons["capture"].toolTip() == "Already captured: a capture is made once"
    # a partial refund, then the rest
    detail.action_buttons["refund"].click()
    settle(qloop, window)
    assert area.amount_dialog is not None
    refund = area.amount_dialog
    refund.full.setChecked(False)
    refund.amount.setText("60.01")
    assert not refund.ok_button.isEnabled()
    refund.amount.setText("15")
    refund.accept()
    answer(qloop, window, area, "confirmation")
    assert area.current.status == "partially_refunded"
    assert detail.fields["refunded"].text() == "15.00 EUR"
    detail.action_buttons["refund"].click()
    settle(qloop, window)
    assert area.amount_dialog is not None
    assert area.amount_dialog.full.isChecked()
    area.amount_dialog.full.setChecked(False)
    area.amount_dialog.amount.setText("45.00")  # all that remains, typed: a full refund
    area.amount_dialog.accept()
    settle(qloop, window)
    assert area.confirmation is not None
    assert area.confirmation.text() == "Refund 45.00 EUR in full to the cardholder?"
    answer(qloop, window, area, "confirmation")
    assert area.current.status == "refunded"
    assert detail.fields["refunded"].text() == "60.00 EUR"
    assert not detail.action_buttons["refund"].isEnabled()


def test_reverse_today_and_not_the_next_day(qtbot, qloop, window, gateway_sandbox):
    area = orders(window)
    dialog = open_form(qloop, window, area)
    fill_basic(dialog)
    first = create(qloop, window, area, dialog)
    pay_with_card(qloop, window, area)
    detail = area.view.detail
    assert detail.action_buttons["reverse"].isEnabled()
    detail.action_buttons["reverse"].click()
    answer(qloop, window, area, "confirmation")
    assert area.current.status == "reversed"
    dialog = open_form(qloop, window, area)
    fill_basic(dialog)
    second = create(qloop, window, area, dialog)
    pay_with_card(qloop, window, area)
    assert first.id != second.id
    advance(gateway_sandbox.url, days=1)
    area.refresh()
    settle(qloop, window)
    assert area.current.paid_at is not None
    run_on(qloop, area.reload(second.id))
    reverse = detail.action_buttons["reverse"]
    assert not reverse.isEnabled()
    assert reverse.toolTip() == "Only on the day of payment: refund it instead"


def test_a_refusal_forced_through_the_sandbox_shows_the_contracts_box(
    qtbot, qloop, window, gateway_sandbox
):
    area = orders(window)
    dialog = open_form(qloop, window, area)
    fill_basic(dialog)
    order = create(qloop, window, area, dialog)
    pay_with_card(qloop, window, area)
    # behind the desk's back, the order is refunded in full
    httpx.post(
        f"{gateway_sandbox.url}/gateway/orders/{order.id}/refund/",
        auth=("demo", "demo"),
        headers={"x-request-id": uuid.uuid4().hex},
    ).raise_for_status()
    area.view.detail.action_buttons["refund"].click()
    settle(qloop, window)
    assert area.amount_dialog is not None
    area.amount_dialog.accept()
    answer(qloop, window, area, "confirmation")
    presenter = window.presenter
    assert presenter.open_boxes
    box = presenter.open_boxes[-1]
    assert box.windowTitle() == "Operation not allowed"
    message, error_line = box.text().split("\n")
    assert message == "The order is refunded: there is no payment to refund"
    assert error_line.startswith("Error: ") and len(error_line) == len("Error: ") + 36
    box.done(0)
    assert area.current.status == "refunded"


def test_service_side_saving_then_charge_and_one_click_from_the_windows(qtbot, qloop, window):
    area = orders(window)
    dialog = open_form(qloop, window, area)
    dialog.set_text("client.email", "saver@ex.lt")
    dialog.new_customer_button.click()
    settle(qloop, window)
    assert dialog.text("client.original_client") != ""
    customer_id = dialog.text("client.original_client")
    dialog.choose_scenario("Zero-Amount")
    dialog.capability_boxes[Item.PMS].setChecked(True)
    dialog.saving.setCurrentText("recurring")
    dialog.refresh()
    verify = create(qloop, window, area, dialog)
    assert verify.scenario == "zero_amount"
    pay_with_card(qloop, window, area, "5555555555554444")
    assert area.current.status == "verified"
    # a Recurring order for that customer is charged from the detail
    dialog = open_form(qloop, window, area)
    fill_basic(dialog, email="saver@ex.lt")
    dialog.set_text("client.original_client", customer_id)
    dialog.choose_scenario("Recurring")
    dialog.refresh()
    recurring = create(qloop, window, area, dialog)
    assert recurring.capabilities == ["recurring"]
    detail = area.view.detail
    assert detail.fields["scenario"].text() == "Recurring"  # not One-Step
    assert shown_scenario(area, recurring.id) == "Recurring"
    assert detail.action_buttons["charge"].isEnabled()
    detail.action_buttons["charge"].click()
    answer(qloop, window, area, "confirmation")
    assert area.current.status == "charged"
    assert detail.fields["card"].text() == "mastercard •••• 4444"
    # the customer's saved cards, masked
    area.open_customers()
    customers = area.customers_dialog
    customers.customer_id.setText(customer_id)
    run_on(qloop, customers.look_up())
    assert customers.cards.rowCount() == 1
    assert customers.cards.data(customers.cards.index(0, 0)) == "mastercard •••• 4444"
    customers.done(0)


def test_taxes_are_created_listed_and_added_to_the_total(qtbot, qloop, window):
    area = orders(window)
    area.open_taxes()
    taxes = area.taxes_dialog
    taxes.name.setText("VAT")
    taxes.percent.setText("101")
    taxes.refresh()
    assert not taxes.create_button.isEnabled()
    taxes.percent.setText("21")
    taxes.refresh()
    taxes.create_button.click()
    settle(qloop, window)
    assert taxes.model.rowCount() >= 1
    assert taxes.model.data(taxes.model.index(taxes.model.rowCount() - 1, 1)) == "21.00%"
    taxes.done(0)
    dialog = open_form(qloop, window, area)
    assert dialog.taxes
    fill_basic(dialog, price="10.00")
    dialog.capability_boxes[Item.TX].setChecked(True)
    dialog.products[0].tax.setCurrentIndex(dialog.products[0].tax.count() - 1)
    dialog.refresh()
    assert dialog.total.text() == "Total: 24.20 EUR"
    order = create(qloop, window, area, dialog)
    assert order.amount == Decimal("24.20") and order.capabilities == ["taxes"]


def test_without_the_list_extension_the_list_shows_the_desks_journal(
    qtbot, qloop, window, gateway_sandbox, monkeypatch
):
    from app.api.errors import UnexpectedStatus

    area = orders(window)
    dialog = open_form(qloop, window, area)
    fill_basic(dialog, email="journal@ex.lt")
    made = create(qloop, window, area, dialog)
    looked_up = httpx.post(
        f"{gateway_sandbox.url}/gateway/orders/",
        json={"client": {}, "currency": "EUR", "products": [{"title": "T", "price": 1}]},
        auth=("demo", "demo"),
        headers={"x-request-id": uuid.uuid4().hex},
    ).json()
    area.view.order_id.setText(looked_up["id"])
    area.look_up()
    settle(qloop, window)
    assert area.current is not None and area.current.id == looked_up["id"]

    async def no_list(**_query):
        raise UnexpectedStatus("HTTP 404 Not Found", status=404)

    monkeypatch.setattr(window.session.gateway, "list_orders", no_list)
    area.show_orders()
    settle(qloop, window)
    assert area.model.rowCount() >= 2
    ids = [order.id for order in area.model.items()]
    assert ids[:2] == [looked_up["id"], made.id]
    assert "made or looked up from this desk" in area.view.status.text()
    # the journal holds the orders' ids and nothing else (no card data, no amounts)
    journal = json.loads(
        (window.context.data_dir / "order-journal.json").read_text(encoding="utf-8")
    )
    assert set(journal) == {looked_up["id"], made.id}
    # signed in anew (the same gateway, now with its list): the gateway is asked again
    monkeypatch.undo()
    area.signed_in()
    settle(qloop, window)
    assert area.model.rowCount() >= 2
    assert "from this desk" not in area.view.status.text()


def test_the_request_log_names_the_gateways_paths_and_the_desk_reads_the_services_time(
    qtbot, qloop, window, gateway_sandbox
):
    area = orders(window)
    area.show_orders()
    settle(qloop, window)
    model = window.request_log.model
    paths = [str(model.data(model.index(row, 2))) for row in range(model.rowCount())]
    assert "/gateway/orders/" in paths
    before = window.session.gateway.transport.server_now()
    advance(gateway_sandbox.url, days=3)
    area.show_orders()
    settle(qloop, window)
    moved = window.session.gateway.transport.server_now() - before
    assert dt.timedelta(days=2, hours=23) < moved < dt.timedelta(days=3, hours=1)


def test_account_funding_asks_for_every_field_at_once_in_plain_words(qtbot, qloop, window):
    dialog = open_form(qloop, window, orders(window))
    fill_basic(dialog)
    dialog.capability_boxes[Item.AF].setChecked(True)
    dialog.set_text("recipient_client.birth_date", "31.01.1990")
    dialog.set_text("recipient_client.country", "L")
    for rows in dialog.rows:
        rows.tried = True
    dialog.refresh()
    problems, _general = dialog.problems()
    for name in ("first_name", "last_name", "address", "city", "country"):
        assert problems[f"client.{name}"] == "Required for Account Funding", name
    # the state is the contract's only with cards of Canada and the USA: said, not required
    assert "client.state" not in problems
    state = dialog._rows_of["client.state"].rows["client.state"].problem
    assert state.text() == "Needed when the card is issued in Canada or the USA"
    assert problems["recipient_client.first_name"] == "Required"
    assert problems["recipient_client.birth_date"] == "A date yyyy-mm-dd"
    assert problems["recipient_client.country"] == "Enter a two-letter country code such as LT"
    # every message in the user's words, each field named with its part of the form
    assert not any("String should" in text or "^" in text for text in problems.values())
    reason = dialog.reason.text()
    assert reason.startswith("13 things to correct first: Cardholder: First name; ")
    assert "Recipient: First name; " in reason and "Recipient: Birth date" in reason
    assert "State" not in reason
    dialog.done(0)


def test_a_saving_choice_the_matrix_forbids_is_not_offered(qtbot, qloop, window):
    dialog = open_form(qloop, window, orders(window))
    dialog.choose_scenario("Zero-Amount")
    dialog.capability_boxes[Item.PMS].setChecked(True)
    dialog.saving.setCurrentText("one-click")
    dialog.capability_boxes[Item.TD].setChecked(True)
    dialog.refresh()
    model = dialog.saving.model()
    offered = {model.item(i).text(): model.item(i).isEnabled() for i in range(model.rowCount())}
    assert offered["one-click"] and offered["automatic"]
    assert not offered["recurring"]
    assert "only when saved as one-click or automatic" in model.item(2).toolTip()
    dialog.done(0)


def test_one_click_and_automatic_follow_ups_from_the_windows(qtbot, qloop, window):
    area = orders(window)
    # a customer whose card is saved for one-click, then one saved for automatic charges
    dialog = open_form(qloop, window, area)
    fill_basic(dialog, email="follow@ex.lt")
    dialog.new_customer_button.click()
    settle(qloop, window)
    assert dialog.text("client.original_client") != ""
    customer_id = dialog.text("client.original_client")
    dialog.capability_boxes[Item.PMS].setChecked(True)
    dialog.saving.setCurrentText("one-click")
    dialog.refresh()
    create(qloop, window, area, dialog)
    pay_with_card(qloop, window, area, "378282246310005", cvv="1234")
    assert area.current.cof_trace_id
    # One-Click: the saved card is offered masked; the cardholder types the CVV
    dialog = open_form(qloop, window, area)
    fill_basic(dialog, email="follow@ex.lt")
    dialog.set_text("client.original_client", customer_id)
    dialog.choose_scenario("One-Click")
    dialog.refresh()
    one_click = create(qloop, window, area, dialog)
    assert one_click.capabilities == ["one_click"]
    detail = area.view.detail
    assert not detail.action_buttons["charge"].isEnabled()
    detail.action_buttons["pay"].click()
    settle(qloop, window)
    assert area.card_dialog is not None and area.card_dialog.isVisible()
    card = area.card_dialog
    assert card.card_choice.currentText() == "American Express •••• 0005"
    card.refresh()
    assert not card.pay_button.isEnabled() and card.reason.text().endswith("CVV")
    card.cvv.setText("1234")
    card.refresh()
    card.pay_button.click()
    answer(qloop, window, card, "confirmation")
    assert card.paid is not None
    card.done(0)
    settle(qloop, window)
    assert area.current.status == "charged"
    assert detail.fields["card"].text() == "amex •••• 0005"
    # Recurring (Automatic): a card saved for automatic use, charged from the detail
    dialog = open_form(qloop, window, area)
    fill_basic(dialog, email="follow@ex.lt")
    dialog.set_text("client.original_client", customer_id)
    dialog.capability_boxes[Item.PMS].setChecked(True)
    dialog.saving.setCurrentText("automatic")
    dialog.refresh()
    create(qloop, window, area, dialog)
    pay_with_card(qloop, window, area, "5555555555554444")
    dialog = open_form(qloop, window, area)
    fill_basic(dialog, email="follow@ex.lt")
    dialog.set_text("client.original_client", customer_id)
    dialog.choose_scenario("Recurring (Automatic)")
    dialog.refresh()
    automatic = create(qloop, window, area, dialog)
    assert automatic.capabilities == ["recurring_automatic"]
    assert detail.fields["scenario"].text() == "Recurring (Automatic)"
    detail.action_buttons["charge"].click()
    answer(qloop, window, area, "confirmation")
    assert area.current.status == "charged"
    assert detail.fields["card"].text() == "mastercard •••• 4444"


def test_the_card_number_and_code_can_be_neither_copied_nor_selected_and_go_on_close(
    qtbot, qloop, window
):
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtGui import QClipboard, QGuiApplication

    area = orders(window)
    dialog = open_form(qloop, window, area)
    fill_basic(dialog)
    create(qloop, window, area, dialog)
    area.view.detail.action_buttons["pay"].click()
    settle(qloop, window)
    card = area.card_dialog
    clipboard = QGuiApplication.clipboard()
    modes = [QClipboard.Mode.Clipboard, QClipboard.Mode.Selection]
    for mode in modes:
        clipboard.setText("before", mode)
    before = {mode: clipboard.text(mode) for mode in modes}
    card.number.setText("4111 1111 1111 1111")
    card.cvv.setText("123")
    for field in (card.number, card.cvv):
        field.setFocus()
        # every way a person selects: the keyboard, a double click, a drag, Tab into it
        qtbot.keyClick(field, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        qtbot.keyClick(field, Qt.Key.Key_Home, Qt.KeyboardModifier.ShiftModifier)
        qtbot.keyClick(field, Qt.Key.Key_Left, Qt.KeyboardModifier.ShiftModifier)
        qtbot.mouseDClick(field, Qt.MouseButton.LeftButton)
        qtbot.mousePress(field, Qt.MouseButton.LeftButton, pos=QPoint(4, 8))
        qtbot.mouseMove(field, QPoint(field.width() - 4, 8))
        qtbot.mouseRelease(field, Qt.MouseButton.LeftButton, pos=QPoint(field.width() - 4, 8))
        field.selectAll()
        assert not field.hasSelectedText()
        qtbot.keyClick(field, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
        qtbot.keyClick(field, Qt.Key.Key_X, Qt.KeyboardModifier.ControlModifier)
        field.copy()
        field.cut()
        assert field.contextMenuPolicy() == Qt.ContextMenuPolicy.NoContextMenu
        assert not field.dragEnabled()
    assert card.number.text() == "4111 1111 1111 1111" and card.cvv.text() == "123"
    assert {mode: clipboard.text(mode) for mode in modes} == before
    card.done(0)  # closed unpaid: nothing of the card stays in the widgets
    assert card.number.text() == "" and card.cvv.text() == ""
    assert not card.number.isUndoAvailable() and not card.cvv.isUndoAvailable()
    settle(qloop, window)


def test_f5_lists_each_order_once_with_one_load(qtbot, qloop, window, gateway_sandbox):
    area = orders(window)
    for email in ("f5-a@ex.lt", "f5-b@ex.lt", "f5-c@ex.lt"):
        dialog = open_form(qloop, window, area)
        fill_basic(dialog, email=email)
        create(qloop, window, area, dialog)
    area.show_orders()
    settle(qloop, window)
    area.view.table.selectRow(1)  # an order is shown in the detail, as after a look-up
    assert area.current is not None
    httpx.delete(f"{gateway_sandbox.url}/_sandbox/requests")
    for _ in range(3):  # F5, again and again before the list is back
        window.refresh_current()
    settle(qloop, window)
    ids = [order.id for order in area.model.items()]
    assert len(ids) == len(set(ids)) >= 3
    journal = httpx.get(f"{gateway_sandbox.url}/_sandbox/requests").json()
    answered = [e for e in journal if e["path"] == "/gateway/orders/" and e["method"] == "GET"]
    assert len(answered) <= 3  # the loads overtaken were dropped, none added rows


def test_without_a_browser_the_3ds_address_is_shown_with_copy_and_never_logged(
    qtbot, qloop, window, caplog
):
    from PySide6.QtGui import QGuiApplication

    caplog.set_level(logging.DEBUG)
    area = orders(window)
    dialog = open_form(qloop, window, area)
    fill_basic(dialog)
    create(qloop, window, area, dialog)
    pay_with_card(qloop, window, area, "4000 0000 0000 3220")  # a card that asks for 3-D Secure
    assert area.current.status == "pending_3ds"
    address = area.current.three_ds_url
    token = address.rstrip("/").rsplit("/", 1)[-1]
    assert area.view.detail.three_ds_button.isEnabled()
    area.view.detail.three_ds_button.click()  # this offscreen screen has no browser
    box = area.no_browser
    assert box is not None and box.isVisible()
    assert box.windowTitle() == "No browser"
    assert box.text() == (
        "No browser could be opened on this computer. Open the 3-D Secure page in one; its "
        f"address is its key, for this order only:\n{address}"
    )
    copy = next(b for b in box.buttons() if b.text() == "Copy address")
    copy.click()
    assert QGuiApplication.clipboard().text() == address
    assert token not in caplog.text
    assert "no browser could be opened for the 3-D Secure page" in caplog.text


def test_a_customer_with_a_bad_e_mail_is_refused_in_the_users_words(qtbot, qloop, window):
    area = orders(window)
    area.open_customers()
    customers = area.customers_dialog
    customers.email.setText("not-an-email")
    customers.create_button.click()
    settle(qloop, window)
    box = window.presenter.open_boxes[-1]
    assert (box.windowTitle(), box.text()) == (
        "Invalid input",
        "E-mail: Enter an e-mail address like name@example.com",
    )
    box.done(0)
    customers.done(0)


def shown_scenario(area, order_id: str) -> str | None:
    """The Scenario cell of the order's row in the orders list (None when not listed)."""
    from app.ui.orders.model import COLUMNS

    model = area.model
    column = COLUMNS.index("Scenario")
    for row in range(model.rowCount()):
        if model.data(model.index(row, 0)) == order_id:
            return model.data(model.index(row, column))
    return None


def test_a_checkout_address_that_is_no_web_page_is_refused_not_opened(qtbot, qloop, window):
    area = orders(window)
    dialog = open_form(qloop, window, area)
    fill_basic(dialog)
    create(qloop, window, area, dialog)
    area.current = area.current.model_copy(update={"checkout_url": "file:///etc/passwd"})
    area.view.detail.checkout_button.click()
    assert area.no_browser is None  # nothing was handed to the system
    box = window.presenter.open_boxes[-1]
    assert (box.windowTitle(), box.text()) == (
        "Invalid input",
        "checkout_url: 'file:///etc/passwd' is not a web page: it was not opened",
    )
    box.done(0)
