"""``partner-desk sandbox``: the embedded sandbox in the foreground."""

from __future__ import annotations

import sys

from app.cli.common import EXIT_API_FAILURE, EXIT_INVALID_INPUT
from app.serving.sockets import bind
from app.serving.stopping import stopped_by_signals


def run(port: int, host: str, settle_seconds: float, *, with_parent: bool = False) -> int:
    if not 0 <= port <= 65535:
        print(f"partner-desk sandbox: --port must be from 0 to 65535, not {port}", file=sys.stderr)
        return EXIT_INVALID_INPUT
    try:
        sock = bind(host, port)
    except OSError as exc:
        print(f"partner-desk sandbox: cannot listen on {host}:{port}: {exc}", file=sys.stderr)
        return EXIT_API_FAILURE
    # SIGTERM and Ctrl-C stop it gracefully from before it says it listens: one sent as soon
    # as it has said so ended it the default way (status -15) while it was coming up
    with stopped_by_signals() as stop:
        # said as soon as the socket listens: what connects meanwhile waits in its backlog
        # while the sandbox is imported and builds its demo data, so the window's start
        # overlaps ours
        print(f"Sandbox listening on http://{host}:{sock.getsockname()[1]}", flush=True)
        from app.sandbox.server import serve_forever

        serve_forever(sock, settle_seconds=settle_seconds, with_parent=with_parent, stop=stop)
    return 0
