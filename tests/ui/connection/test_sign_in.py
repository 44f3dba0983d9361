"""Connection profiles, the sign-in dialog, the keyring, and a 401 that brings it back."""

import asyncio
import contextlib
import socket
import ssl
import threading
from collections.abc import AsyncIterator

import httpx
import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QMessageBox

from app.api.http import AnswerStream, Transport
from app.ui.clients import ClientsArea
from app.ui.connection.profiles import NEW_SERVER, SANDBOX, ServerProfile
from app.ui.connection.sign_in import SignInDialog
from app.ui.shell.main_window import MainWindow
from app.ui.statements import StatementsArea
from tests.certificates import make_server_certificate
from tests.ui.conftest import Record, run_on, settle


def describe(dialog: SignInDialog, url: str, password: str, name: str = "Local") -> None:
    dialog.profile.setCurrentText(NEW_SERVER)
    dialog.name.setText(name)
    dialog.base_url.setText(url)
    dialog.partner_code.setText("PD-LOCAL")
    dialog.user.setText("demo")
    dialog.password.setText(password)


def submit(qloop, window: MainWindow, dialog: SignInDialog, problem: str | None = None) -> None:
    """Press Sign in and wait until the attempt is over: signed in (the dialog closed), or
    ``problem`` shown."""
    dialog.sign_in_button.click()
    settle(qloop, window)
    if problem is None:
        assert not dialog.isVisible(), dialog.problem.text()
    else:
        assert dialog.isVisible() and dialog.problem.text() == problem


def demo_statement(open_window, url: str) -> tuple[MainWindow, StatementsArea]:
    """A window on the Statements area, the demo person's first account chosen."""
    window = open_window(url)
    window.show_area("Statements")
    statements = window.area(StatementsArea)
    statements.view.client_id.setText("C0000001")
    statements.view.account.setEditText("LT594010000000000001")
    return window, statements


def test_sign_in_to_a_named_server_and_remember_it(
    qtbot, qloop, sandbox, settings, open_window, memory_keyring, admin
):
    window = open_window(sandbox.url)
    window.open_sign_in()
    dialog = window.sign_in_dialog
    assert dialog.isVisible()
    assert dialog.profile.currentText() == SANDBOX
    assert not dialog.keyring_note.isVisible()

    describe(dialog, "http://bank.example", "demo")
    submit(qloop, window, dialog, "Base URL: use https: only this computer may be reached by http")
    describe(dialog, sandbox.url, "wrong")
    submit(qloop, window, dialog, "Sign-in refused: check the user and the password.")
    assert memory_keyring.passwords == {}
    assert window.connection_label.text().startswith("Test sandbox")  # unchanged

    describe(dialog, sandbox.url, "demo")
    admin.delete("/_sandbox/requests")
    submit(qloop, window, dialog)
    assert window.connection_label.text() == f"Local ({sandbox.url})"
    assert window.signed_in_label.text() == "Signed in as demo"
    assert memory_keyring.passwords == {("partner-desk:Local", "demo"): "demo"}
    assert settings.value("profiles/Local/base_url") == sandbox.url
    assert "demo" not in [str(settings.value(k)) for k in settings.allKeys() if "password" in k]
    assert not any("password" in key for key in settings.allKeys())
    # every secured call of the session carries the profile's partner code
    journal = admin.get("/_sandbox/requests").json()
    assert {e["partner_code"] for e in journal if e["path"] != "/v1/healthcheck"} == {"PD-LOCAL"}

    # the next start comes back to that server, its password from the keyring
    again = open_window(sandbox.url)
    dialog = again.sign_in_dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.profile.currentText() == "Local"
    assert dialog.password.text() == "demo"
    submit(qloop, again, dialog)
    assert again.connection_label.text() == f"Local ({sandbox.url})"


