"""``partner-desk sandbox``: the embedded sandbox in the foreground."""

from __future__ import annotations

import sys

from app.cli.common import EXIT_API_FAILURE, EXIT_INVALID_INPUT
from app.sandbox.server import serve_forever


def run(port: int, host: str, settle_seconds: float, *, with_parent: bool = False) -> int:
    if not 0 <= port <= 65535:
        print(f"partner-desk sandbox: --port must be from 0 to 65535, not {port}", file=sys.stderr)
        return EXIT_INVALID_INPUT
    try:
        serve_forever(
            port,
            host=host,
            settle_seconds=settle_seconds,
            announce=lambda line: print(line, flush=True),
            with_parent=with_parent,
        )
    except OSError as exc:
        print(f"partner-desk sandbox: cannot listen on {host}:{port}: {exc}", file=sys.stderr)
        return EXIT_API_FAILURE
    return 0
