"""Answers of create and update operations kept by (user, x-request-id), so that a retry with
the same key is answered as the first was and a different request under it is refused."""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

IDEMPOTENCY_ENTRIES = 50_000  # answers kept for replay; the oldest are forgotten first


@dataclass
class StoredAnswer:
    fingerprint: str
    status: int
    body: bytes


class Idempotency:
    """Answers of create and update operations by (user, x-request-id), bounded."""

    def __init__(self, capacity: int = IDEMPOTENCY_ENTRIES) -> None:
        self.capacity = capacity
        self._answers: OrderedDict[tuple[str, str], StoredAnswer] = OrderedDict()

    def get(self, key: tuple[str, str]) -> StoredAnswer | None:
        return self._answers.get(key)

    def put(self, key: tuple[str, str], answer: StoredAnswer) -> None:
        self._answers[key] = answer
        while len(self._answers) > self.capacity:
            self._answers.popitem(last=False)

    def __len__(self) -> int:
        return len(self._answers)


def fingerprint(parsed: Any) -> str:
    canonical = json.dumps(parsed, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()
