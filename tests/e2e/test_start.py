"""The window's start as a person sees it, the program run as it is installed: its frame
first, then the first clients painted, on the embedded sandbox spawned before Qt loads."""

import os
import subprocess
import sys

from app.ui.shell.app import USABLE_ENV


def test_the_window_paints_its_frame_then_its_first_clients_and_ends_cleanly():
    env = {**os.environ, USABLE_ENV: "1", "QT_QPA_PLATFORM": "offscreen"}
    result = subprocess.run(
        [sys.executable, "-m", "app.cli"], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0, result.stderr
    moments = [line.split() for line in result.stdout.splitlines()]
    assert [word for word, _ in moments] == ["shown", "usable"]
    assert float(moments[0][1]) <= float(moments[1][1])
    assert "Traceback" not in result.stderr


def test_the_sandbox_says_its_address_before_it_is_imported_and_answers_what_waited():
    """The address is said as soon as the socket listens, before the sandbox is imported
    (-X importtime writes each import as it ends, in the same stream); a call made at once
    waits in the backlog and is answered once the sandbox is up."""
    import httpx

    command = [sys.executable, "-X", "importtime", "-m", "app.cli", "sandbox", "--port", "0"]
    with subprocess.Popen(
        [*command, "--with-parent"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    ) as child:
        assert child.stdout is not None and child.stdin is not None
        before = []
        while not (line := child.stdout.readline()).startswith("Sandbox listening on"):
            assert line, "the sandbox ended without saying its address"
            before.append(line)
        assert not [line for line in before if "app.sandbox" in line]
        answer = httpx.get(line.split()[-1] + "/v1/healthcheck", timeout=30)
        assert answer.status_code == 200
        child.stdin.close()  # its parent's end: the sandbox stops
        after = child.stdout.read()
    assert child.returncode == 0
    assert "app.sandbox.server" in after
