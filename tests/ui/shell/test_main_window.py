"""The main window against the real sandbox, driven as a user would."""

import re

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication, QMessageBox

from app.ui.iban import IbanArea
from tests.ui.conftest import settle


def test_signs_in_and_shows_health(qloop, sandbox, open_window):
    window = open_window(sandbox.url)
    settle(qloop, window)  # the first area's list, asked for once the window painted
    assert window.connection_label.text() == f"Test sandbox ({sandbox.url})"  # its name
    assert window.signed_in_label.text() == "Signed in as demo"
    assert window.health_label.text() == "Health: ok"
    assert re.fullmatch(r"x-request-id: [0-9a-f]{32}", window.request_id_label.text())
    log = window.request_log.model
    paths = [log.data(log.index(r, 2)) for r in range(log.rowCount())]
    # the sign-in asks for the list the Clients area shows first; the health comes after it
    assert paths == ["/v2/clients", "/v2/clients", "/v1/healthcheck"]
    last_id = log.data(log.index(2, 4))
    assert window.request_id_label.text() == f"x-request-id: {last_id}"


def test_iban_lookup_validates_offline_then_shows_the_api_bank_data(
    qtbot, qloop, sandbox, open_window
):
    window = open_window(sandbox.url)
    view = window.area(IbanArea).view
    qtbot.keyClicks(view.input, "DE89 3704 0044 0532 0130 01")
    assert view.validity.text() == (
        "Invalid IBAN DE89370400440532013001: the check digits do not match: "
        "a character is mistyped"
    )
    view.input.clear()
    qtbot.keyClicks(view.input, "de89 3704 0044 0532 0130 00")
    assert view.validity.text() == "Valid IBAN (DE, bank code 37040044)"
    qtbot.keyClick(view.input, Qt.Key.Key_Return)
    settle(qloop, window)
    assert view.fields["source"].text() == "Bank data from the API"
    assert view.fields["iban"].text() == "DE89 3704 0044 0532 0130 00"
    assert view.fields["bic"].text() == "COBADEFFXXX"
    assert view.fields["bank"].text() == "Commerzbank"
    assert view.fields["sepa"].text() == "yes"


def test_iban_unknown_to_the_api_shows_the_400_box(qtbot, qloop, sandbox, open_window):
    window = open_window(sandbox.url)
    view = window.area(IbanArea).view
    qtbot.keyClicks(view.input, "DE80100900011234567890")  # valid, but no bank has that code
    view.lookup_button.click()
    settle(qloop, window)
    assert len(window.presenter.open_boxes) == 1
    box = window.presenter.open_boxes[0]
    assert box.windowTitle() == "Unknown bank"
    assert re.fullmatch(
        r"No bank data for DE80100900011234567890: its bank code 10090001 is not in the "
        r"registry\nError: [0-9a-f-]{36}",
        box.text(),
    )
    assert box.standardButtons() == QMessageBox.StandardButton.Ok
    assert view.fields["source"].text() == "Offline registry; the API answered: Unknown bank"
    assert view.lookup_button.isEnabled()
    box.button(QMessageBox.StandardButton.Ok).click()
    assert not window.presenter.open_boxes


def test_empty_lookup_asks_for_an_iban(sandbox, open_window):
    window = open_window(sandbox.url)
    window.area(IbanArea).view.lookup_button.click()
    assert window.area(IbanArea).view.validity.text() == "Enter an IBAN to look up."


def test_unreachable_service_shows_in_the_health(open_window):
    def failing_start() -> str:
        raise OSError("address in use")

    window = open_window(failing_start, name="Broken sandbox")
    assert window.connection_label.text() == "Broken sandbox: failed to start (address in use)"
    box = window.presenter.open_boxes[-1]
    assert box.windowTitle() == "Connection failed"
    assert box.text().startswith("Broken sandbox failed to start: address in use")
    box.done(0)


def test_geometry_is_remembered(sandbox, open_window):
    window = open_window(sandbox.url)
    window.resize(window.minimumSizeHint().width() + 5, 540)
    width = window.width()
    window.close()
    again = open_window(sandbox.url, connect=False)
    assert again.height() == 540  # not the first start's 760
    # the width too, as far as the (offscreen, 800 pixels) screen lets it be restored
    screen = again.screen().availableGeometry().width()
    assert again.width() == width or width > screen - 10 <= again.width()


