"""What every command shares: its exit statuses, the environment it reads, an API error in a
line, and output that lets no control character reach the terminal."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TextIO, cast

from app.api.errors import ApiError
from app.core.text import printable, terminal_safe

if TYPE_CHECKING:
    from app.api.banking import BankingClient

EXIT_INVALID_INPUT = 2
EXIT_API_FAILURE = 1

PASSWORD_ENV = "PARTNER_DESK_PASSWORD"  # noqa: S105 - the name of a variable, not a secret
GATEWAY_URL_ENV = "PARTNER_DESK_GATEWAY_URL"
LOCAL_GATEWAY = "http://127.0.0.1:8080/gateway"  # partner-desk sandbox's default port
BASE_URL_ENV = "PARTNER_DESK_BASE_URL"
LOCAL_API = "http://127.0.0.1:8080"  # the same sandbox's banking API


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


def password_for(
    command: str, base_url: str | None, user: str, url_env: str, local_url: str
) -> tuple[str, str | None]:
    """The address (given, else from ``url_env``, else the local sandbox's) and the password:
    from PARTNER_DESK_PASSWORD, the local sandbox's published demo one, or asked in a terminal;
    None (said on stderr) when there is none to be had."""
    import getpass
    import os

    given = os.environ.get(PASSWORD_ENV)
    if base_url is None:
        base_url = os.environ.get(url_env) or local_url
        if base_url == local_url and given is None and user == "demo":
            given = "demo"  # the local sandbox's published demo password
    if given is None and not sys.stdin.isatty():
        fail(command, f"set {PASSWORD_ENV} or run it in a terminal to be asked")
        return base_url, None
    return base_url, given if given is not None else getpass.getpass(f"Password of {user}: ")


def banking_client(command: str, base_url: str, user: str, password: str) -> BankingClient | None:
    """The banking API's client for a command, or None when the address
    is one the desk must not call (said on stderr)."""
    from app.api.banking import BankingClient
    from app.api.banking.transport import banking_transport
    from app.api.http import RetryPolicy
    from app.api.profile import Profile

    profile = Profile(base_url=base_url, user=user, password=password, partner_code="partner-desk")
    try:
        return BankingClient(banking_transport(profile, retry=RetryPolicy(attempts=3)))
    except ApiError as exc:
        fail(command, exc)
        return None


def fail(command: str, message: object) -> None:
    """A command's refusal on stderr: ``partner-desk COMMAND: message``."""
    print(f"partner-desk {command}: {message}", file=sys.stderr)


def describe(error: ApiError) -> str:
    """An API error in one line, as its box would say it."""
    if error.has_error_body:
        title, message = printable(error.title or ""), printable(error.failure_message or "")
        return f"{title}: {message} (Error: {printable(error.error_id or '', 80)})"
    return printable(str(error), 500)
