"""Create and edit dialogs for persons and companies.

One form serves both kinds, built from field specs. Input is checked against the contract's
limits (the service layer's models) before anything is sent; the problem is shown next to the
field. An edit sends only what changed; emptying an optional field clears it (null). The
dialog keeps its x-request-id: a resubmit after a failure cannot create a second client.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from app.api.errors import ApiError, InvalidInput
from app.ui.errors import ErrorPresenter
from app.ui.tasks import TaskGroup

if TYPE_CHECKING:
    import asyncio

    from app.api.models import ClientV2, NaceCodeEntry


@dataclass(frozen=True)
class Field:
    path: tuple[str, ...]  # where the value goes in the person/company object
    label: str
    required: bool = True
    placeholder: str = ""
    max_length: int = 140
    upper: bool = False  # codes: country, currency


def _address(prefix: str, title: str) -> list[Field]:
    return [
        Field((prefix, "street"), f"{title}: street"),
        Field((prefix, "city"), f"{title}: city", max_length=70),
        Field((prefix, "postal_code"), f"{title}: postal code", max_length=16),
        Field((prefix, "country"), f"{title}: country", placeholder="LT", max_length=2, upper=True),
    ]


PERSON_FIELDS: list[Field] = [
    Field(("first_name",), "First name", max_length=100),
    Field(("middle_name",), "Middle name", required=False, max_length=100),
    Field(("last_name",), "Last name", max_length=100),
    Field(("birth_date",), "Birth date", placeholder="yyyy-mm-dd", max_length=10),
    Field(
        ("nationality",), "Nationality", required=False, placeholder="LT", max_length=2, upper=True
    ),
    Field(("email",), "E-mail", placeholder="name@example.lt", max_length=254),
    Field(("contact_mobile_number",), "Mobile", placeholder="+37061234567", max_length=16),
    Field(("external_id",), "External ID", required=False, max_length=64),
    *_address("address", "Address"),
    Field(("tax_id", "number"), "Tax ID: number", max_length=32),
    Field(("tax_id", "country"), "Tax ID: country", placeholder="LT", max_length=2, upper=True),
    Field(("ip",), "IP address", placeholder="192.0.2.10", max_length=15),
]
COMPANY_FIELDS: list[Field] = [
    Field(("name",), "Name"),
    Field(("registration_number",), "Registration number", max_length=64),
    Field(("incorporation_date",), "Incorporation date", placeholder="yyyy-mm-dd", max_length=10),
    Field(("tax_id", "number"), "Tax ID: number", max_length=32),
    Field(("tax_id", "country"), "Tax ID: country", placeholder="LT", max_length=2, upper=True),
    Field(("vat_number",), "VAT number", required=False, max_length=32),
    Field(("nace_code",), "NACE code"),
    *_address("registered_address", "Registered address"),
    Field(("email",), "E-mail", placeholder="office@example.lt", max_length=254),
    Field(("contact_mobile_number",), "Phone", placeholder="+37052000000", max_length=16),
    Field(("external_id",), "External ID", required=False, max_length=64),
    Field(("website",), "Website", required=False, max_length=255),
]

Submit = Callable[[dict[str, Any], str], Awaitable["ClientV2"]]


def _get(data: dict[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = data
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


class ClientDialog(QDialog):
    """``kind`` is "person" or "company"; ``original`` (the object as the service has it)
    makes it an edit dialog."""

    def __init__(
        self,
        kind: str,
        submit: Submit,
        presenter: ErrorPresenter,
        tasks: TaskGroup,
        request_id: str,
        *,
        original: dict[str, Any] | None = None,
        nace_codes: Sequence[NaceCodeEntry] = (),
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.kind = kind
        self.original = original
        self.request_id = request_id  # one per action, kept for every retry
        self._submit = submit
        self._presenter = presenter
        self._tasks = tasks
        self.result_client: ClientV2 | None = None
        self.fields = PERSON_FIELDS if kind == "person" else COMPANY_FIELDS
        editing = original is not None
        noun = "person" if kind == "person" else "company"
        self.setWindowTitle(f"Edit {noun}" if editing else f"New {noun}")
        self.setObjectName("clientDialog")
        self.setMinimumWidth(520)

        form = QFormLayout()
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.reference = QLineEdit()
        self.reference.setObjectName("external_reference")
        self.reference.setMaxLength(64)
        self.reference.setPlaceholderText("reference in the external registration system")
        if not editing:
            form.addRow("External reference:", self.reference)
        self.inputs: dict[tuple[str, ...], QLineEdit | QComboBox] = {}
        for field in self.fields:
            widget: QLineEdit | QComboBox
            if field.path == ("nace_code",):
                widget = QComboBox()
                widget.setEditable(True)
                for entry in nace_codes:
                    widget.addItem(f"{entry.code} {entry.title}", entry.code)
                widget.setCurrentIndex(-1)
                widget.setMinimumContentsLength(30)
            else:
                widget = QLineEdit()
                widget.setMaxLength(field.max_length)
                widget.setPlaceholderText(
                    field.placeholder or ("optional" if not field.required else "")
                )
            widget.setObjectName(".".join(field.path))
            self.inputs[field.path] = widget
            label = field.label + ("" if field.required else " (optional)")
            form.addRow(f"{label}:", widget)
        self.problem = QLabel("")
        self.problem.setObjectName("dialogProblem")
        self.problem.setStyleSheet("color: #b3261e;")
        self.problem.setWordWrap(True)
        self.changes = QLabel("")
        self.changes.setObjectName("dialogChanges")
        self.changes.setWordWrap(True)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.changes)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        if original is not None:
            self._fill(original)
        for widget in self.inputs.values():
            signal = (
                widget.textChanged if isinstance(widget, QLineEdit) else widget.currentTextChanged
            )
            signal.connect(self._show_changes)
        self._task: asyncio.Task[None] | None = None

    # -- values

    def _fill(self, original: dict[str, Any]) -> None:
        for path, widget in self.inputs.items():
            value = _get(original, path)
            text = "" if value is None else str(value)
            if isinstance(widget, QComboBox):
                index = widget.findData(text)
                if index >= 0:
                    widget.setCurrentIndex(index)
                else:
                    widget.setEditText(text)
            else:
                widget.setText(text)

    def _text(self, path: tuple[str, ...]) -> str:
        widget = self.inputs[path]
        if isinstance(widget, QComboBox):
            index = widget.currentIndex()
            if index >= 0 and widget.currentText() == widget.itemText(index):
                return str(widget.itemData(index))
            return widget.currentText().strip().split(" ", 1)[0] if widget.currentText() else ""
        return widget.text().strip()

    def form_values(self) -> dict[str, Any]:
        """Everything filled in, as the object the service takes (empty fields left out)."""
        values: dict[str, Any] = {}
        for field in self.fields:
            text = self._text(field.path)
            if field.upper:
                text = text.upper()
            if not text:
                continue
            target = values
            for key in field.path[:-1]:
                target = target.setdefault(key, {})
            target[field.path[-1]] = text
        return values

    def changed_values(self) -> dict[str, Any]:
        """For an edit: only the properties that changed; an emptied one is sent as null."""
        assert self.original is not None
        now = self.form_values()
        changes: dict[str, Any] = {}
        for key in dict.fromkeys(field.path[0] for field in self.fields):
            before = self.original.get(key)
            after = now.get(key)
            if isinstance(before, dict) and isinstance(after, dict):
                merged = {**before, **after}
                after = merged if merged != before else before
            if _normal(after) != _normal(before):
                changes[key] = after  # None when emptied: clears a nullable property
        return changes

    def _show_changes(self) -> None:
        if self.original is None:
            return
        changes = self.changed_values()
        if not changes:
            self.changes.setText("No changes: saving sends nothing new.")
            return
        described = [f"{key} (cleared)" if value is None else key for key, value in changes.items()]
        self.changes.setText("Will send: " + ", ".join(described))

    # -- saving

    def save(self) -> None:
        if self._task is not None and not self._task.done():
            return
        self._task = self._tasks.spawn(self._save())

    async def _save(self) -> None:
        client_type = "COMPANY" if self.kind == "company" else "PERSON"
        if self.original is None:
            body = {
                "external_reference": self.reference.text().strip(),
                "client_type": client_type,
                self.kind: self.form_values(),
            }
        else:
            body = {"client_type": client_type, self.kind: self.changed_values()}
        self.buttons.setEnabled(False)
        self._mark(None)
        try:
            self.result_client = await self._submit(body, self.request_id)
        except InvalidInput as exc:
            self._mark(exc)
            return
        except ApiError as exc:
            # the form keeps its data and its request id: Save again is the same action
            self._presenter.show(exc, retry=self.save)
            return
        finally:
            self.buttons.setEnabled(True)
        self.accept()

    def _mark(self, problem: InvalidInput | None) -> None:
        for each in [*self.inputs.values(), self.reference]:
            each.setStyleSheet("")
        if problem is None:
            self.problem.setText("")
            return
        self.problem.setText(str(problem))
        path = tuple(part for part in problem.field.split(".") if part not in (self.kind, "client"))
        widget: QWidget | None = self.inputs.get(path) or (
            self.reference if path == ("external_reference",) else None
        )
        if widget is not None:
            widget.setStyleSheet("border: 1px solid #b3261e;")
            widget.setFocus()


def _normal(value: Any) -> Any:
    """Values compared as text, the way the form holds them."""
    if isinstance(value, dict):
        return {k: _normal(v) for k, v in value.items() if v is not None}
    return None if value is None or value == "" else str(value)
