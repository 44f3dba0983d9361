"""The one route for user-facing errors: every window, and the hook that catches unexpected
exceptions, shows failures through the presenter here."""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.api.errors import (
    ApiConnectionError,
    ApiError,
    ApiTimeoutError,
    BadRequest,
    ClosedByDesk,
    InvalidInput,
    RequestTimeout,
    ResponseValidationError,
    Unauthorized,
)

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMessageBox, QWidget

GENERIC_TITLE = "Error"


class NotSignedIn(ApiError):
    """A service was asked for before any sign-in succeeded."""

    @property
    def outcome_unknown(self) -> bool:
        return False


@dataclass(frozen=True)
class ErrorMessage:
    title: str
    text: str


def generic_apology(reference: str, kind: str = "error ID") -> str:
    return (
        "We are sorry, the request could not be completed. "
        f"Please contact customer support and quote the {kind} {reference}."
    )


def message_for(error: BaseException) -> ErrorMessage:
    """The box the contract's error table prescribes for an error, with any card number a
    server (or an exception) put in it masked to its last four digits."""
    from app.core.redaction import redact

    message = _message_for(error)
    return ErrorMessage(redact(message.title), redact(message.text))


def _message_for(error: BaseException) -> ErrorMessage:
    if isinstance(error, InvalidInput):
        return ErrorMessage("Invalid input", str(error))
    if isinstance(error, NotSignedIn):
        return ErrorMessage("Not signed in", str(error))
    if not isinstance(error, ApiError):
        return ErrorMessage(
            "Unexpected error",
            f"Something went wrong inside Partner Desk: {type(error).__name__}: {error}\n"
            "The details are in the log.",
        )
    if isinstance(error, BadRequest) and error.has_error_body:
        return ErrorMessage(
            error.title or GENERIC_TITLE, f"{error.failure_message}\nError: {error.error_id}"
        )
    if isinstance(error, RequestTimeout):
        return ErrorMessage(
            error.title or "Request timeout",
            "The service did not complete the request in time, even after retrying. "
            "Please try the same request again later; it will not be carried out twice. "
            "If it keeps failing, contact customer support and quote the request ID "
            f"{error.request_id or 'unknown'}.",
        )
    if isinstance(error, ClosedByDesk):
        return ErrorMessage(
            "No answer", f"{error}\nSend it again: it will not be carried out twice."
        )
    if isinstance(error, ApiTimeoutError):
        return ErrorMessage(
            "No answer",
            f"{error}\nPlease try the same request again later; it will not be carried out twice.",
        )
    if isinstance(error, ApiConnectionError):
        return ErrorMessage(
            "Connection failed", f"{error}\nCheck the network and the server address."
        )
    if isinstance(error, ResponseValidationError):
        return ErrorMessage(
            "Unexpected answer",
            f"{error}\n" + generic_apology(error.request_id or "unknown", "request ID"),
        )
    if error.has_error_body:
        assert error.error_id is not None
        return ErrorMessage(error.title or GENERIC_TITLE, generic_apology(error.error_id))
    # a proxy's HTML page, an empty body: no error id, so quote our own request id
    status = f"HTTP {error.status}" if error.status is not None else "an unknown answer"
    return ErrorMessage(
        error.title or "Unexpected answer",
        f"The service answered {status} without error details. "
        + generic_apology(error.request_id or "unknown", "request ID"),
    )


class ErrorPresenter:
    """Shows errors as non-blocking message boxes with one OK button (never exec())."""

    def __init__(self, parent: QWidget | None = None) -> None:
        self._parent = parent
        self.open_boxes: list[QMessageBox] = []
        # the request each error ID shown belongs to: support is given the one from a box
        self.request_of_error: dict[str, str] = {}
        # a 401 brings the sign-in back instead of a box; its callback reruns the action
        self.on_unauthorized: Callable[[Callable[[], object] | None], None] | None = None

    def show(
        self, error: BaseException, after_sign_in: Callable[[], object] | None = None
    ) -> QMessageBox | None:
        """The box for the error (None when a 401 went to the sign-in instead, which runs
        ``after_sign_in`` — the interrupted action, with its own action key — once signed in)."""
        if isinstance(error, Unauthorized) and self.on_unauthorized is not None:
            self.on_unauthorized(after_sign_in)
            return None
        if isinstance(error, ApiError) and error.error_id and error.request_id:
            self.request_of_error[error.error_id] = error.request_id
        message = message_for(error)
        # here, not at the top: making the types of Qt's namespace and of QMessageBox costs
        # a sixth of the start, which the first paint need not wait for
        from PySide6.QtCore import Qt
        from PySide6.QtWidgets import QMessageBox

        box = QMessageBox(self._parent)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle(message.title)
        # the service's text is shown character for character, never read as HTML
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(message.text)
        box.setStandardButtons(QMessageBox.StandardButton.Ok)
        # support agents copy the error id from the box
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        from app.ui.common.names import name_box

        name_box(box, "errorBox")
        if not isinstance(error, ApiError):
            box.setDetailedText("".join(traceback.format_exception(error)))
        self.open_boxes.append(box)
        box.finished.connect(lambda _result, b=box: self._closed(b))
        box.open()
        return box

    def _closed(self, box: QMessageBox) -> None:
        if box in self.open_boxes:
            self.open_boxes.remove(box)
        box.deleteLater()