def test_ctrl_q_quits(qtbot, sandbox, open_window):
    window = open_window(sandbox.url, connect=False)
    qtbot.waitExposed(window)
    window.activateWindow()  # shortcuts go to the active window
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    assert window.quit_action.shortcut() == QKeySequence("Ctrl+Q")
    qtbot.keyClick(window, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
    assert not window.isVisible()


def test_an_invalid_iban_clears_the_previous_bank_data(sandbox, open_window):
    window = open_window(sandbox.url)
    view = window.area(IbanArea).view
    view.input.setText("DE89 3704 0044 0532 0130 00")
    assert view.fields["bic"].text() == "COBADEFFXXX"  # offline, as typed
    view.input.setText("DE89 3704 0044 0532 0130 01")
    assert all(label.text() == "—" for label in view.fields.values())


def test_the_title_and_the_about_box_carry_the_version(sandbox, open_window):
    import tomllib
    from pathlib import Path

    with open(Path(__file__).parents[3] / "pyproject.toml", "rb") as handle:
        expected = tomllib.load(handle)["project"]["version"]
    window = open_window(sandbox.url)
    assert window.windowTitle() == f"Partner Desk {expected}"
    window.show_about()
    assert window.about_box is not None and f"Partner Desk {expected}" in window.about_box.text()
    window.about_box.done(0)


def test_ctrl_n_creates_in_the_area_shown_even_from_the_list_of_areas(
    qtbot, qloop, sandbox, open_window
):
    from PySide6.QtCore import Qt

    from app.ui.clients import ClientsArea
    from app.ui.orders import OrdersArea
    from tests.ui.conftest import settle

    window = open_window(sandbox.url)
    window.show_area("Orders")  # built, then hidden behind the next area
    window.show_area("Clients")
    settle(qloop, window)
    window.navigation.setFocus()  # as after a click in the list of areas, or Ctrl+1
    qtbot.keyClick(window.navigation, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    settle(qloop, window)
    clients = window.area(ClientsArea)
    assert clients.dialog is not None and clients.dialog.isVisible()
    assert window.area(OrdersArea).order_dialog is None  # the hidden area's is not
    clients.dialog.reject()
    settle(qloop, window)


def test_the_menus_show_the_way_every_area_and_what_can_be_created_with_its_keys(
    qtbot, qloop, sandbox, open_window
):
    from app.ui.orders import OrdersArea
    from app.ui.shell.areas import AREAS
    from tests.ui.conftest import settle

    window = open_window(sandbox.url)
    menus = {action.text(): action.menu() for action in window.menuBar().actions()}
    assert list(menus) == ["&File", "&Go", "&View", "&Connection", "&Help"]
    go = [(a.text(), a.shortcut().toString()) for a in menus["&Go"].actions() if a.text()]
    assert go == [("Go to…", "Ctrl+K"), *((spec.name, spec.shortcut) for spec in AREAS)]
    new = [a.text() for a in menus["&File"].actions() if a.text().startswith("New")]
    assert new == ["New person…", "New company…", "New transfer…", "New order…"]

    def keys_beside() -> dict[str, str]:
        return {
            a.text(): a.shortcut().toString()
            for a in menus["&File"].actions()
            if a.text().startswith("New")
        }

    window.show_area("Clients")
    assert keys_beside() == {
        "New person…": "Ctrl+N",
        "New company…": "",
        "New transfer…": "",
        "New order…": "",
    }
    window.show_area("Orders")
    assert keys_beside()["New order…"] == "Ctrl+N" and keys_beside()["New person…"] == ""
    # from another area, New order… goes to Orders and opens its form
    from app.ui.shell.harness import find_action

    find_action(window, "action.go.clients").trigger()
    assert window.current_area() == "Clients"
    find_action(window, "action.new.order").trigger()
    settle(qloop, window)
    assert window.current_area() == "Orders"
    orders = window.area(OrdersArea)
    assert orders.order_dialog is not None and orders.order_dialog.isVisible()
    orders.order_dialog.reject()
    settle(qloop, window)