def test_401_brings_the_sign_in_back_and_the_action_runs_again(
    qtbot, qloop, sandbox, settings, open_window
):
    window = open_window(sandbox.url)
    window.show_area("Clients")
    settle(qloop, window)
    assert window.area(ClientsArea).model.rowCount() > 0
    # the service stops accepting the credentials (an expired password)
    window.session.banking.transport._client.auth = httpx.BasicAuth("demo", "expired")
    window.area(ClientsArea).refresh()
    settle(qloop, window)
    dialog = window.sign_in_dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.reason.text() == "The service refused the credentials (401): sign in again."
    assert window.signed_in_label.text() == "Sign-in refused"
    assert window.presenter.open_boxes == []  # no error box: the sign-in instead
    assert window.area(ClientsArea).model.rowCount() == 0
    submit(qloop, window, dialog)  # the sandbox profile signs in with its demo credentials
    assert window.area(ClientsArea).model.rowCount() > 0  # the refresh ran again
    assert window.signed_in_label.text() == "Signed in as demo"
    assert (
        window.area(ClientsArea).model.canFetchMore(QModelIndex())
        or window.area(ClientsArea).model.rowCount()
    )


def test_without_a_keyring_the_dialog_says_so(qtbot, qloop, sandbox, settings, open_window):
    import keyring
    from keyring.backends import fail

    keyring.set_keyring(fail.Keyring())
    window = open_window(sandbox.url)
    window.open_sign_in()
    assert window.sign_in_dialog.keyring_note.isVisible()
    assert window.sign_in_dialog.keyring_note.text() == (
        "No system keyring is available: the password is kept for this session only."
    )
    window.sign_in_dialog.reject()


def test_interrupted_statement_load_runs_again_after_signing_in(
    qtbot, qloop, sandbox, settings, open_window
):
    window, statements = demo_statement(open_window, sandbox.url)
    view = statements.view
    window.session.banking.transport._client.auth = httpx.BasicAuth("demo", "expired")
    view.load_button.click()
    settle(qloop, window)
    assert window.sign_in_dialog is not None and window.sign_in_dialog.isVisible()
    assert view.model.loaded == 0
    submit(qloop, window, window.sign_in_dialog)
    assert view.model.loaded > 0 and statements.loading.done()
    assert view.status.text().endswith("s)")  # "N records, <from> to <to> (loaded in x s)"


def test_rows_loaded_from_another_server_go_when_signing_in_elsewhere(
    qtbot, qloop, sandbox, settings, open_window
):
    window, statements = demo_statement(open_window, sandbox.url)
    view = statements.view
    view.load_button.click()
    settle(qloop, window)
    loaded = view.model.rowCount()
    assert loaded > 0 and statements.loading.done()
    # signed in again to the same server as the same user (its /v1 written out): rows stay
    window.open_sign_in()
    describe(window.sign_in_dialog, sandbox.url + "/v1", "demo", name="Same")
    submit(qloop, window, window.sign_in_dialog)
    assert view.model.rowCount() == loaded and view.export_button.isEnabled()
    # another server's address: the rows are not shown, nor exported, as its
    window.open_sign_in()
    describe(window.sign_in_dialog, sandbox.url.replace("127.0.0.1", "localhost"), "demo")
    submit(qloop, window, window.sign_in_dialog)
    assert view.model.rowCount() == 0 and not view.export_button.isEnabled()
    assert view.status.text() == "Signed in anew: choose a period, then Load."


