"""The window (no command): it starts before anything of the service layer is imported."""

from __future__ import annotations

from collections.abc import Callable

from app.cli import own_command


def run(
    base_url: str | None = None, gateway_url: str | None = None, profile: str | None = None
) -> int:
    """The window, on the embedded sandbox in a child process of its own, or on the server
    that ``--base-url``/``--profile`` name (its sign-in asked for)."""
    from app.ui.shell.app import run_gui

    stops: list[Callable[[], None]] = []

    def start_sandbox() -> str:
        # imported here, off the GUI thread and after the window shows: a faster start
        from app.serving.child import SandboxProcess

        sandbox = SandboxProcess(own_command())
        stops.append(sandbox.stop)
        return sandbox.start()

    try:
        return run_gui(start_sandbox, server=(base_url, gateway_url, profile))
    finally:
        for stop in stops:
            stop()
