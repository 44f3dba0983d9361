"""A transfer's details in words: labels, not raw keys; amounts and fees in their currency."""

from __future__ import annotations

from app.api.banking.transfers import SepaTransfer, WorldTransfer
from app.ui.transfers.details import TransferDetails, detail_rows


def test_a_sepa_transfer_reads_in_labelled_values(qtbot):
    transfer = SepaTransfer(
        id="S-1",
        amount=1_234_567,
        description="Rent for May",
        recipient_name="Jonas Jonaitis",
        recipient_iban="LT121000011101001000",
        recipient_country="LT",
        recipient_address="Gedimino pr. 1, Vilnius",
        fee={"amount": 4050, "currency": "EUR"},
        beneficiary_bank={
            "bic": "HABALT22",
            "bank": "Swedbank",
            "address": "Konstitucijos pr. 20A",
            "country": "LT",
            "sepa": True,
        },
        status="inprogress",
        processing_date="2026-11-25T17:18:48Z",
    )
    rows = detail_rows(transfer)
    assert rows[:4] == [
        ("Transfer ID", "S-1"),
        ("Status", "In progress"),
        ("Amount", "12,345.67 EUR"),
        ("Fee", "40.50 EUR"),
    ]
    shown = dict(rows)
    assert shown["SEPA"] == "yes" and shown["Recipient's bank"] == "Swedbank"
    assert shown["Recipient IBAN"] == "LT12 1000 0111 0100 1000"  # as on paper
    assert shown["Processing date"] == "2026-11-25 17:18:48 UTC"
    assert not any("." in label or "_" in label for label, _value in rows)  # no raw keys
    dialog = TransferDetails(transfer)
    qtbot.addWidget(dialog)
    assert dialog.values["Fee"] == "40.50 EUR"


def test_a_world_transfer_names_its_charges_and_an_unknown_field_in_words(qtbot):
    transfer = WorldTransfer(
        id="W-1",
        amount=500,
        currency="JPY",
        charges_type="our",
        description="Parts",
        recipient_name="Sato",
        recipient_account="123456",
        recipient_country="JP",
        recipient_address="Tokyo",
        beneficiary_bank={"bic": "MHCBJPJT", "clearing_code": "0001"},
        fee={"amount": 2500, "currency": "EUR"},
        status="done",
    )
    shown = dict(detail_rows(transfer))
    assert shown["Amount"] == "500 JPY"  # the yen has no minor unit
    assert shown["Fee"] == "25.00 EUR"
    assert shown["Charges"] == "our — the sender pays all"
    assert shown["Beneficiary bank clearing code"] == "0001"
    assert shown["Priority"] == "standard"
