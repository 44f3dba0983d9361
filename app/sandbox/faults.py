"""The fault switch: the next requests whose method and path match answered with any status
and body, before or after acting, or late (the control API sets it; endpoint() takes from it)."""

from __future__ import annotations

import fnmatch
import http
from dataclasses import dataclass
from typing import Any, Literal

from app.sandbox.errors import error_body, status_body


@dataclass
class Fault:
    status: int
    remaining: int
    # before: answer the status without acting; after: act, then answer the status;
    # delay: wait delay_ms, then serve the request as usual (a slow answer)
    mode: Literal["before", "after", "delay"]
    path_contains: str | None
    delay_ms: int = 0  # with before or after: the status is answered this late
    method: str | None = None  # None: any
    path: str | None = None  # a glob of the path without its query (fnmatch), None: any
    body: bytes | None = None  # as sent; None: the service's error body for the status

    def matches(self, method: str, path: str) -> bool:
        return (
            (self.method is None or self.method == method)
            and (self.path_contains is None or self.path_contains in path)
            and (self.path is None or fnmatch.fnmatchcase(path, self.path))
        )

    def answer(self) -> bytes:
        """The body answered: the one given, or the error body the service sends."""
        if self.body is not None:
            return self.body
        try:
            return status_body(self.status)
        except KeyError:  # a status the sandbox has no words of its own for
            phrase = http.HTTPStatus(self.status).phrase
            return error_body(f"{phrase} (a fault set in the sandbox)", phrase)

    def view(self) -> dict[str, Any]:
        shown = {k: v for k, v in vars(self).items() if k != "body"}
        shown["body"] = None if self.body is None else self.body.decode("utf-8", "replace")
        return shown

    @property
    def key(self) -> tuple[str, str | None, str | None, str | None]:
        return self.mode, self.method, self.path, self.path_contains


class Faults:
    def __init__(self) -> None:
        self.active: list[Fault] = []

    def take(self, method: str, path: str, mode: str) -> Fault | None:
        for fault in self.active:
            if fault.mode == mode and fault.matches(method, path):
                fault.remaining -= 1
                if fault.remaining <= 0:
                    self.active.remove(fault)
                return fault
        return None

    def set(self, fault: Fault) -> None:
        """Replace the fault of the same mode, method and path (count 0 only clears it)."""
        self.active = [f for f in self.active if f.key != fault.key]
        if fault.remaining:
            self.active.append(fault)
