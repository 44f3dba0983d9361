"""A keyring in memory: tests and the tester's kit install it, so that the keyring of whoever
runs them is never read or written (DESIGN.md)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import keyring
import keyring.backend


class MemoryKeyring(keyring.backend.KeyringBackend):
    priority = 1

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.passwords: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.passwords.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.passwords[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.passwords.pop((service, username), None)


@contextlib.contextmanager
def memory_keyring() -> Iterator[MemoryKeyring]:
    """A keyring in memory for the time inside; the one before is put back."""
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)
