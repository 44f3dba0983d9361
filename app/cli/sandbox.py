"""``partner-desk sandbox``: the embedded sandbox in the foreground."""

from __future__ import annotations

import sys

from app.cli.common import EXIT_API_FAILURE, EXIT_INVALID_INPUT
from app.serving.sockets import bind
from app.serving.stopping import stop_signals_taken


def run(port: int, host: str, settle_seconds: float, *, with_parent: bool = False) -> int:
    if not 0 <= port <= 65535:
        print(f"partner-desk sandbox: --port must be from 0 to 65535, not {port}", file=sys.stderr)
        return EXIT_INVALID_INPUT
    try:
        sock = bind(host, port)
    except OSError as exc:
        print(f"partner-desk sandbox: cannot listen on {host}:{port}: {exc}", file=sys.stderr)
        return EXIT_API_FAILURE
    # taken since the command began (app.cli.main): a stop asked for meanwhile, or while it
    # ends, ends it gracefully
    stop = stop_signals_taken()
    # said as soon as the socket listens: what connects meanwhile waits in its backlog while
    # the sandbox is imported and builds its demo data, so the window's start overlaps ours
    print(f"Sandbox listening on http://{host}:{sock.getsockname()[1]}", flush=True)
    from app.sandbox.server import serve_forever

    serve_forever(sock, settle_seconds=settle_seconds, with_parent=with_parent, stop=stop)
    return 0
