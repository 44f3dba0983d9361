"""The README's screenshots, made from the embedded sandbox by driving the windows as a person
would: in every run of the suite into the test's folder (so that a window that no longer
shows what the picture shows fails here), and into docs/screenshots with
`make screenshots` (PARTNER_DESK_SCREENSHOTS names the folder), remade when the windows
change."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from app.sandbox.banking.demo import DEMO_PERSON_ID
from app.ui.clients import ClientsArea
from app.ui.shell.harness import picture_of
from app.ui.transfers import TransfersArea
from tests.ui.conftest import settle
from tests.ui.orders.test_orders import create, fill_basic, open_form, orders, pay_with_card

SIZE = (1280, 800)  # a laptop's window
FOLDER_ENV = "PARTNER_DESK_SCREENSHOTS"


@pytest.fixture
def shots(tmp_path) -> Path:
    folder = Path(os.environ.get(FOLDER_ENV) or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def window(sandbox, open_window):
    return open_window(sandbox.url, size=SIZE)


def saved(image: QImage, folder: Path, name: str) -> Path:
    """The picture saved as PNG, once it is seen to be a whole window, not a blank."""
    assert (image.width(), image.height()) == SIZE
    small = image.scaled(64, 40)
    colours = {small.pixel(x, y) for x in range(64) for y in range(40)}
    assert len(colours) > 20, "a blank picture"
    path = folder / f"{name}.png"
    assert image.save(str(path), "PNG")
    return path


def test_clients(qloop, window, shots):
    clients = window.area(ClientsArea)
    window.show_area("Clients")
    clients.show_client(DEMO_PERSON_ID)
    settle(qloop, window)
    assert clients.model.rowCount() >= 45  # the demo clients, more as one scrolls
    assert clients.selected() is not None and clients.selected().id == DEMO_PERSON_ID
    assert saved(picture_of(window), shots, "clients").stat().st_size > 20_000


def test_a_transfer_with_its_live_fee(qloop, window, shots):
    area = window.area(TransfersArea)
    window.show_area("Transfers")
    area.chooser.choose(DEMO_PERSON_ID, "LT594010000000000001")
    settle(qloop, window)
    area.show_transfers()
    dialog = area.new_transfer(DEMO_PERSON_ID, "LT594010000000000001")
    values = {
        "amount": "1 234,50",
        "recipient_name": "Hans Muster",
        "recipient_iban": "DE89 3704 0044 0532 0130 00",
        "recipient_address": "Friedrichstraße 10, 10117 Berlin",
        "description": "Invoice 2026-117",
    }
    for key, text in values.items():
        dialog.set_value(key, text)
    settle(qloop, window)
    assert dialog.fee.text() == "Fee: 0.50 EUR"
    assert dialog.total.text().startswith("Total to be debited: 1,235.00 EUR")
    saved(picture_of(window, dialog), shots, "transfer")
    dialog.reject()
    dialog.discard.button(dialog.discard.StandardButton.Discard).click()
    settle(qloop, window)


def test_an_order_paid_by_card(qloop, window, shots):
    area = orders(window)
    dialog = open_form(qloop, window, area)
    fill_basic(dialog, email="ruta@example.lt")
    create(qloop, window, area, dialog)
    pay_with_card(qloop, window, area, "5555 5555 5555 4444")
    assert area.view.detail.fields["status"].text() == "Charged"
    assert area.view.detail.fields["card"].text() == "mastercard •••• 4444"
    saved(picture_of(window), shots, "order")


def test_the_go_to_box(qtbot, qloop, window, shots):
    dialog = window.open_go_to()
    qtbot.keyClicks(dialog.input, "petr")
    settle(qloop, window)
    assert dialog.list_label.text() == "Matches:" and dialog.recent.count() > 0
    dialog.recent.setCurrentRow(0)
    first = dialog.recent.item(0).data(Qt.ItemDataRole.UserRole)
    assert first
    saved(picture_of(window, dialog), shots, "go-to")
    dialog.reject()
    settle(qloop, window)


def test_the_readme_opens_with_the_pictures_made_here():
    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text(encoding="utf-8")
    before_set_up = readme.split("## Set up", 1)[0]
    for name in ("clients", "transfer", "order", "go-to"):
        assert f"](docs/screenshots/{name}.png)" in before_set_up
        assert (root / "docs" / "screenshots" / f"{name}.png").stat().st_size > 20_000


def test_a_payment_file_previewed(qloop, window, shots, tmp_path):
    from tests.pain_files import payment, payment_file

    rows = [payment(n) for n in range(1, 12)]
    rows.append(payment(12, IBAN="BR1500000000000010932840814P2"))
    file = tmp_path / "payments-2026-11.xml"
    file.write_bytes(payment_file("LT594010000000000001", rows, validate=False))
    window.show_area("Transfers")
    dialog = window.area(TransfersArea).open_import(file)
    settle(qloop, window)
    assert dialog.send_button.text() == "Send 11 payments…"
    saved(picture_of(window, dialog), shots, "payment-import")
    dialog.reject()
    settle(qloop, window)
