"""Upload document…: a file and its metadata for a client, as the attachments operation takes
them (multipart), checked before anything is sent. For a company the upload can be added to
its documents at once, with a partial update. The dialog owns the upload's action key: a retry
or Upload again never uploads twice."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialogButtonBox,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.api.action import ActionKey
from app.api.errors import ApiError, InvalidInput
from app.core import checks, limits
from app.ui.common.form import FormRows, ReasonLabel
from app.ui.common.names import NamedDialog, named
from app.ui.shell.areas import AreaContext

if TYPE_CHECKING:
    import asyncio

    from app.api.banking import AttachmentCreated, ClientV2

PERSON_DOCUMENTS = ("passport", "id_card", "driving_licence", "residence_permit",
                    "proof_of_address")  # fmt: skip
COMPANY_DOCUMENTS = ("license", "share_register", "director_register", "trade_register")
MiB = 1024 * 1024


class AttachmentDialog(NamedDialog):
    def __init__(
        self, context: AreaContext, client: ClientV2, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._context = context
        self._presenter = context.presenter
        self._tasks = context.tasks
        self.client = client
        self.company = client.client_type == "COMPANY"
        self.action = ActionKey()
        self.created: AttachmentCreated | None = None
        self.added_to_documents = False
        self._task: asyncio.Task[None] | None = None
        self.setObjectName("attachmentDialog")
        self.setWindowTitle(f"Upload a document of {client.id}")
        self.setMinimumWidth(820)

        grid = QGridLayout()
        self.form = FormRows(grid)
        self.file = QLineEdit()
        self.file.setPlaceholderText("the file to upload")
        browse = named(QPushButton("Choose…"), "attachment.choose", "Choose the file")
        browse.clicked.connect(self.choose_file)
        file_row = QWidget()
        file_layout = QHBoxLayout(file_row)
        file_layout.setContentsMargins(0, 0, 0, 0)
        file_layout.addWidget(self.file, 1)
        file_layout.addWidget(browse)
        self.document_type = QComboBox()
        for kind in COMPANY_DOCUMENTS if self.company else PERSON_DOCUMENTS:
            self.document_type.addItem(kind.replace("_", " "), kind)
        self.inputs: dict[str, QLineEdit] = {}
        self.form.add("file", "File", file_row, name="attachment.fileRow")
        named(self.file, "attachment.file", "File")
        self.form.add("document_type", "Document type", self.document_type)
        for key, label, placeholder in (
            ("document_number", "Document number (optional)", ""),
            ("country", "Issuing country (optional)", "e.g. LT"),
            ("issued_at", "Issued (optional)", "yyyy-mm-dd"),
            ("expired_at", "Expires (optional)", "yyyy-mm-dd"),
            ("additional", "Notes (optional)", ""),
        ):
            edit = QLineEdit()
            edit.setPlaceholderText(placeholder or "optional")
            self.inputs[key] = edit
            self.form.add(key, label, edit, name=f"attachment.{key}")
        self.file.textChanged.connect(lambda _text: self.form.mark_edited("file"))
        self.add_to_documents = named(
            QCheckBox(f"Add it to the documents of {_name(client)}"),
            "attachment.addToDocuments",
            "Add it to the client's documents",
        )
        self.add_to_documents.setChecked(True)
        self.add_to_documents.setVisible(self.company)
        self.outcome = QLabel("")
        self.outcome.setObjectName("attachmentResult")
        self.outcome.setWordWrap(True)
        self.outcome.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        upload = self.buttons.addButton("Upload", QDialogButtonBox.ButtonRole.ActionRole)
        assert upload is not None
        self.upload_button = upload
        self.upload_button.setDefault(True)
        self.upload_button.clicked.connect(self.upload)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(grid)
        layout.addWidget(self.add_to_documents)
        layout.addWidget(self.outcome)
        self.reason = ReasonLabel()
        footer = QHBoxLayout()
        footer.addWidget(self.reason, 1)
        footer.addWidget(self.buttons)
        layout.addLayout(footer)
        self.form.edited.connect(lambda _key: self.refresh())
        self.refresh()

    def choose_file(self) -> QFileDialog:
        dialog = QFileDialog(self, "Choose the document")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.fileSelected.connect(self.file.setText)
        dialog.open()  # never exec(): the loop keeps running
        return dialog

    # -- checks

    def metadata(self) -> dict[str, Any]:
        values: dict[str, Any] = {"document_type": self.document_type.currentData()}
        for key, edit in self.inputs.items():
            text = edit.text().strip()
            if text:
                values[key] = text.upper() if key == "country" else text
        return values

    def problems(self) -> dict[str, str]:
        found: dict[str, str] = {}
        path = Path(self.file.text().strip()) if self.file.text().strip() else None
        if path is None:
            found["file"] = "Required: choose the file"
        elif not path.is_file():
            found["file"] = "There is no such file"
        else:
            size = path.stat().st_size
            if size == 0:
                found["file"] = "The file is empty"
            elif size > limits.ATTACHMENT_BYTES.high:
                found["file"] = f"At most 10 MiB ({size / MiB:.1f} MiB now)"
        values = {key: edit.text().strip() for key, edit in self.inputs.items()}
        bounds = {"document_number": limits.DOCUMENT_NUMBER, "additional": limits.ADDITIONAL}
        for key, bound in bounds.items():
            problem = checks.length(values[key], bound, required=False)
            if problem:
                found[key] = problem
        if values["country"] and (problem := checks.country(values["country"])):
            found["country"] = problem
        days: dict[str, dt.date] = {}
        for key in ("issued_at", "expired_at"):
            if values[key]:
                problem = checks.date(values[key])
                if problem:
                    found[key] = problem
                else:
                    days[key] = dt.date.fromisoformat(values[key])
        if len(days) == 2 and days["issued_at"] > days["expired_at"]:
            found["expired_at"] = "Expires before it was issued"
        return found

    def refresh(self) -> None:
        reason = self.form.show(self.problems())
        if self.created is not None:
            reason = "Uploaded: close the dialog, or open it again for another document"
        busy = self._task is not None and not self._task.done()
        self.upload_button.setEnabled(not reason and not busy)
        self.upload_button.setToolTip(reason)
        self.reason.setText(reason)

    # -- upload

    def upload(self) -> None:
        if self._task is not None and not self._task.done():
            return
        self.form.tried = True
        self.refresh()
        if not self.upload_button.isEnabled():
            return
        self._task = self._tasks.spawn(self._upload())
        self.refresh()

    async def _upload(self) -> None:
        import asyncio  # here, not at the top: the window shows before asyncio loads

        from app.api.banking import AttachmentMetadata, build

        path = Path(self.file.text().strip())
        metadata = self.metadata()
        try:
            model = build(AttachmentMetadata, metadata)
            # read off the GUI thread, and never more than the limit allows
            content, stamp = await asyncio.to_thread(_read_bounded, path)
        except (InvalidInput, OSError) as exc:
            error = exc if isinstance(exc, InvalidInput) else InvalidInput("file", str(exc))
            self._presenter.show(error)
            self._done_busy()
            return
        request = (metadata, str(path), stamp)

        async def upload(sent: tuple[dict[str, Any], str, Any], key: str) -> AttachmentCreated:
            if sent != request:  # the last upload's outcome is unknown: that one goes again
                sent_path = Path(sent[1])
                file, _stamp = await asyncio.to_thread(_read_bounded, sent_path)
                return await self._context.banking.create_attachment(
                    build(AttachmentMetadata, sent[0]),
                    file,
                    filename=sent_path.name,
                    request_id=key,
                )
            return await self._context.banking.create_attachment(
                model, content, filename=path.name, request_id=key
            )

        try:
            created = await self.action.send(request, upload)
        except (ApiError, OSError) as exc:
            failure = exc if isinstance(exc, ApiError) else InvalidInput("file", str(exc))
            self._presenter.show(failure, self.upload)
            self._done_busy()
            return
        path = Path(self.action.last_request[1])  # the file that went
        self.created = created
        expires = created.expired_at.replace("T", " ").removesuffix("Z")
        self.outcome.setText(
            f"Uploaded {path.name} as {created.id}; it can be referred to until {expires} UTC."
        )
        if self.company and self.add_to_documents.isChecked():
            await self._add_to_documents(created)
        self._done_busy()

    async def _add_to_documents(self, created: AttachmentCreated) -> None:
        from app.api.banking import ClientV2Update, build

        company = self.client.company
        assert company is not None
        known = [d.model_dump(mode="json") for d in company.documents or []]
        kind = str(created.metadata.get("document_type", self.document_type.currentData()))
        documents = [*known, {"kind": kind, "attachment_id": created.id}]
        if len(documents) > limits.DOCUMENTS.high:
            self.outcome.setText(
                f"{self.outcome.text()}\nNot added to the documents: a company has at most "
                f"{limits.DOCUMENTS.high}."
            )
            return
        request = {"client_type": "COMPANY", "company": {"documents": documents}}
        client_id = self.client.id
        try:
            self.client = await ActionKey().send(
                request,
                lambda sent, key: self._context.banking.update_client_v2(
                    client_id, build(ClientV2Update, sent), request_id=key
                ),
            )
        except ApiError as exc:
            self.outcome.setText(f"{self.outcome.text()}\nNot added to the documents: {exc}")
            self._presenter.show(exc)
            return
        self.added_to_documents = True
        self.outcome.setText(
            f"{self.outcome.text()}\nAdded to the documents of {_name(self.client)} as {kind}."
        )

    def _done_busy(self) -> None:
        self._task = None
        self.refresh()


def _read_bounded(path: Path) -> tuple[bytes, tuple[int, int]]:
    """The file's content, never more than the limit, and its size and modification time
    (what makes a second upload of it the same request)."""
    with path.open("rb") as handle:
        content = handle.read(limits.ATTACHMENT_BYTES.high + 1)
        stat = path.stat()
    if not content:
        raise InvalidInput("file", "The file is empty")
    if len(content) > limits.ATTACHMENT_BYTES.high:
        raise InvalidInput("file", "larger than the 10 MiB limit")
    return content, (stat.st_size, stat.st_mtime_ns)


def _name(client: ClientV2) -> str:
    if client.company is not None:
        return client.company.name
    if client.person is not None:
        return f"{client.person.first_name} {client.person.last_name}"
    return client.id
