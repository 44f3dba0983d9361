"""Text from elsewhere (a server, a file) made fit to quote in a message or a terminal: no
control or escape characters, which a terminal would obey, and no card number, security code
or credential, which the window's messages and the logs mask too (app.core.redaction)."""

from __future__ import annotations

import re

from app.core.gateway.cards import number_cut_off

LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # what JSON's "\ud800" makes: no text holds it
_LOOKED_AT = 4096  # characters past a quote's cut that are redacted with it, at most


def printable(text: str, limit: int = 200) -> str:
    """No control or escape characters, no secret, and not endless."""
    redacted = _redacted(text, limit)
    if len(redacted) > limit:  # a longer run of digits, no card, cut into one: left out
        redacted = number_cut_off(redacted[:limit])  # before a no-break space becomes "?"
    cleaned = "".join(ch if ch.isprintable() else "?" for ch in redacted)
    return cleaned + ("…" if len(text) > limit else "")


def mended(text: str) -> str:
    """The text with each lone surrogate shown as U+FFFD, the replacement character: fit to
    show (Qt and UTF-8 refuse one) without losing the rest."""
    return LONE_SURROGATE.sub("\ufffd", text)


def terminal_safe(text: str) -> str:
    """Text as a terminal may be given it: line breaks and tabs kept, every other control or
    format character (escape sequences, a carriage return, a bidirectional override) shown
    as "?", and every secret masked."""
    text = _redacted(text, len(text))
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() or ch in "\n\t" else "?" for ch in text)


def _redacted(text: str, limit: int) -> str:
    """The text's first ``limit`` characters and then some, secrets masked: a secret cut
    off there is masked whole (masked, those before it are shorter and bring more into the
    quote), and a number the cut ends the text in is left out, not shown in part."""
    from app.core.redaction import redact  # here: the window shows before it loads

    head = text[: limit + _LOOKED_AT]
    if len(head) < len(text):
        head = number_cut_off(head)
    return redact(head)
