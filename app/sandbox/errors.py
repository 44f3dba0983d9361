"""Refusals the sandbox answers with the contract's error body."""

from __future__ import annotations


class Refusal(Exception):
    """A request the sandbox refuses; becomes ``{"failure_message", "detail": {...}}``."""

    def __init__(self, message: str, title: str = "Invalid request", status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.title = title
        self.status = status


def not_found(what: str) -> Refusal:
    # The contract declares no 404 for operations: unknown resources are a 400.
    return Refusal(f"{what} not found", title="Not found")


def not_allowed(message: str) -> Refusal:
    return Refusal(message, title="Operation not allowed")
