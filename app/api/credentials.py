"""Passwords in the OS keyring, never in a file.

Headless Linux has no keyring backend (``keyring.backends.fail``): then a password is kept for
this session only, in memory, and ``persistent`` says so, so the window can tell the user.
"""

from __future__ import annotations

import contextlib
from typing import Any

SERVICE_PREFIX = "partner-desk"


def _keyring() -> Any:
    # imported on first use: keyring takes longer to load than the whole window
    import keyring

    return keyring


def _errors() -> type[Exception]:
    from keyring.errors import KeyringError

    return KeyringError


class Credentials:
    def __init__(self) -> None:
        self._session: dict[tuple[str, str], str] = {}

    @property
    def persistent(self) -> bool:
        """Whether passwords outlive the session (a real keyring is there)."""
        from keyring.backends import fail

        return not isinstance(_keyring().get_keyring(), fail.Keyring)

    @staticmethod
    def _service(profile: str) -> str:
        return f"{SERVICE_PREFIX}:{profile}"

    def get(self, profile: str, user: str) -> str | None:
        if (profile, user) in self._session:
            return self._session[(profile, user)]
        if not self.persistent:
            return None
        try:
            password: str | None = _keyring().get_password(self._service(profile), user)
        except _errors():
            return None
        return password

    def set(self, profile: str, user: str, password: str) -> bool:
        """Keep the password; True when it went to the keyring, False when session-only."""
        self._session[(profile, user)] = password
        if not self.persistent:
            return False
        try:
            _keyring().set_password(self._service(profile), user, password)
        except _errors():
            return False
        return True

    def delete(self, profile: str, user: str) -> None:
        self._session.pop((profile, user), None)
        if self.persistent:
            with contextlib.suppress(_errors()):  # nothing stored: nothing to delete
                _keyring().delete_password(self._service(profile), user)
