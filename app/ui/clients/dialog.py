"""Create and edit dialogs for persons and companies.

One form serves both kinds, built from field specs. Every field is checked as it is typed
against the contract's limits, and each problem is shown beside its field in plain words, all
at once; Save stays disabled (saying why) until the form can be sent. An edit sends only what
changed; emptying an optional field clears it (null); with no change there is nothing to send.

The dialog owns its action key: every retry, the re-run after signing in again and Save again
send the same request with the same x-request-id. When a Save's outcome is unknown and the
user then edits the form, the first request is sent again with its key first — so the service
says what became of it — and the edit goes on top of that, as an update: never two clients.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.api.action import ActionKey
from app.api.errors import ApiError, InvalidInput
from app.core import checks, limits
from app.core.checks import Check
from app.core.limits import Bound
from app.ui.common.form import (
    INVALID_STYLE,
    PROBLEM_STYLE,
    FormRows,
    ReasonLabel,
    ask_before_discarding,
)
from app.ui.common.names import NamedDialog
from app.ui.shell.areas import AreaContext

if TYPE_CHECKING:
    import asyncio

    from app.api.banking import ClientV2, NaceCodeEntry

_NO_BOUND = Bound(0, 10)


@dataclass(frozen=True)
class Field:
    path: tuple[str, ...]  # where the value goes in the person/company object
    label: str
    bound: Bound
    required: bool = True
    placeholder: str = ""
    check: Check | None = None  # the format, once the length is right
    upper: bool = False  # codes: country


def _country(path: tuple[str, ...], label: str, *, required: bool = True) -> Field:
    return Field(path, label, limits.COUNTRY, required, "e.g. LT", checks.country, upper=True)


def _date(path: tuple[str, ...], label: str) -> Field:
    return Field(path, label, _NO_BOUND, True, "yyyy-mm-dd", checks.date)


def _address(prefix: str, title: str) -> list[Field]:
    return [
        Field((prefix, "street"), f"{title}: street", limits.STREET),
        Field((prefix, "city"), f"{title}: city", limits.CITY),
        Field((prefix, "postal_code"), f"{title}: postal code", limits.POSTAL_CODE),
        Field(
            (prefix, "country"),
            f"{title}: country",
            limits.COUNTRY,
            True,
            "LT",
            checks.country,
            True,
        ),
    ]


def _tax_id() -> list[Field]:
    return [
        Field(("tax_id", "number"), "Tax ID: number", limits.TAX_NUMBER),
        Field(
            ("tax_id", "country"),
            "Tax ID: country",
            limits.COUNTRY,
            True,
            "LT",
            checks.country,
            True,
        ),
    ]


PERSON_FIELDS: list[Field] = [
    Field(("first_name",), "First name", limits.PERSON_NAME),
    Field(("middle_name",), "Middle name", limits.MIDDLE_NAME, required=False),
    Field(("last_name",), "Last name", limits.PERSON_NAME),
    _date(("birth_date",), "Birth date"),
    _country(("nationality",), "Nationality", required=False),
    Field(("email",), "E-mail", limits.EMAIL, True, "e.g. name@example.lt", checks.email),
    Field(
        ("contact_mobile_number",), "Mobile", limits.PHONE, True, "e.g. +37061234567", checks.phone
    ),
    Field(("external_id",), "External ID", limits.EXTERNAL_ID, required=False),
    *_address("address", "Address"),
    *_tax_id(),
    Field(("ip",), "IP address", limits.IP, True, "e.g. 192.0.2.10", checks.ipv4),
]
COMPANY_FIELDS: list[Field] = [
    Field(("name",), "Name", limits.COMPANY_NAME),
    Field(("registration_number",), "Registration number", limits.REGISTRATION_NUMBER),
    Field(
        ("incorporation_date",), "Incorporation date", _NO_BOUND, True, "yyyy-mm-dd", checks.date
    ),
    *_tax_id(),
    Field(("vat_number",), "VAT number", limits.VAT_NUMBER, required=False),
    Field(("nace_code",), "NACE code", limits.NACE_CODE),
    *_address("registered_address", "Registered address"),
    Field(("email",), "E-mail", limits.EMAIL, True, "e.g. office@example.lt", checks.email),
    Field(
        ("contact_mobile_number",), "Phone", limits.PHONE, True, "e.g. +37052000000", checks.phone
    ),
    Field(("external_id",), "External ID", limits.EXTERNAL_ID, required=False),
    Field(("website",), "Website", limits.WEBSITE, required=False),
]
REFERENCE = ("external_reference",)


def _get(data: dict[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = data
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


class ClientDialog(NamedDialog):
    """``kind`` is "person" or "company"; ``client_id`` and ``original`` (the object as the
    service has it) make it an edit dialog."""

    def __init__(
        self,
        kind: str,
        context: AreaContext,
        *,
        client_id: str | None = None,
        original: dict[str, Any] | None = None,
        nace_codes: Sequence[NaceCodeEntry] = (),
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.kind = kind
        self.client_id = client_id
        self.original = original
        self.action = ActionKey()  # one per action, kept for every retry
        self._context = context
        self._presenter = context.presenter
        self._tasks = context.tasks
        self.result_client: ClientV2 | None = None
        self.notice = ""  # what the area tells the user once the dialog closed
        self.fields = PERSON_FIELDS if kind == "person" else COMPANY_FIELDS
        self.setObjectName("clientDialog")
        self.setMinimumWidth(860)

        grid = QGridLayout()
        self.form = FormRows(grid)
        self.inputs: dict[tuple[str, ...], QLineEdit | QComboBox] = {}
        self.reference = QLineEdit()
        self.reference.setPlaceholderText("reference in the registration system")
        self._reference_row = self.form.add(
            REFERENCE, "External reference", self.reference, name="external_reference"
        )
        for field in self.fields:
            widget: QLineEdit | QComboBox
            if field.path == ("nace_code",):
                widget = self._nace_picker(nace_codes)
            else:
                widget = QLineEdit()
                widget.setPlaceholderText(
                    field.placeholder or ("optional" if not field.required else "")
                )
            label = field.label + ("" if field.required else " (optional)")
            self.inputs[field.path] = widget
            self.form.add(field.path, label, widget, name=".".join(field.path))
        self.problems = {key: row.problem for key, row in self.form.rows.items()}
        self.changes = QLabel("")
        self.changes.setObjectName("dialogChanges")
        self.changes.setWordWrap(True)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        save = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        assert isinstance(save, QPushButton)
        self.save_button = save
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addLayout(grid)
        layout.addWidget(self.changes)
        self.reason = ReasonLabel()
        footer = QHBoxLayout()
        footer.addWidget(self.reason, 1)
        footer.addWidget(self.buttons)
        layout.addLayout(footer)
        if original is not None:
            self._fill(original)
            self.form.touched.clear()  # filled in, not typed: Escape loses nothing
        self._show_mode()
        self.form.edited.connect(lambda _key: self.refresh())
        self._task: asyncio.Task[None] | None = None
        self._sending = False
        self.discard: QMessageBox | None = None
        self.refresh()

    @staticmethod
    def _nace_picker(nace_codes: Sequence[NaceCodeEntry]) -> QComboBox:
        widget = QComboBox()
        widget.setEditable(True)
        for entry in nace_codes:
            widget.addItem(f"{entry.code} {entry.title}", entry.code)
        widget.setCurrentIndex(-1)
        widget.setMinimumContentsLength(30)
        widget.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        # the list opens as wide as its longest title, never cutting it
        popup = widget.view()
        widest = max(
            (
                popup.fontMetrics().horizontalAdvance(widget.itemText(i))
                for i in range(widget.count())
            ),
            default=0,
        )
        popup.setMinimumWidth(widest + 40)
        return widget

    def _show_mode(self) -> None:
        editing = self.client_id is not None
        noun = "person" if self.kind == "person" else "company"
        self.setWindowTitle(f"Edit {noun}" if editing else f"New {noun}")
        self._reference_row.set_visible(not editing)

    # -- values

    def _fill(self, original: dict[str, Any]) -> None:
        for field in self.fields:
            widget = self.inputs[field.path]
            value = _get(original, field.path)
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

    def request(self) -> dict[str, Any]:
        """What Save sends: the whole client on create, the changes on an edit."""
        client_type = "COMPANY" if self.kind == "company" else "PERSON"
        if self.client_id is None:
            return {
                "external_reference": self.reference.text().strip(),
                "client_type": client_type,
                self.kind: self.form_values(),
            }
        return {"client_type": client_type, self.kind: self.changed_values()}

    # -- checks as typed

    def field_problems(self) -> dict[tuple[str, ...], str]:
        """Every field's problem, in the user's words."""
        found: dict[tuple[str, ...], str] = {}
        if self.client_id is None:
            reference = checks.length(
                self.reference.text().strip(), limits.EXTERNAL_REFERENCE, required=True
            )
            if reference:
                found[REFERENCE] = reference
        for field in self.fields:
            text = self._text(field.path)
            problem = checks.length(text, field.bound, required=field.required)
            if problem and text and field.check is not None and field.check(text):
                problem = field.check(text)  # "Enter a two-letter country code", not a count
            if problem is None and text:
                if field.path == ("nace_code",):
                    problem = self._nace_problem(text)
                elif field.check is not None:
                    problem = field.check(text)
            if problem == "Required" and self.client_id is not None:
                problem = "Required: it cannot be cleared"
            if problem:
                found[field.path] = problem
        return found

    def _nace_problem(self, code: str) -> str | None:
        widget = self.inputs[("nace_code",)]
        assert isinstance(widget, QComboBox)
        if widget.count() and widget.findData(code) < 0:
            return "Choose a NACE code from the list"
        return None

    def refresh(self) -> None:
        """Mark every field's problem in place; say what Save would send, or why it cannot."""
        found = self.field_problems()
        reason = self.form.show(found)
        if self.client_id is not None:
            changes = self.changed_values()
            if not changes:
                reason = reason or "Nothing changed: there is nothing to save"
                self.changes.setText("No changes to save.")
            else:
                # a field to correct is not sent: only what would go out is listed
                marked = {path[0] for path in found}
                described = [
                    f"{k} (cleared)" if v is None else k
                    for k, v in changes.items()
                    if k not in marked
                ]
                self.changes.setText("Will send: " + ", ".join(described) if described else "")
        self.save_button.setEnabled(not reason and not self._sending)
        self.save_button.setToolTip(reason)
        self.reason.setText(reason)

    # -- saving

    def save(self) -> None:
        if self._task is not None and not self._task.done():
            return
        self.form.tried = True
        self.refresh()
        if not self.save_button.isEnabled():
            return
        self._task = self._tasks.spawn(self._save())

    async def _save(self) -> None:
        request = self.request()
        was_create = self.client_id is None
        typed_reference = self.reference.text().strip()
        self._busy(True)
        try:
            result = await self.action.send(request, self._send)
        except ApiError as exc:
            self._failed(exc)
            return
        finally:
            self._busy(False)
        if self.action.replayed:
            await self._save_after(result, was_create, typed_reference)
            return
        self._finish(result, "")

    async def _save_after(self, first: ClientV2, was_create: bool, typed_reference: str) -> None:
        """The last Save's outcome was unknown and the form changed since: that Save went again
        with its key (the service replayed it, or carried it out now); the edit is now saved
        on top of what it answered, as an update with a key of its own."""
        done = "created" if was_create else "saved"
        self.client_id = first.id
        details = first.company if self.kind == "company" else first.person
        assert details is not None
        self.original = details.model_dump(mode="json", exclude_none=True)
        self.action = ActionKey()
        self._show_mode()
        told = (
            f"The first Save's outcome was unknown, so it was sent again with its request ID: "
            f"client {first.id} was {done} with what you first entered."
        )
        if was_create and first.external_reference != typed_reference:
            told += (
                f" The external reference cannot change after creation: it stays "
                f"{first.external_reference}."
            )
        if not self.changed_values():
            self._finish(first, told)
            return
        self.refresh()
        self._busy(True)
        try:
            result = await self.action.send(self.request(), self._send)
        except ApiError as exc:
            self._failed(exc)
            return
        finally:
            self._busy(False)
        self._finish(result, told + " Your later changes were then saved to it.")

    async def _send(self, request: dict[str, Any], key: str) -> ClientV2:
        from app.api.banking import ClientV2Create, ClientV2Update, build

        banking = self._context.banking
        if self.client_id is None:
            return await banking.create_client_v2(build(ClientV2Create, request), request_id=key)
        update = build(ClientV2Update, request)
        return await banking.update_client_v2(self.client_id, update, request_id=key)

    def _failed(self, error: ApiError) -> None:
        if isinstance(error, InvalidInput):
            self._mark_refused(error)
            return
        # the form keeps its data and its action key: Save again is the same action
        self._presenter.show(error, self.save)

    def _mark_refused(self, error: InvalidInput) -> None:
        """Problems the models found that the field checks did not: shown beside the field."""
        unplaced = []
        for where, problem in error.problems.items():
            path = tuple(p for p in where.split(".") if p not in (self.kind, "client"))
            label = self.problems.get(path)
            if label is None:
                unplaced.append(f"{where}: {problem}")
                continue
            label.setText(problem)
            label.setStyleSheet(PROBLEM_STYLE)
            self.form.rows[path].widget.setStyleSheet(INVALID_STYLE)
        if unplaced:
            self._presenter.show(InvalidInput("", "; ".join(unplaced)))

    def _busy(self, busy: bool) -> None:
        self._sending = busy
        self.save_button.setEnabled(not busy)
        if not busy:
            self.refresh()

    def reject(self) -> None:
        """Escape or Cancel: ask first when something was typed and not saved."""
        if self.form.touched and self.result_client is None and self.discard is None:
            self.discard = ask_before_discarding(self, lambda: QDialog.reject(self))
            self.discard.finished.connect(lambda _r: setattr(self, "discard", None))
            return
        super().reject()

    def _finish(self, result: ClientV2, notice: str) -> None:
        self.result_client = result
        self.notice = notice
        self.accept()


def _normal(value: Any) -> Any:
    """Values compared as text, the way the form holds them."""
    if isinstance(value, dict):
        return {k: _normal(v) for k, v in value.items() if v is not None}
    return None if value is None or value == "" else str(value)
