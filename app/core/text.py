"""Text from elsewhere (a server, a file) made fit to quote in a message or a terminal."""

from __future__ import annotations


def printable(text: str, limit: int = 200) -> str:
    """No control or escape characters (a terminal would obey them), and not endless."""
    cleaned = "".join(ch if ch.isprintable() else "?" for ch in text[:limit])
    return cleaned + ("…" if len(text) > limit else "")


def terminal_safe(text: str) -> str:
    """Text as a terminal may be given it: line breaks and tabs kept, every other control or
    format character (escape sequences, a carriage return, a bidirectional override) shown
    as "?"."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() or ch in "\n\t" else "?" for ch in text)
