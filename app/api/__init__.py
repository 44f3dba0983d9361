"""Async service layer over httpx: no Qt."""

import sys

# httpx's command line, which httpx imports with itself when it can: click and, where
# installed, pygments, 50 ms of the window's way to its first page. None here makes that
# import fail, as it does where click is not installed, and httpx goes without it.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
