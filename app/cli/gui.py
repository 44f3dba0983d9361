"""The window (no command): it starts before anything of the service layer is imported."""

from __future__ import annotations

from collections.abc import Callable

from app.cli import own_command


def run(
    base_url: str | None = None, gateway_url: str | None = None, profile: str | None = None
) -> int:
    """The window, on the embedded sandbox in a child process of its own, or on the server
    that ``--base-url``/``--profile`` name (its sign-in asked for)."""
    from app.core.gc_pause import pause_for_start

    pause_for_start()  # until the first page is shown (MainWindow.connect_backend)
    stops: list[Callable[[], None]] = []
    if any(part is not None for part in (base_url, gateway_url, profile)):
        sandbox = None
    else:
        # the embedded sandbox comes up while the window does: its child is spawned first
        # thing, before Qt is even imported (a window signed in elsewhere stops it)
        from app.serving.child import SandboxProcess

        sandbox = SandboxProcess(own_command())
        sandbox.spawn()
        stops.append(sandbox.stop)

    def start_sandbox() -> str:
        nonlocal sandbox
        if sandbox is None:
            from app.serving.child import SandboxProcess

            sandbox = SandboxProcess(own_command())
            stops.append(sandbox.stop)
        return sandbox.start()

    def stop_sandbox() -> None:
        if sandbox is not None:
            sandbox.stop()

    from app.ui.shell.app import run_gui

    try:
        return run_gui(start_sandbox, stop_sandbox, server=(base_url, gateway_url, profile))
    finally:
        for stop in stops:
            stop()
