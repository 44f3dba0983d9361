"""Redaction of what must never reach a log: card numbers (anything shaped like one), the
card security code (``cvv``/``csc``/``cvc`` fields) and ``Authorization`` header values.

``install()`` makes every log record of the process redacted at its creation, whatever logger
or handler it goes through, so the app and the sandbox apply the same rule once.
"""

from __future__ import annotations

import logging
import re
import traceback
import urllib.parse
from typing import Any

from app.core.gateway.cards import mask_card_numbers

# "cvv": "123", cvv=123, 'csc': '1234', cvc 123, cvc2, cardCvv, cvv_code, security_code,
# <cvv>123</cvv>, [cvv] => 123, ('cvv', '123'), {"name": "cvv", "value": "123"},
# <input name="cvv" value="123">, JSON inside JSON (\"cvv\": \"123\") and in a URL
# (%22cvv%22%3A%22123%22): the code after the field's name, in any digits
_SECURITY_CODE = re.compile(
    r"""(?P<name>(?:(?:cvv|cvc|csc)2?(?:[_-]?code)?|security[_ -]?code)(?![A-Za-z])"""
    r"""(?:\\?["']|%22|\])?\s*+(?:(?:=>|->|[:=>,]|%3[aAdD])\s*+)?"""
    r"""(?:(?:\\?["'])?value(?:\\?["'])?\s*+[:=]\s*+)?(?:\[\s*+)?(?:b?\\?["']|%22)?)"""
    r"""(?P<code>\d{3,4})(?!\d)""",
    re.IGNORECASE,
)
# the schemes whose word is kept before the masked credentials (RFC 9110's registry and those
# in use); any other word before a token is masked with it: it may be the secret itself
_SCHEMES = (
    "basic|bearer|digest|token|negotiate|ntlm|hoba|mutual|oauth|apikey|api-key|"
    "scram-sha-1|scram-sha-256|vapid|dpop|gnap|privatetoken|concealed|aws4-hmac-sha256"
)
# Authorization: <scheme> <credentials>, as a header, a dict or list of headers (bytes too),
# a HAR entry or JSON (escaped or not) writes it: a quoted value masked up to its closing
# quote (a Digest's parameters hold commas and quotes of their own), else a token and any
# parameters that follow it (", realm=...")
_AUTHORIZATION = re.compile(
    r"""(?P<name>(?:(?<![A-Za-z])|(?<=\\[nrt]))authorization\\?["']?(?:\s|%20)*+"""
    r"""(?:=>|[:=,>]|%3[aAdD])(?:\s|%20)*+"""
    r"""(?:\\?["']value\\?["']\s*+:\s*+)?(?:\[\s*+)?(?:b(?=\\?["']))?(?P<quote>\\?["'])?"""
    rf"""(?:(?:{_SCHEMES})(?::?(?:[^\S\n]|%20)++|(?=\\?["']))(?=[^\s,)\]<]))?)"""
    r"""(?(quote)(?:(?!(?P=quote))[^\n])+"""
    r"""|(?:"[^"\n]*"?|'[^'\n]*'?"""
    r"""|(?:[A-Za-z]+[^\S\n]+(?=[^\s"',)\]<]))?[^\s"',)\]<]+(?:"[^"\n]*")?"""
    r"""(?:\s*,\s*[A-Za-z][\w-]*=(?:"[^"\n]*"|[^\s,"')<]*))*))""",
    re.IGNORECASE,
)


def redact(text: str) -> str:
    """The text with card numbers masked to their last four digits, security codes and
    authorization credentials replaced by ***."""
    text = mask_card_numbers(text)
    text = _SECURITY_CODE.sub(lambda m: m.group("name") + "***", text)
    return _AUTHORIZATION.sub(_masked_credentials, text)


def _masked_credentials(match: re.Match[str]) -> str:
    return match.group("name") + "***"


def redact_url_part(text: str) -> str:
    """A URL's path or query, percent- and plus-decoded first (``4111+1111…`` and
    ``4111%201111…`` are card numbers too), then redacted."""
    return redact(urllib.parse.unquote_plus(text, errors="replace"))


class RedactingFilter(logging.Filter):
    """Redacts a record in place: its message (with its arguments merged in) and the text of
    its exception."""

    def filter(self, record: logging.LogRecord) -> bool:
        redact_record(record)
        return True


def redact_record(record: logging.LogRecord) -> None:
    if getattr(record, "_redacted", False):
        return
    try:
        message = record.getMessage()
    except Exception:  # a record whose arguments do not fit its format: keep both apart
        message = f"{record.msg!s} {record.args!r}"
    record.msg = redact(message)
    record.args = None
    if record.exc_info and record.exc_info[0] is not None and not record.exc_text:
        record.exc_text = redact("".join(traceback.format_exception(*record.exc_info)).rstrip())
    if record.stack_info:
        record.stack_info = redact(record.stack_info)
    record._redacted = True


_installed = False


def install() -> None:
    """Redact every log record created from now on in this process (idempotent)."""
    global _installed
    if _installed:
        return
    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        redact_record(record)
        return record

    logging.setLogRecordFactory(factory)
    _installed = True
