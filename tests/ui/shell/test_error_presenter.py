"""The error table of the contract, as the one presenter shows it."""

import pytest
from PySide6.QtWidgets import QMessageBox

from app.api.errors import (
    ApiConnectionError,
    BadRequest,
    InvalidInput,
    RequestTimeout,
    ResponseValidationError,
    ServerError,
    Unauthorized,
    UnexpectedStatus,
)
from app.ui.shell.errors import ErrorPresenter, message_for

BODY = {"failure_message": "Amount is too large", "error_id": "8f1c2d", "title": "Transfer refused"}


def test_400_shows_title_and_failure_message_then_error_id():
    message = message_for(BadRequest("x", status=400, request_id="r1", **BODY))
    assert message.title == "Transfer refused"
    assert message.text == "Amount is too large\nError: 8f1c2d"


def test_a_card_number_a_server_puts_in_its_message_is_shown_masked():
    body = {
        "failure_message": "Card abc4111111111111111xyz refused for order "
        "12345678-1234-1234-1234-123456789012",
        "error_id": "e-4111 1111 1111 1111",
        "title": "Refused 5555555555554444",
    }
    message = message_for(BadRequest("x", status=400, request_id="r1", **body))
    assert message.title == "Refused ************4444"
    assert message.text == (
        "Card abc************1111xyz refused for order 12345678-1234-1234-1234-123456789012\n"
        "Error: e-************1111"
    )


@pytest.mark.parametrize(
    ("kind", "status"),
    [(ServerError, 500), (Unauthorized, 401), (UnexpectedStatus, 404), (ServerError, 503)],
)
def test_other_codes_show_the_generic_apology_quoting_the_error_id(kind, status):
    message = message_for(kind("x", status=status, **BODY))
    assert message.title == "Transfer refused"
    assert message.text == (
        "We are sorry, the request could not be completed. "
        "Please contact customer support and quote the error ID 8f1c2d."
    )


def test_408_after_retries_asks_to_try_the_same_request_later():
    message = message_for(
        RequestTimeout(
            "x",
            status=408,
            title="Request timeout",
            failure_message="slow",
            error_id="e",
            request_id="req-408",
        )
    )
    assert message.title == "Request timeout"
    assert message.text == (
        "The service did not complete the request in time, even after retrying. "
        "Please try the same request again later; it will not be carried out twice. "
        "If it keeps failing, contact customer support and quote the request ID req-408."
    )


def test_answer_without_the_error_body_still_gets_a_clear_message():
    message = message_for(ServerError("HTTP 502 Bad Gateway", status=502, request_id="req-9"))
    assert message.title == "Unexpected answer"
    assert message.text == (
        "The service answered HTTP 502 without error details. We are sorry, the request could "
        "not be completed. Please contact customer support and quote the request ID req-9."
    )
    bad_400 = message_for(BadRequest("HTTP 400", status=400, request_id="req-8"))
    assert "request ID req-8" in bad_400.text


def test_connection_invalid_input_and_unreadable_answers():
    assert message_for(ApiConnectionError("Cannot reach https://x: refused")).title == (
        "Connection failed"
    )
    assert message_for(InvalidInput("amount", "must be at least 1")).text == (
        "amount: must be at least 1"
    )
    unreadable = message_for(ResponseValidationError("not JSON", request_id="r5"))
    assert unreadable.title == "Unexpected answer" and "request ID r5" in unreadable.text
    assert message_for(RuntimeError("boom")).title == "Unexpected error"


def test_presenter_opens_a_non_blocking_box_with_one_ok_button(qtbot):
    presenter = ErrorPresenter()
    box = presenter.show(BadRequest("x", status=400, **BODY))
    qtbot.addWidget(box)
    assert box.isVisible()  # open(), not exec(): the test continues while it is shown
    assert box.windowTitle() == "Transfer refused"
    assert box.text() == "Amount is too large\nError: 8f1c2d"
    assert box.standardButtons() == QMessageBox.StandardButton.Ok
    qtbot.mouseClick(box.button(QMessageBox.StandardButton.Ok), qtbot_left())
    qtbot.waitUntil(lambda: not presenter.open_boxes)


def qtbot_left():
    from PySide6.QtCore import Qt

    return Qt.MouseButton.LeftButton


def test_the_400_box_shows_the_service_text_character_for_character(qtbot):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QLabel

    presenter = ErrorPresenter()
    markup = {**BODY, "failure_message": "<b>Amount</b> &amp; fee<br>too <i>large</i>"}
    box = presenter.show(BadRequest("x", status=400, **markup))
    qtbot.addWidget(box)
    assert box.textFormat() == Qt.TextFormat.PlainText
    assert box.text() == "<b>Amount</b> &amp; fee<br>too <i>large</i>\nError: 8f1c2d"
    shown = box.findChild(QLabel, "qt_msgbox_label")
    assert shown.textFormat() == Qt.TextFormat.PlainText
    assert shown.text() == box.text()
    box.done(0)
