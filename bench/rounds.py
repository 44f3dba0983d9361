"""A measuring process driven a round at a time, so that the rounds of two sides (the window
and its peers) alternate, each round beside its peer's in time: this machine's speed moves by
a third from minute to minute, and rounds measured a minute apart compared the minutes."""

from __future__ import annotations

import contextlib
import json
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from types import TracebackType
from typing import IO, Any

DEADLINE_SECONDS = 600  # the whole process's; then it is killed, and the bench fails


class Rounds:
    """A process that prints one JSON line once it has measured what it measures first (a
    statement read or loaded), one line for each round asked of it (a line "round" on its
    stdin), and its figures, every round's among them, as its last line once its stdin
    closes. Its stderr goes to a file, read back only to say why it failed."""

    def __init__(self, command: Sequence[str], env: dict[str, str] | None = None) -> None:
        self._errors: IO[str] = tempfile.TemporaryFile("w+")  # noqa: SIM115 - closed by _end
        self._process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._errors,
            text=True,
            env=env,
        )
        self._deadline = threading.Timer(DEADLINE_SECONDS, self._process.kill)
        self._deadline.start()
        try:
            self.first: dict[str, Any] = json.loads(self._line())
        except BaseException:
            self._end()
            raise

    def __enter__(self) -> Rounds:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._end()

    def round(self) -> None:
        """One round, measured while this returns."""
        stdin = self._process.stdin
        assert stdin is not None
        stdin.write("round\n")
        stdin.flush()
        self._line()

    def finish(self) -> dict[str, Any]:
        """Its figures, once it has ended."""
        stdin = self._process.stdin
        assert stdin is not None
        stdin.close()
        figures: dict[str, Any] = json.loads(self._line())
        if self._process.wait() != 0:
            raise RuntimeError(f"a measuring process failed: {self._said()}")
        return figures

    def _line(self) -> str:
        stdout = self._process.stdout
        assert stdout is not None
        line = stdout.readline()
        if not line:
            self._process.wait()
            raise RuntimeError(f"a measuring process ended early: {self._said()}")
        return line

    def _said(self) -> str:
        self._errors.seek(0)
        return self._errors.read()[-3000:]

    def _end(self) -> None:
        self._deadline.cancel()
        if self._process.poll() is None:
            self._process.kill()
        self._process.wait()
        for stream in (self._process.stdin, self._process.stdout, self._errors):
            if stream is not None:
                with contextlib.suppress(OSError):  # a pipe to a process gone
                    stream.close()
