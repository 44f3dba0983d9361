"""The Events area against the embedded sandbox: events arrive signed and verified with no
set-up, their raw form and their client are shown, the sandbox's subscriptions are managed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtWidgets import QMessageBox

from app.api.banking import ClientV2Create
from app.api.models import build
from app.sandbox.app import SandboxSettings
from app.sandbox.server import BackgroundSandbox
from app.ui.events import EventsArea
from app.ui.shell.main_window import MainWindow
from tests.conftest import advance, person_body
from tests.ui.conftest import run_on, settle, until


@pytest.fixture(scope="module")
def events_sandbox() -> Iterator[BackgroundSandbox]:
    server = BackgroundSandbox(SandboxSettings(frozen_clock=True, demo_statement_records=0))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def window(events_sandbox, open_window) -> MainWindow:
    return open_window(events_sandbox.url, size=(1400, 900))


def test_a_new_clients_registration_events_arrive_verified(qtbot, qloop, window, events_sandbox):
    area = window.area(EventsArea)
    window.show_area(EventsArea.NAME)
    request = build(
        ClientV2Create,
        {"external_reference": "EV-1", "client_type": "PERSON", "person": person_body(91)},
    )
    created = run_on(qloop, window.session.banking.create_client_v2(request))
    advance(events_sandbox.url, 6)  # the review ends: done
    # delivered to the receiver, stored, then read by the area's next look at the store
    run_on(qloop, until(lambda: area.model.rowCount() >= 1, timeout=15))
    event = area.model.events()[0]  # newest first
    assert (event.event_type, event.status, event.data_id) == (
        "private_reg.status_changed",
        "done",
        "EV-1",
    )
    occurred = [e.occurred_at for e in area.model.events()]
    assert occurred == sorted(occurred, reverse=True)
    assert area.model.data(area.model.index(0, 4)) == "verified"
    window.resize(1280, 800)  # a laptop's window: the columns fit it, the type read whole
    qtbot.wait(0)
    table = area.view.table
    assert table.horizontalScrollBar().maximum() == 0  # the columns fit the width
    type_text = table.fontMetrics().horizontalAdvance("private_reg.status_changed")
    assert table.horizontalHeader().sectionSize(1) > type_text + 8
    moment = table.fontMetrics().horizontalAdvance("2026-11-25 18:21:33")
    assert table.horizontalHeader().sectionSize(0) > moment + 8  # read to the second
    area.view.table.selectRow(0)
    raw = area.view.raw.toPlainText()
    assert "x-webhook-signature:" in raw and event.body in raw
    settle(qloop, window)  # the event's client, read back
    assert area.view.client.text().startswith("Client ")
    assert created.id in area.view.client.text() and "done" in area.view.client.text()
    # the filters: the detail follows them
    area.view.status.setCurrentText("active")
    settle(qloop, window)
    assert area.model.rowCount() == 0
    assert area.view.raw.toPlainText() == ""  # the hidden event's detail went with it
    assert area.view.client.text() == "Choose an event to read its client back."
    area.view.status.setCurrentText("done")
    settle(qloop, window)
    assert area.model.rowCount() >= 1
    assert "stored in" in area.view.source.text()


def test_the_sandbox_subscriptions_dialog_lists_adds_and_deletes(qtbot, qloop, window):
    area = window.area(EventsArea)
    window.show_area(EventsArea.NAME)
    run_on(qloop, area.load())
    assert area.view.subscriptions_button.isVisible()
    area.open_subscriptions()
    dialog = area.subscriptions_dialog
    settle(qloop, window)
    assert dialog.model.rowCount() >= 1
    receiver_url = window.session.events.receiver.url
    assert receiver_url in [str(u) for u in dialog.rows()]
    before = dialog.model.rowCount()
    dialog.table.selectRow(dialog.rows().index(receiver_url))
    dialog.delete_button.click()  # the desk's own receiver: said so before it goes
    settle(qloop, window)
    assert dialog.confirmation.text().endswith(
        "It is this desk's own receiver: the Events area gets no new events."
    )
    dialog.confirmation.button(QMessageBox.No).click()
    settle(qloop, window)
    dialog.url.setText("http://127.0.0.1:9/hook")
    dialog.filter.setCurrentText("corp_reg.*")
    dialog.add_button.click()
    settle(qloop, window)
    assert dialog.model.rowCount() == before + 1
    dialog.url.setText("ftp://nowhere")
    dialog.add_button.click()
    settle(qloop, window)
    assert "http or https" in dialog.problem.text()
    dialog.table.selectRow(dialog.rows().index("http://127.0.0.1:9/hook"))
    dialog.delete_button.click()  # asks first: No keeps it
    settle(qloop, window)
    assert dialog.confirmation is not None
    assert dialog.confirmation.text() == (
        "Delete the subscription of http://127.0.0.1:9/hook to corp_reg.*?\n\n"
        "The sandbox stops sending it events."
    )
    assert dialog.confirmation.defaultButton() is dialog.confirmation.button(QMessageBox.No)
    dialog.confirmation.button(QMessageBox.No).click()
    settle(qloop, window)
    assert dialog.confirmation is None and dialog.model.rowCount() == before + 1
    dialog.delete_button.click()  # Yes deletes it
    settle(qloop, window)
    dialog.confirmation.button(QMessageBox.Yes).click()
    settle(qloop, window)
    assert dialog.model.rowCount() == before
    assert "http://127.0.0.1:9/hook" not in dialog.rows()
    dialog.done(0)


def test_connected_to_a_server_the_area_reads_the_profiles_store(
    qtbot, qloop, window, events_sandbox, tmp_path
):
    import datetime as dt

    from app.ui.connection.profiles import ServerProfile
    from app.webhooks.delivery import check
    from app.webhooks.store import open_store
    from tests.webhook_helpers import delivery, event_body

    store_file = tmp_path / "team-events.db"
    store = open_store(store_file)
    headers, raw = delivery(event_body(data_id="TEAM-1", status="active"), signed=False)
    event = check({k.lower(): v for k, v in headers.items()}, raw, None, dt.datetime.now(dt.UTC))
    store.add([event])
    store.close()
    profile = ServerProfile(
        name="Team",
        base_url=events_sandbox.url,
        partner_code="PD",
        user="demo",
        events_store=str(store_file),
    )
    run_on(qloop, window.use_profile(profile, "demo"))
    area = window.area(EventsArea)
    window.show_area(EventsArea.NAME)
    area.refresh()
    settle(qloop, window)
    assert area.model.rowCount() == 1
    assert [e.data_id for e in area.model.events()] == ["TEAM-1"]
    assert area.model.data(area.model.index(0, 4)) == "not signed"
    assert not area.view.subscriptions_button.isVisible()
    assert str(store_file) in area.view.source.text()


@pytest.mark.allow_warning_logs
@pytest.mark.slow
def test_the_area_says_the_store_is_away_and_shows_the_events_again_by_itself(
    qloop, window, events_sandbox, postgres_server, postgres_database
):
    import datetime as dt

    from app.ui.connection.profiles import ServerProfile
    from app.webhooks.delivery import check
    from app.webhooks.store import open_store
    from tests.webhook_helpers import delivery, event_body

    store = open_store(postgres_database)
    headers, raw = delivery(event_body(data_id="TEAM-PG"), signed=False)
    store.add(
        [check({k.lower(): v for k, v in headers.items()}, raw, None, dt.datetime.now(dt.UTC))]
    )
    store.close()
    profile = ServerProfile(
        name="Team",
        base_url=events_sandbox.url,
        partner_code="PD",
        user="demo",
        events_store=postgres_database,
    )
    run_on(qloop, window.use_profile(profile, "demo"))
    area = window.area(EventsArea)
    window.show_area(EventsArea.NAME)
    settle(qloop, window)
    assert [e.data_id for e in area.model.events()] == ["TEAM-PG"]
    with postgres_server.stopped():
        area.refresh()
        settle(qloop, window)
        text = area.view.source.text()
        assert text.startswith("The event store is unavailable: the event store at postgresql://")
        assert text.endswith("cannot be reached. The events show again once it is back.")
        assert [e.data_id for e in area.model.events()] == ["TEAM-PG"]  # what was read stays
    # nothing to click: the area's next look at the store finds it back
    run_on(qloop, until(lambda: area.view.source.text().startswith("1 event; stored in ")))


def test_a_clients_status_in_the_clients_list_follows_its_event_the_events_area_unseen(
    qtbot, qloop, window, events_sandbox, monkeypatch
):
    import uuid

    from app.ui.clients import ClientsArea
    from app.ui.clients.model import REFERENCE, STATUS
    from app.ui.events import controller as events_controller

    monkeypatch.setattr(events_controller, "HIDDEN_POLL_TICKS", 1)  # a person's wait, shortened
    window.show_area("Clients")
    settle(qloop, window)
    reference = f"EV-{uuid.uuid4().hex[:8]}"
    request = build(
        ClientV2Create,
        {"external_reference": reference, "client_type": "PERSON", "person": person_body(93)},
    )
    run_on(qloop, window.session.banking.create_client_v2(request))
    clients = window.area(ClientsArea)
    clients.refresh()
    settle(qloop, window)
    model = clients.model

    def status() -> str | None:
        for row in range(model.rowCount()):
            if model.data(model.index(row, REFERENCE)) == reference:
                return model.data(model.index(row, STATUS))
        return None

    assert status() not in (None, "done")
    advance(events_sandbox.url, 6)  # the review ends: done, and its event is delivered
    run_on(qloop, until(lambda: status() == "done", timeout=15))
    assert not window.area(EventsArea).view.isVisible()  # read by the area all the same


def test_a_moment_with_fractions_of_a_second_reads_to_the_second_its_tooltip_whole():
    from app.ui.events.model import _time

    assert _time("2026-11-25T18:21:33.6754360") == "2026-11-25 18:21:33"
    assert _time("2026-11-25T18:21:33Z") == "2026-11-25 18:21:33"
    assert _time("2026-11-25T18:21:33.5+00:00") == "2026-11-25 18:21:33"
    assert _time("yesterday") == "yesterday"  # what is no moment stays as sent
