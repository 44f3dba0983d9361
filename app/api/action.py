"""The action key: the idempotency key (x-request-id) of one user action.

It is created by the form or action that owns it and kept until that action's outcome is
known: every automatic retry, the re-run after a 401 sign-in and the user's Save again send the
same request with the same key, so the service carries it out at most once.

A *different* request (the user edited the form after a failure) may not reuse the key — the
service would refuse it as a duplicate — and when the first request's outcome is unknown (no
answer, a timeout, a 5xx) it may not simply go out under a new key either: the first one may
have been carried out. Then the owner must first learn the outcome by sending the first
request again with its key (``last_request``), and build the edit on what that answer says.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from app.api.errors import ApiError
from app.core.ids import unmasked

T = TypeVar("T")


def new_request_id() -> str:
    """A fresh x-request-id: one per user action, kept with its form for every retry; never
    one the masking of card numbers would hide (`unmasked`)."""
    return unmasked(lambda: uuid.uuid4().hex)


class OutcomeUnknown(Exception):
    """A changed request while the previous one's outcome is unknown: replay that one first."""


class ActionKey:
    def __init__(self) -> None:
        self.key = new_request_id()
        self.last_request: Any = None  # what was last sent with the key (a JSON-like value)
        self.outcome_unknown = False
        self.done = False
        self.replayed = False  # the last send went out as the earlier request (see send)

    async def send(self, request: Any, call: Callable[[Any, str], Awaitable[T]]) -> T:
        """Send ``request`` through ``call(request, key)`` with the key this action gives it,
        and settle the key with the outcome (an ApiError is raised on once settled).

        When an earlier request's outcome is unknown and this one differs, the earlier one is
        what goes out, with its key (``replayed`` is then true): its outcome must be known
        before anything else is sent; the changed request is the caller's to send after it,
        under a key of its own."""
        self.replayed = False
        try:
            key = self.key_for(request)
        except OutcomeUnknown:
            request, key, self.replayed = self.last_request, self.key, True
        try:
            result = await call(request, key)
        except ApiError as exc:
            self.settle(exc)
            raise
        self.settle(None)
        return result

    def key_for(self, request: Any) -> str:
        """The key to send this request with: the same for the same request; a new one for a
        changed request once the previous one was refused; OutcomeUnknown while the previous
        one's outcome is unknown."""
        if self.last_request is not None and request != self.last_request:
            if self.outcome_unknown:
                raise OutcomeUnknown
            self.key = new_request_id()  # the previous request was refused: nothing was done
        self.last_request = request
        return self.key

    def settle(self, error: ApiError | None) -> None:
        """Record how the last attempt ended (None: it succeeded)."""
        self.done = error is None
        self.outcome_unknown = error is not None and error.outcome_unknown
