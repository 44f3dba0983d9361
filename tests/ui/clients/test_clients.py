"""The Clients area against the sandbox: paging, the filter builder, create and edit dialogs,
the exact error boxes, and the 408 path."""

import re
import uuid

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QMessageBox

from app.api import banking as m
from app.ui.clients import ClientsArea
from app.ui.clients import model as clients_model
from app.ui.clients.dialog import ClientDialog
from app.ui.clients.model import PAGE_SIZE, ClientRole, ClientsModel
from app.ui.common.form import NOTE_STYLE, PROBLEM_STYLE
from app.ui.shell.tasks import TaskGroup
from tests.ui.conftest import run_on, settle

PERSON = {
    ("first_name",): "Rūta",
    ("middle_name",): "Marija",
    ("last_name",): "Tester",
    ("birth_date",): "1990-02-03",
    ("nationality",): "lt",
    ("email",): "ruta@example.lt",
    ("contact_mobile_number",): "+37061112233",
    ("address", "street"): "Pilies g. 1",
    ("address", "city"): "Vilnius",
    ("address", "postal_code"): "01123",
    ("address", "country"): "LT",
    ("tax_id", "number"): "49002030000",
    ("tax_id", "country"): "LT",
    ("ip",): "192.0.2.7",
}


def open_clients(qloop, open_window, sandbox):
    window = open_window(sandbox.url)
    window.show_area("Clients")
    settle(qloop, window)
    return window, window.area(ClientsArea).view, window.area(ClientsArea)


def fill(dialog: ClientDialog, values: dict) -> None:
    for path, text in values.items():
        widget = dialog.inputs[path]
        if hasattr(widget, "setText"):
            widget.setText(text)
        else:
            widget.setEditText(text)


def test_model_pages_without_a_view(qapp, qloop, monkeypatch):
    calls = []

    async def pages(offset, limit, filter_text):
        calls.append((offset, limit, filter_text))
        return [object()] * (limit if offset < 2 * limit else 3)

    monkeypatch.setattr(clients_model, "client_cells", lambda client: ("x",) * 9)
    tasks = TaskGroup()
    model = ClientsModel(pages, tasks)
    assert not model.canFetchMore(QModelIndex())  # nothing before the first reload
    model.reload('email[like]"%"')
    run_on(qloop, tasks.idle())
    assert model.rowCount() == PAGE_SIZE
    assert model.canFetchMore(QModelIndex())
    model.fetchMore(QModelIndex())
    model.fetchMore(QModelIndex())  # a second call while fetching asks nothing more
    run_on(qloop, tasks.idle())
    assert model.rowCount() == 2 * PAGE_SIZE
    model.fetchMore(QModelIndex())
    run_on(qloop, tasks.idle())
    assert model.rowCount() == 2 * PAGE_SIZE + 3
    assert not model.canFetchMore(QModelIndex())
    assert calls == [
        (0, PAGE_SIZE, 'email[like]"%"'),
        (PAGE_SIZE, PAGE_SIZE, 'email[like]"%"'),
        (2 * PAGE_SIZE, PAGE_SIZE, 'email[like]"%"'),
    ]


def test_table_pages_as_the_user_scrolls(qtbot, qloop, sandbox, settings, open_window):
    window, view, clients = open_clients(qloop, open_window, sandbox)
    assert clients.model.rowCount() == PAGE_SIZE or not clients.model.canFetchMore(QModelIndex())
    clients.model.page_size = 20  # the sandbox seeds 46 clients: three pages of 20
    clients.refresh()
    settle(qloop, window)
    assert clients.model.rowCount() == 20
    assert view.status.text() == "20 clients (scroll for more)"
    assert clients.model.data(clients.model.index(0, 0)) == "C0000001"
    kinds = {clients.model.data(clients.model.index(r, 1)) for r in range(20)}
    assert kinds == {"Person", "Company"}

    view.table.scrollToBottom()
    settle(qloop, window)
    assert clients.model.rowCount() == 40
    ids = [clients.model.data(clients.model.index(r, 0)) for r in range(40)]
    assert len(set(ids)) == 40


