"""What every command shares: its exit statuses, the environment it reads, an API error in a
line, and output that lets no control character reach the terminal."""

from __future__ import annotations

import sys
from typing import TextIO, cast

from app.api.errors import ApiError
from app.core.text import printable, terminal_safe

EXIT_INVALID_INPUT = 2
EXIT_API_FAILURE = 1

PASSWORD_ENV = "PARTNER_DESK_PASSWORD"  # noqa: S105 - the name of a variable, not a secret
GATEWAY_URL_ENV = "PARTNER_DESK_GATEWAY_URL"
LOCAL_GATEWAY = "http://127.0.0.1:8080/gateway"  # partner-desk sandbox's default port


class _TerminalSafe:
    """A text stream that lets no control character through to the terminal: whatever a
    command prints (a server's message, a stored event, a log line) cannot move the cursor,
    recolour the terminal or rewrite a line."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(terminal_safe(text))
        return len(text)

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


def terminal_safe_output() -> None:
    sys.stdout = cast("TextIO", _TerminalSafe(sys.stdout))
    sys.stderr = cast("TextIO", _TerminalSafe(sys.stderr))


def fail(command: str, message: object) -> None:
    """A command's refusal on stderr: ``partner-desk COMMAND: message``."""
    print(f"partner-desk {command}: {message}", file=sys.stderr)


def describe(error: ApiError) -> str:
    """An API error in one line, as its box would say it."""
    if error.has_error_body:
        title, message = printable(error.title or ""), printable(error.failure_message or "")
        return f"{title}: {message} (Error: {printable(error.error_id or '', 80)})"
    return printable(str(error), 500)