def test_enter_after_a_failed_sign_in_signs_in_and_deleting_asks_first(
    qtbot, qloop, sandbox, settings, open_window
):
    window = open_window(sandbox.url)
    window.open_sign_in()
    dialog = window.sign_in_dialog
    describe(dialog, sandbox.url, "demo")
    submit(qloop, window, dialog)
    assert settings.value("connection/last") == "Local"
    window.open_sign_in()
    dialog = window.sign_in_dialog
    assert dialog.profile.currentText() == "Local"
    dialog.password.setText("wrong")
    submit(qloop, window, dialog, "Sign-in refused: check the user and the password.")
    assert dialog.sign_in_button.isDefault() and not dialog.delete_button.autoDefault()
    assert not dialog.delete_button.hasFocus()

    shown = Record(dialog.problem.shown)
    qtbot.keyClick(dialog, Qt.Key.Key_Return)  # signs in again, deletes nothing
    settle(qloop, window)
    assert shown.values == ["Signing in…", "Sign-in refused: check the user and the password."]
    assert "Local" in window.profiles.names()
    # the profile in use is not deleted under the window's session
    assert window.connection_label.text().startswith("Local (")
    assert not dialog.delete_button.isEnabled()
    assert dialog.delete_button.toolTip() == (
        "Local is the profile in use: sign in with another before deleting it"
    )
    # another profile: the old problem goes; signed in to it, Local may go
    dialog.profile.setCurrentText(SANDBOX)
    assert dialog.problem.text() == ""
    submit(qloop, window, dialog)
    window.open_sign_in()
    dialog = window.sign_in_dialog
    dialog.profile.setCurrentText("Local")
    assert dialog.delete_button.isEnabled() and dialog.delete_button.toolTip() == ""

    dialog.delete_button.click()
    settle(qloop, window)
    assert dialog.confirmation is not None
    assert (
        dialog.confirmation.text()
        == "Delete the connection profile 'Local' and its saved password?"
    )
    dialog.confirmation.button(QMessageBox.StandardButton.No).click()
    settle(qloop, window)
    assert dialog.confirmation is None and "Local" in window.profiles.names()
    dialog.delete_button.click()
    settle(qloop, window)
    assert dialog.confirmation is not None
    dialog.confirmation.button(QMessageBox.StandardButton.Yes).click()
    settle(qloop, window)
    assert "Local" not in window.profiles.names()
    assert settings.value("connection/last") == SANDBOX  # never left pointing at it
    assert dialog.profile.findText("Local") < 0
    dialog.reject()


def test_open_account_after_a_401_runs_again_with_its_request_id(
    qtbot, qloop, sandbox, settings, admin, open_window
):
    from app.ui.accounts import AccountsArea

    window = open_window(sandbox.url)
    accounts = window.area(AccountsArea)
    window.show_area("Accounts")
    accounts.show_client("C0000003")
    settle(qloop, window)
    before = accounts.view.model.rowCount()
    window.session.banking.transport._client.auth = httpx.BasicAuth("demo", "expired")
    admin.delete("/_sandbox/requests")

    accounts.view.open_button.click()
    settle(qloop, window)
    assert accounts.confirmation is not None
    accounts.confirmation.button(QMessageBox.StandardButton.Yes).click()
    settle(qloop, window)
    assert window.sign_in_dialog is not None and window.sign_in_dialog.isVisible()
    submit(qloop, window, window.sign_in_dialog)
    assert accounts.view.model.rowCount() == before + 1
    posts = [e for e in admin.get("/_sandbox/requests").json() if e["method"] == "POST"]
    assert [e["status"] for e in posts] == [401, 200]
    assert posts[0]["request_id"] == posts[1]["request_id"]


@pytest.mark.parametrize("suffix", ["", "/", "/v1", "/v2/"])
def test_the_gateway_is_beside_the_api_versions_whatever_base_url_was_given(suffix):
    profile = ServerProfile("Bank", "https://api.bank.example" + suffix, "PC", "demo")
    assert profile.gateway_address(profile.base_url) == "https://api.bank.example/gateway"
    own = ServerProfile(
        "Bank", "https://api.bank.example/v2", "PC", "demo", gateway_url="https://g.x"
    )
    assert own.gateway_address(own.base_url) == "https://g.x"


def test_a_profile_has_its_own_gateway_url(qtbot, qloop, sandbox, settings, open_window):
    window = open_window(sandbox.url)
    assert window.session.gateway.transport.base_url == f"{sandbox.url}/gateway"
    window.open_sign_in()
    dialog = window.sign_in_dialog
    assert not dialog.gateway_url.isEnabled()  # the embedded sandbox serves its own
    describe(dialog, sandbox.url, "demo", name="Split")
    dialog.gateway_url.setText("http://gateway.example")
    submit(
        qloop, window, dialog, "Gateway URL: use https: only this computer may be reached by http"
    )
    dialog.gateway_url.setText(f"{sandbox.url}/gateway/")
    submit(qloop, window, dialog)
    assert settings.value("profiles/Split/gateway_url") == f"{sandbox.url}/gateway"
    gateway = window.session.gateway
    assert gateway.transport.base_url == f"{sandbox.url}/gateway"
    taxes = run_on(qloop, gateway.list_taxes())
    assert isinstance(taxes, list)