def test_filter_builder_writes_and_applies_the_filter(qtbot, qloop, sandbox, settings, open_window):
    window, view, clients = open_clients(qloop, open_window, sandbox)
    builder = view.filter
    builder.field.setCurrentText("email")
    builder.operator.setCurrentIndex(builder.operator.findData("like"))
    builder.value.setText("anna.000@%")
    builder.add_button.click()
    builder.field.setCurrentText("create_date")
    builder.operator.setCurrentIndex(builder.operator.findData("range"))
    builder.value.setText("2000-01-01..2100-12-31")
    builder.add_button.click()
    assert builder.text.text() == (
        'email[like]"anna.000@%" and create_date[range]2000-01-01,2100-12-31'
    )

    builder.apply_button.click()
    settle(qloop, window)
    assert clients.model.rowCount() == 1
    assert clients.model.data(clients.model.index(0, 0)) == "C0000001"
    assert settings.value("clients/filter") == builder.text.text()
    builder.text.setText('email[eq]"x" or')
    builder.apply_button.click()
    assert builder.problem.isVisible()
    assert builder.problem.text() == (
        "The filter is not valid: expected a field name or '(', found the end of the filter "
        "at position 16"
    )
    builder.text.setText('phone[eq]"1"')
    builder.apply_button.click()
    assert "'phone' cannot be filtered here" in builder.problem.text()
    builder.value.setText("yesterday")
    builder.field.setCurrentText("create_date")
    builder.operator.setCurrentIndex(builder.operator.findData("eq"))
    builder.add_button.click()
    assert builder.problem.text() == "create_date takes a date yyyy-mm-dd, not 'yesterday'"


def new_person_dialog(qloop, window, clients) -> ClientDialog:
    clients.open_create("person")
    settle(qloop, window)
    assert clients.dialog is not None and clients.dialog.isVisible()
    return clients.dialog


def test_create_and_edit_a_person(qtbot, qloop, sandbox, settings, open_window, bank):
    window, view, clients = open_clients(qloop, open_window, sandbox)
    dialog = new_person_dialog(qloop, window, clients)
    assert dialog.windowTitle() == "New person"
    reference = "REG-" + uuid.uuid4().hex[:8]
    dialog.reference.setText(reference)
    fill(dialog, {**PERSON, ("email",): "not-an-email"})
    # the problem is marked beside the field as it is typed; Save says why it waits
    problem = dialog.problems[("email",)]
    assert problem.text() == "Enter an e-mail address like name@example.com"
    assert dialog.inputs[("email",)].styleSheet()
    assert not dialog.save_button.isEnabled()
    assert dialog.save_button.toolTip() == "1 field to correct first: E-mail"
    before = len(bank.clients)
    dialog.save()
    assert len(bank.clients) == before  # refused before anything was sent
    fill(dialog, {("email",): "ruta." + reference.lower() + "@example.lt"})
    assert problem.text() == "" and dialog.save_button.isEnabled()
    dialog.buttons.accepted.emit()
    settle(qloop, window)
    assert not dialog.isVisible()
    created = dialog.result_client
    assert created.external_reference == reference
    assert created.person.nationality == "LT"
    assert bank.clients[created.id].details["middle_name"] == "Marija"
    assert view.status.text().startswith(f"Created client {created.id}")
    assert clients.selected() is not None and clients.selected().id == created.id  # shown
    assert view.edit.isEnabled()

    # edit: only changes are sent; an emptied optional field is cleared
    clients.model.replace_client(created)
    edit = ClientDialog(
        "person",
        window.context,
        client_id=created.id,
        original=created.person.model_dump(mode="json", exclude_none=True),
    )
    qtbot.addWidget(edit)
    edit.open()
    assert edit.form.touched == set()  # filled in, not typed
    assert edit.windowTitle() == "Edit person"
    assert not edit.save_button.isEnabled()  # nothing changed: nothing to send
    fill(edit, {("last_name",): "Renamed", ("middle_name",): ""})
    assert edit.changes.text() == "Will send: middle_name (cleared), last_name"
    assert edit.changed_values() == {"middle_name": None, "last_name": "Renamed"}
    edit.buttons.accepted.emit()
    settle(qloop, window)
    assert not edit.isVisible()
    stored = bank.clients[created.id].details
    assert stored["last_name"] == "Renamed"
    assert "middle_name" not in stored
    assert stored["email"] == created.person.email  # not sent: kept


