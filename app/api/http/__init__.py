"""The HTTP of the desk's calls, shared by every service and knowing none: sending with a
deadline, retrying with jitter, bounding and decoding answers, naming failures."""

from __future__ import annotations

from app.api.http.exchange import Answer, Exchange, ExchangeListener
from app.api.http.failures import describe_transport_error
from app.api.http.policy import Bounds, RetryPolicy
from app.api.http.transport import AnswerStream, Transport

__all__ = [
    "Answer",
    "AnswerStream",
    "Bounds",
    "Exchange",
    "ExchangeListener",
    "RetryPolicy",
    "Transport",
    "describe_transport_error",
]