def test_the_gateway_client_is_made_when_first_used_and_logs_its_exchanges(
    qtbot, qloop, sandbox, open_window
):
    """Signing in does not make the gateway's client (its package is not on the way to the
    first page); the first use makes it, with the request log listening, and closing the
    session closes it."""
    window = open_window(sandbox.url)
    session = window.session
    assert session._gateway is None
    logged = window.request_log.model.rowCount()
    run_on(qloop, session.gateway.list_taxes())
    assert session.gateway is session.gateway
    assert window.request_log.model.rowCount() == logged + 1
    run_on(qloop, session.aclose())
    assert session.gateway.transport._client.is_closed


def test_a_load_under_way_when_signing_in_anew_is_cancelled_not_blamed_on_the_server(
    qtbot, qloop, sandbox, settings, open_window, monkeypatch
):
    """The old session's connections close under the load: it stops as cancelled, the rows
    received shown, and no box says the server broke the answer off."""
    reading, closing = AnswerStream.chunks, Transport.aclose
    held: list[AnswerStream] = []
    closed = asyncio.Event()

    async def held_once_rows_show(stream: AnswerStream) -> AsyncIterator[bytes]:
        # the first statement waits once its first rows are shown, as a slow server's would,
        # however fast the machine, until the old session's connections are closed; then it
        # reads on from them
        async for chunk in reading(stream):
            yield chunk  # the rows it completes are taken before the next is asked for
            if view.model.loaded and (not held or held[0] is stream):
                held.append(stream)
                await closed.wait()

    async def close_and_say(transport: Transport) -> None:
        await closing(transport)
        closed.set()

    monkeypatch.setattr(AnswerStream, "chunks", held_once_rows_show)
    monkeypatch.setattr(Transport, "aclose", close_and_say)
    window, statements = demo_statement(open_window, sandbox.url)
    view = statements.view
    profile = window.session.profile

    def sign_in_anew(*_rows) -> None:
        view.model.rowsInserted.disconnect(sign_in_anew)
        window.tasks.spawn(window.use_profile(profile, "demo"))

    view.model.rowsInserted.connect(sign_in_anew)  # as soon as the first rows show
    view.load_button.click()
    settle(qloop, window)
    assert statements.loading.cancelled()
    received = view.model.loaded
    assert received > 0 and view.model.rowCount() == received
    assert view.status.text() == (
        f"Cancelled after {received:,} records: Load again for the whole period."
    )
    assert window.presenter.open_boxes == []
    assert window.signed_in_label.text() == "Signed in as demo"
    view.load_button.click()  # the new session loads it whole
    settle(qloop, window)
    assert statements.loading.done() and not statements.loading.cancelled()
    assert view.model.loaded > received
    assert view.status.text().endswith("s)")  # "N records, <from> to <to> (loaded in x s)"
    assert window.presenter.open_boxes == []


def test_a_server_whose_certificate_is_not_trusted_is_told_at_once_after_one_try(
    qtbot, qloop, settings, open_window, tmp_path
):
    """Signing in to a TLS server of a private CA, without its bundle: the dialog says the
    certificate is not trusted and how to fix it, after one connection (a retry would meet
    the same certificate)."""
    _bundle, certificate, key = make_server_certificate(tmp_path)
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_tls.load_cert_chain(certificate, key)
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    connections = []

    def serve() -> None:
        while True:
            try:
                connection, _address = listener.accept()
            except OSError:  # shut: the test is over
                return
            connections.append(connection)
            with contextlib.suppress(OSError):  # the client refused the certificate
                server_tls.wrap_socket(connection, server_side=True).recv(1)
            connection.close()

    serving = threading.Thread(target=serve, daemon=True)
    serving.start()
    try:
        window = open_window("http://127.0.0.1:1", connect=False)
        window.open_sign_in()
        dialog = window.sign_in_dialog
        describe(dialog, f"https://localhost:{port}", "demo")
        dialog.sign_in_button.click()
        settle(qloop, window)
        assert dialog.isVisible()
        assert dialog.problem.text().startswith(f"Cannot reach https://localhost:{port}: ")
        assert (
            ": the server's certificate is not trusted: for a private CA, give the profile its "
            "CA bundle (x-request-id "
        ) in dialog.problem.text()
        assert len(connections) == 1
        dialog.reject()
    finally:
        listener.shutdown(socket.SHUT_RDWR)  # wakes the accept waiting
        listener.close()
        serving.join(10)
