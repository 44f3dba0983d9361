"""A server of the project in a child process: how the window runs its embedded sandbox, so
that the window's process imports none of the sandbox (a faster start) and a long statement
built there never makes the window wait for the interpreter."""

from __future__ import annotations

import contextlib
import subprocess
import threading
from collections.abc import Sequence


class SandboxProcess:
    """The sandbox in a process of its own, as the window runs it: a long statement built
    there never makes the window wait for the interpreter, and the window's process does
    not import the sandbox at all. The child ends when its stdin closes, which happens when
    this parent stops it or ends in any way."""

    def __init__(self, command: Sequence[str]) -> None:
        """``command`` runs partner-desk: the frozen program, or Python with ``-m app.cli``."""
        self._command = [*command, "sandbox", "--port", "0", "--with-parent"]
        self._process: subprocess.Popen[str] | None = None

    def spawn(self) -> None:
        """Start the child without waiting for it (the window starts it first thing, so that
        it comes up while the window does); nothing if it runs already."""
        if self._process is None:
            self._process = subprocess.Popen(  # noqa: S603 - our own program
                self._command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
            )

    def start(self, timeout: float = 60.0) -> str:
        """Its URL once it listens (spawned now unless it was already); raises RuntimeError
        when it does not come up."""
        self.spawn()
        process = self._process
        assert process is not None and process.stdout is not None
        announced: list[str] = []
        reader = threading.Thread(
            target=lambda: announced.append(process.stdout.readline() if process.stdout else ""),
            daemon=True,
        )
        reader.start()
        reader.join(timeout)
        line = announced[0].strip() if announced else ""
        if not line.startswith("Sandbox listening on http://"):
            self.stop()
            raise RuntimeError(f"the sandbox did not start: {line or 'no answer'}")
        return line.rsplit(" ", 1)[-1]

    def stop(self, timeout: float = 5.0) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        with contextlib.suppress(OSError):
            if process.stdin is not None:
                process.stdin.close()  # the child's cue to end
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout)
        if process.stdout is not None:
            process.stdout.close()