def test_400_box_keeps_the_dialog_and_its_request_id(
    qtbot, qloop, sandbox, settings, open_window, admin
):
    window, _view, clients = open_clients(qloop, open_window, sandbox)
    # the list the desk fetched offers a code the service no longer allows: its 400 is shown
    codes = run_on(qloop, window.session.banking.nace_codes())
    clients._nace = [*codes, m.NaceCodeEntry(code="99.99", title="Withdrawn class")]
    clients.open_create("company")
    settle(qloop, window)
    assert clients.dialog is not None and clients.dialog.isVisible()
    dialog = clients.dialog
    picker = dialog.inputs[("nace_code",)]
    assert picker.count() > 10  # the NACE picker
    longest = max(picker.itemText(i) for i in range(picker.count()))
    widest = max(
        picker.view().fontMetrics().horizontalAdvance(picker.itemText(i))
        for i in range(picker.count())
    )
    assert longest and picker.view().minimumWidth() > widest  # no title is cut
    request_id = dialog.action.key
    dialog.reference.setText("REG-C-" + uuid.uuid4().hex[:6])
    fill(
        dialog,
        {
            ("name",): "Boxes UAB",
            ("registration_number",): "300000001",
            ("incorporation_date",): "2020-01-02",
            ("tax_id", "number"): "LT1",
            ("tax_id", "country"): "LT",
            ("nace_code",): "99.99 Withdrawn class",
            ("registered_address", "street"): "A g. 1",
            ("registered_address", "city"): "Kaunas",
            ("registered_address", "postal_code"): "44000",
            ("registered_address", "country"): "LT",
            ("email",): "boxes@example.lt",
            ("contact_mobile_number",): "+37037000001",
        },
    )
    dialog.buttons.accepted.emit()
    settle(qloop, window)
    box = window.presenter.open_boxes[-1]
    assert box.windowTitle() == "Invalid request"
    assert re.fullmatch(
        r"company\.nace_code: 99\.99 is not an allowed NACE code\nError: [0-9a-f-]{36}", box.text()
    )
    assert box.standardButtons() == QMessageBox.StandardButton.Ok
    box.button(QMessageBox.StandardButton.Ok).click()
    assert dialog.isVisible()
    assert dialog.action.key == request_id  # Save again unchanged is the same action
    dialog.inputs[("nace_code",)].setCurrentIndex(dialog.inputs[("nace_code",)].findData("62.01"))
    dialog.buttons.accepted.emit()
    settle(qloop, window)
    assert not dialog.isVisible()
    assert dialog.result_client.company.nace_code == "62.01"
    posts = [e for e in admin.get("/_sandbox/requests").json() if e["method"] == "POST"]
    # the refused request did nothing: the changed one is a new request with a new key
    assert [e["status"] for e in posts] == [400, 200]
    assert posts[0]["request_id"] == request_id != posts[1]["request_id"]


def test_408_retried_then_exhausted_then_resubmitted_once(
    qtbot, qloop, sandbox, settings, open_window, admin, bank
):
    window, _view, clients = open_clients(qloop, open_window, sandbox)
    window.session.banking.transport.retry = type(window.session.banking.transport.retry)(
        attempts=3, backoff=0.01
    )
    dialog = new_person_dialog(qloop, window, clients)
    reference = "REG-T-" + uuid.uuid4().hex[:6]
    dialog.reference.setText(reference)
    fill(dialog, {**PERSON, ("email",): f"{reference.lower()}@example.lt"})
    admin.post("/_sandbox/faults", json={"status": 408, "count": 3, "path_contains": "/v2/clients"})
    admin.delete("/_sandbox/requests")
    dialog.buttons.accepted.emit()
    settle(qloop, window)
    box = window.presenter.open_boxes[-1]
    assert box.windowTitle() == "Request timeout"
    (request_id,) = {  # every try of the same request carries the same ID
        e["request_id"] for e in admin.get("/_sandbox/requests").json() if e["method"] == "POST"
    }
    assert box.text() == (
        "The service did not complete the request in time, even after retrying. "
        "Please try the same request again later; it will not be carried out twice. "
        f"If it keeps failing, contact customer support and quote the request ID {request_id}."
    )
    box.button(QMessageBox.StandardButton.Ok).click()
    assert dialog.isVisible() and dialog.reference.text() == reference
    dialog.buttons.accepted.emit()  # the same request again, later
    settle(qloop, window)
    assert not dialog.isVisible()
    posts = [e for e in admin.get("/_sandbox/requests").json() if e["method"] == "POST"]
    assert [e["status"] for e in posts] == [408, 408, 408, 200]
    assert {e["request_id"] for e in posts} == {dialog.action.key}
    assert sum(1 for c in bank.clients.values() if c.external_reference == reference) == 1


