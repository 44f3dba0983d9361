"""Upload document… against the sandbox: the round trip, the 10 MiB limit checked before
sending, one upload per action, and a company's documents updated."""

from PySide6.QtWidgets import QMessageBox

from app.ui.clients import ClientsArea
from tests.ui.conftest import settle


def open_upload(qloop, open_window, sandbox, client_id):
    window = open_window(sandbox.url)
    settle(qloop, window)  # the first area, Clients, lists them once the window painted
    clients = window.area(ClientsArea)
    row = next(
        r
        for r in range(clients.model.rowCount())
        if clients.model.data(clients.model.index(r, 0)) == client_id
    )
    clients.view.table.selectRow(row)
    assert clients.view.upload.isEnabled()
    clients.view.upload.click()
    dialog = clients.upload_dialog
    assert dialog is not None and dialog.isVisible()
    return window, clients, dialog


def test_a_document_uploads_once_with_its_metadata(
    qloop, sandbox, open_window, admin, bank, tmp_path
):
    scan = tmp_path / "passport.pdf"
    scan.write_bytes(b"%PDF-1.4 a passport scan")
    window, _clients, dialog = open_upload(qloop, open_window, sandbox, "C0000003")
    assert [dialog.document_type.itemData(i) for i in range(dialog.document_type.count())] == [
        "passport", "id_card", "driving_licence", "residence_permit", "proof_of_address"
    ]  # fmt: skip
    assert not dialog.add_to_documents.isVisible()  # persons have no documents list
    dialog.file.setText(str(scan))
    dialog.inputs["document_number"].setText("LT1234567")
    dialog.inputs["country"].setText("lt")
    dialog.inputs["issued_at"].setText("2024-05-01")
    dialog.inputs["expired_at"].setText("2024-04-30")
    assert dialog.form.rows["expired_at"].problem.text() == "Expires before it was issued"
    assert not dialog.upload_button.isEnabled()
    dialog.inputs["expired_at"].setText("2034-04-30")
    assert dialog.upload_button.isEnabled()
    before = set(bank.attachments)
    admin.post(
        "/_sandbox/faults",
        json={"status": 500, "count": 1, "mode": "after", "path_contains": "/attachments"},
    )
    dialog.upload_button.click()
    settle(qloop, window)
    window.presenter.open_boxes[-1].button(QMessageBox.StandardButton.Ok).click()
    dialog.upload_button.click()  # Upload again: the same upload, replayed
    settle(qloop, window)
    assert dialog.created is not None
    added = set(bank.attachments) - before
    assert added == {dialog.created.id}
    stored = bank.attachments[dialog.created.id]
    assert stored["metadata"] == {
        "document_type": "passport",
        "document_number": "LT1234567",
        "country": "LT",
        "issued_at": "2024-05-01",
        "expired_at": "2034-04-30",
    }
    assert stored["size"] == scan.stat().st_size
    assert dialog.outcome.text().startswith(f"Uploaded passport.pdf as {dialog.created.id};")
    dialog.reject()


def test_an_empty_or_too_large_file_is_refused_before_sending(
    qloop, sandbox, open_window, admin, tmp_path
):
    window, _clients, dialog = open_upload(qloop, open_window, sandbox, "C0000003")
    big = tmp_path / "big.bin"
    big.write_bytes(b"\0" * (10 * 1024 * 1024 + 1))
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    admin.delete("/_sandbox/requests")
    dialog.file.setText(str(big))
    assert dialog.form.rows["file"].problem.text() == "At most 10 MiB (10.0 MiB now)"
    assert not dialog.upload_button.isEnabled()
    dialog.upload()
    dialog.file.setText(str(empty))
    assert dialog.form.rows["file"].problem.text() == "The file is empty"
    dialog.file.setText(str(tmp_path / "missing.pdf"))
    assert dialog.form.rows["file"].problem.text() == "There is no such file"
    settle(qloop, window)
    assert [e for e in admin.get("/_sandbox/requests").json() if e["method"] == "POST"] == []
    dialog.reject()


def test_a_company_document_is_added_to_its_documents(qloop, sandbox, open_window, bank, tmp_path):
    register = tmp_path / "register.pdf"
    register.write_bytes(b"%PDF-1.4 the shareholders")
    window, clients, dialog = open_upload(qloop, open_window, sandbox, "C0000002")
    assert dialog.document_type.itemData(0) == "license"
    assert dialog.add_to_documents.isChecked()
    dialog.file.setText(str(register))
    dialog.document_type.setCurrentIndex(dialog.document_type.findData("share_register"))
    dialog.upload_button.click()
    settle(qloop, window)
    assert dialog.added_to_documents
    documents = bank.clients["C0000002"].details["documents"]
    assert documents[-1] == {"kind": "share_register", "attachment_id": dialog.created.id}
    assert (
        "Added to the documents of Baltic Widgets UAB as share_register." in dialog.outcome.text()
    )
    dialog.reject()
    settle(qloop, window)
    assert "Documents of C0000002 updated" in clients.view.status.text()
