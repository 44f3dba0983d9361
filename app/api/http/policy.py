"""How long and how large one call may be, and how it is tried again."""

from __future__ import annotations

import random
from dataclasses import dataclass

MiB = 1024 * 1024


@dataclass(frozen=True)
class Bounds:
    """How long and how large one call may be (documented in the README)."""

    deadline: float = 30.0  # seconds for a whole call: every try, the backoff and the answer
    step_timeout: float = 15.0  # seconds for connecting, or between two bytes of the answer
    answer_bytes: int = 16 * MiB  # a JSON answer, decompressed
    # values of one JSON answer, told by its commas (a page holds at most 100 items, some
    # thousands of values): parsed, 16 MiB of "0," took 741 MB, and a wrong value each an
    # error of its own 12 GB
    answer_values: int = 100_000
    error_bytes: int = 64 * 1024  # an error body, decompressed; the rest is not read
    stream_total: float = 600.0  # seconds for a whole streamed answer
    record_bytes: int = 1 * MiB  # one record of a streamed answer
    stream_records: int = 1_500_000  # records of one streamed answer
    # bytes of one streamed answer, decompressed: its records' text is held (records of
    # 900 KB each, under the record's cap, took 1.7 GB at 2,000); a million plain ones: 280 MB
    stream_bytes: int = 512 * MiB


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 3  # the first try and two retries
    backoff: float = 0.5  # seconds before the first retry; doubles each time
    max_backoff: float = 4.0

    def delay(self, retry: int) -> float:
        """The wait before the ``retry``-th retry (0 for the first): the backoff doubled each
        time, up to its maximum, then between half of it and all of it at random, so that
        desks refused at once do not all come back at once."""
        wait = min(self.backoff * 2.0**retry, self.max_backoff)
        return wait * random.uniform(0.5, 1.0)  # noqa: S311 - spreading, not secrecy