def test_edit_button_follows_the_selection(qtbot, qloop, sandbox, settings, open_window):
    window, view, clients = open_clients(qloop, open_window, sandbox)
    assert not view.edit.isEnabled()
    view.table.selectRow(1)
    assert view.edit.isEnabled()
    assert clients.selected().id == clients.model.data(clients.model.index(1, 0), ClientRole).id
    view.edit.click()
    settle(qloop, window)
    assert clients.dialog is not None and clients.dialog.isVisible()
    assert clients.dialog.windowTitle() == "Edit company"
    assert clients.dialog.inputs[("name",)].text() == "Baltic Widgets UAB"
    assert clients.dialog.changes.text() == "No changes to save."
    clients.dialog.reject()  # nothing typed: Escape asks nothing
    assert clients.dialog.discard is None and not clients.dialog.isVisible()


def test_keyboard_f5_refreshes_ctrl_f_focuses_the_filter_ctrl_n_creates(
    qtbot, qloop, sandbox, settings, open_window, admin
):
    window, view, clients = open_clients(qloop, open_window, sandbox)
    admin.delete("/_sandbox/requests")

    qtbot.keyClick(window, Qt.Key.Key_F5)
    settle(qloop, window)
    paths = [e["path"] for e in admin.get("/_sandbox/requests").json()]
    assert sorted(paths) == ["/v1/healthcheck", "/v2/clients"]
    view.table.setFocus()
    qtbot.keyClick(view.table, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert view.filter.text.hasFocus()
    qtbot.keyClick(view.table, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    settle(qloop, window)
    assert clients.dialog is not None and clients.dialog.isVisible()
    assert clients.dialog.windowTitle() == "New person"
    clients.dialog.reject()


def test_edit_a_company_and_the_generic_box_for_a_500(
    qtbot, qloop, sandbox, settings, open_window, admin, bank
):
    window, view, clients = open_clients(qloop, open_window, sandbox)
    row = next(
        r
        for r in range(clients.model.rowCount())
        if clients.model.data(clients.model.index(r, 0)) == "C0000002"
    )
    view.table.selectRow(row)
    clients.open_edit()
    settle(qloop, window)
    assert clients.dialog is not None and clients.dialog.isVisible()
    dialog = clients.dialog
    fill(dialog, {("website",): "", ("registered_address", "city"): "Kaunas"})
    assert dialog.changes.text() == "Will send: registered_address, website (cleared)"
    admin.post(
        "/_sandbox/faults", json={"status": 500, "count": 1, "path_contains": "/v2/clients/"}
    )
    dialog.buttons.accepted.emit()
    settle(qloop, window)
    box = window.presenter.open_boxes[-1]
    assert box.windowTitle() == "Internal error"
    assert re.fullmatch(
        r"We are sorry, the request could not be completed\. Please contact customer support "
        r"and quote the error ID [0-9a-f-]{36}\.",
        box.text(),
    )
    box.button(QMessageBox.StandardButton.Ok).click()
    assert dialog.isVisible()
    dialog.buttons.accepted.emit()  # Save again: the same action
    settle(qloop, window)
    assert not dialog.isVisible()
    stored = bank.clients["C0000002"].details
    assert stored["registered_address"]["city"] == "Kaunas"
    assert stored["registered_address"]["street"] == "Konstitucijos pr. 7"
    assert "website" not in stored
    assert clients.model.data(clients.model.index(row, 2)) == "Baltic Widgets UAB"


def test_an_edit_after_an_unknown_outcome_learns_it_first_and_never_makes_two(
    qtbot, qloop, sandbox, settings, open_window, admin, bank
):
    window, _view, clients = open_clients(qloop, open_window, sandbox)
    dialog = new_person_dialog(qloop, window, clients)
    reference = "REG-U-" + uuid.uuid4().hex[:6]
    dialog.reference.setText(reference)
    fill(dialog, {**PERSON, ("email",): f"{reference.lower()}@example.lt"})
    # the create is carried out, but its answer is lost: a 500 after the action
    admin.post(
        "/_sandbox/faults",
        json={"status": 500, "count": 1, "mode": "after", "path_contains": "/v2/clients"},
    )
    admin.delete("/_sandbox/requests")
    first_key = dialog.action.key
    dialog.buttons.accepted.emit()
    settle(qloop, window)
    window.presenter.open_boxes[-1].button(QMessageBox.StandardButton.Ok).click()
    assert dialog.isVisible() and dialog.action.outcome_unknown
    # the user edits, then saves: the first request goes again with its key first
    fill(dialog, {("last_name",): "Edited", ("external_id",): "EXT-U"})
    dialog.buttons.accepted.emit()
    settle(qloop, window)
    assert not dialog.isVisible()
    mine = [c for c in bank.clients.values() if c.external_reference == reference]
    assert len(mine) == 1
    assert mine[0].details["last_name"] == "Edited" and mine[0].details["external_id"] == "EXT-U"
    calls = [
        (e["method"], e["status"], e["request_id"]) for e in admin.get("/_sandbox/requests").json()
    ]
    writes = [c for c in calls if c[0] in ("POST", "PUT")]
    assert writes[:2] == [("POST", 500, first_key), ("POST", 200, first_key)]
    assert writes[2][:2] == ("PUT", 200) and writes[2][2] != first_key
    assert len(writes) == 3
    assert clients.notice is not None
    assert clients.notice.text() == (
        "The first Save's outcome was unknown, so it was sent again with its request ID: "
        f"client {mine[0].id} was created with what you first entered. "
        "Your later changes were then saved to it."
    )
    clients.notice.done(0)


def test_the_inputs_keep_their_places_as_problems_appear(qtbot, qloop, sandbox, open_window):
    """A click aimed at a field lands in it: no problem moves, shrinks or narrows an input."""
    from PySide6.QtWidgets import QApplication

    window, _view, clients = open_clients(qloop, open_window, sandbox)
    dialog = new_person_dialog(qloop, window, clients)
    QApplication.processEvents()

    def places() -> dict:
        return {path: widget.geometry().getRect() for path, widget in dialog.inputs.items()}

    before = places()
    fill(
        dialog,
        {
            ("first_name",): "N" * 101,
            ("email",): "x@",
            ("contact_mobile_number",): "0612 with a much longer text than a number has",
            ("birth_date",): "1990-02-30",
            ("address", "country"): "XX",
            ("ip",): "300.1.1.1",
        },
    )
    dialog.save()  # every problem shown, the required ones in red too
    QApplication.processEvents()
    assert any(label.text() for label in dialog.problems.values())
    assert places() == before
    dialog.reject()
    dialog.discard.button(QMessageBox.StandardButton.Discard).click()


def test_form_checks_speak_plainly_show_every_problem_and_never_cut_text(
    qtbot, qloop, sandbox, settings, open_window
):
    window, _view, clients = open_clients(qloop, open_window, sandbox)
    dialog = new_person_dialog(qloop, window, clients)
    fill(
        dialog,
        {
            **PERSON,
            ("first_name",): "N" * 101,
            ("birth_date",): "1990-02-30",
            ("contact_mobile_number",): "0612",
            ("address", "country"): "XX",
            ("ip",): "300.1.1.1",
        },
    )
    assert len(dialog.inputs[("first_name",)].text()) == 101  # shown, not cut
    # a required field not come to yet says so quietly; the fields typed in say what is wrong
    assert dialog.problems[("external_reference",)].text() == "Required"
    assert dialog.problems[("external_reference",)].styleSheet() == NOTE_STYLE
    problems = {
        p: label.text()
        for p, label in dialog.problems.items()
        if label.text() and label.styleSheet() == PROBLEM_STYLE
    }
    assert problems == {
        ("first_name",): "At most 100 characters (101 now)",
        ("birth_date",): "1990-02-30 is not a day of the calendar",
        ("contact_mobile_number",): "Enter + and the country code first: +37061234567",
        ("address", "country"): "XX is not a country code: use one such as LT",
        ("ip",): "Enter an IPv4 address like 192.0.2.10",
    }
    assert dialog.save_button.toolTip() == (
        "6 fields to correct first: External reference, First name, Birth date, Mobile, "
        "Address: country, IP address"
    )
    assert dialog.reason.text() == dialog.save_button.toolTip()  # in plain sight too
    # a required field not come to yet is marked in red once Save is tried
    dialog.save()
    assert dialog.problems[("external_reference",)].styleSheet() == PROBLEM_STYLE
    height = dialog.sizeHint().height()
    fill(dialog, {("first_name",): "Nora"})
    assert dialog.sizeHint().height() == height  # the form does not jump
    dialog.reject()  # typed in: it asks first
    assert dialog.isVisible()
    dialog.discard.button(QMessageBox.StandardButton.Discard).click()
    assert not dialog.isVisible()

    # an edit: emptying a required field is marked, never sent as a clearing
    row = next(
        r
        for r in range(clients.model.rowCount())
        if clients.model.data(clients.model.index(r, 1)) == "Person"
    )
    clients.view.table.selectRow(row)
    clients.open_edit()
    settle(qloop, window)
    assert clients.dialog is not dialog and clients.dialog.isVisible()
    edit = clients.dialog
    fill(edit, {("first_name",): "", ("middle_name",): "Extra"})
    assert edit.problems[("first_name",)].text() == "Required: it cannot be cleared"
    assert edit.changes.text() == "Will send: middle_name"
    assert not edit.save_button.isEnabled()
    edit.done(0)


def test_a_failed_list_clears_the_count_and_the_actions(
    qtbot, qloop, sandbox, settings, open_window, admin
):
    window, view, clients = open_clients(qloop, open_window, sandbox)
    view.table.selectRow(0)
    assert view.edit.isEnabled() and "clients" in view.status.text()
    admin.post("/_sandbox/faults", json={"status": 500, "count": 1, "path_contains": "/v2/clients"})
    clients.refresh()
    settle(qloop, window)
    assert clients.model.rowCount() == 0
    assert view.status.text() == "Loading failed"
    assert not view.edit.isEnabled() and not view.accounts.isEnabled()
    window.presenter.open_boxes[-1].done(0)


def created_person(qloop, window, clients) -> m.ClientV2:
    dialog = new_person_dialog(qloop, window, clients)
    reference = "REG-" + uuid.uuid4().hex[:8]
    dialog.reference.setText(reference)
    fill(dialog, {**PERSON, ("email",): f"{reference.lower()}@example.lt"})
    dialog.buttons.accepted.emit()
    settle(qloop, window)
    assert not dialog.isVisible()
    return dialog.result_client


def test_a_client_created_beyond_the_first_page_is_selected_once_listed(
    qloop, sandbox, open_window, monkeypatch
):
    from app.ui.clients import controller

    monkeypatch.setattr(controller, "SELECT_PAGES", 100_000)  # as many pages as it takes
    window, _view, clients = open_clients(qloop, open_window, sandbox)
    clients.model.page_size = 5
    clients.refresh()
    settle(qloop, window)
    assert clients.model.canFetchMore(QModelIndex())  # the list is longer than a page
    created = created_person(qloop, window, clients)
    assert clients.selected() is not None and clients.selected().id == created.id
    assert clients.model.rowCount() > 5  # pages were read to reach it


def test_a_client_created_outside_the_filter_is_said_so(qloop, sandbox, open_window):
    window, view, clients = open_clients(qloop, open_window, sandbox)
    clients.apply_filter('email[eq]"nobody@nowhere.example"')
    settle(qloop, window)
    created = created_person(qloop, window, clients)
    assert clients.selected() is None
    assert view.status.text() == f"Created client {created.id}; not in the list as filtered"
    clients.apply_filter(None)
    settle(qloop, window)


def test_the_fields_stay_where_they_are_while_messages_come_and_go(
    qtbot, qloop, sandbox, open_window
):
    from PySide6.QtCore import QPoint

    window, _view, clients = open_clients(qloop, open_window, sandbox)
    dialog = new_person_dialog(qloop, window, clients)
    qtbot.wait(0)

    def places() -> list[tuple[QPoint, int, int]]:
        qtbot.wait(0)  # laid out
        return [
            (widget.mapTo(dialog, QPoint(0, 0)), widget.width(), widget.height())
            for widget in [dialog.reference, *dialog.inputs.values()]
        ]

    empty = places()
    fill(dialog, {("email",): "not-an-email", ("birth_date",): "1990-13-45"})
    dialog.reference.setText("REG-" + "X" * 70)  # a long value, a long message
    messages = [label.text() for label in dialog.problems.values() if label.text()]
    assert len(messages) >= 2  # messages did appear
    assert dialog.inputs[("email",)].styleSheet()  # marked as wrong
    assert places() == empty
    fill(dialog, {**PERSON, ("email",): "ruta@example.lt"})
    dialog.reference.setText("REG-1")
    assert places() == empty  # and they went, moving nothing either
    dialog.done(0)
