"""The fault switch: the next requests of a path answered with a chosen status, before or
after acting, or late (the control API sets it; endpoint() takes from it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass
class Fault:
    status: Literal[408, 500]
    remaining: int
    # before: answer the status without acting; after: act, then answer the status;
    # delay: wait delay_ms, then serve the request as usual (a slow answer)
    mode: Literal["before", "after", "delay"]
    path_contains: str | None
    delay_ms: int = 0


class Faults:
    def __init__(self) -> None:
        self.active: list[Fault] = []

    def take(self, path: str, mode: str) -> Fault | None:
        for fault in self.active:
            if fault.mode == mode and (fault.path_contains is None or fault.path_contains in path):
                fault.remaining -= 1
                if fault.remaining <= 0:
                    self.active.remove(fault)
                return fault
        return None

    def set(self, fault: Fault) -> None:
        """Replace the fault of the same mode and path (count 0 only clears it)."""
        self.active = [
            f for f in self.active if f.mode != fault.mode or f.path_contains != fault.path_contains
        ]
        if fault.remaining:
            self.active.append(fault)
