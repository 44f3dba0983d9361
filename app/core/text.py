"""Text from elsewhere (a server, a file) made fit to quote in a message or a terminal."""

from __future__ import annotations


def printable(text: str, limit: int = 200) -> str:
    """No control or escape characters (a terminal would obey them), and not endless."""
    cleaned = "".join(ch if ch.isprintable() else "?" for ch in text[:limit])
    return cleaned + ("…" if len(text) > limit else "")
