"""The C heap keeps freed memory for reuse once a statement is read: later rounds of the same
allocations fault no page in (glibc only; in a process of its own, as the setting is the
whole process's)."""

import platform
import subprocess
import sys

import pytest

ROUNDS = """
import resource, sys
if sys.argv[1] == "kept":
    from app.core.heap import keep_freed_memory
    assert keep_freed_memory()
elif sys.argv[1] == "statement":  # set by reading a statement, as the window and the CLI do
    import asyncio, datetime as dt, httpx
    from app.api.banking import BankingClient
    from app.api.banking.transport import banking_transport
    from app.api.profile import Profile
    answer = httpx.Response(200, json=[])
    profile = Profile("https://bank.example", "demo", "secret", "PC")
    client = BankingClient(
        banking_transport(profile, transport=httpx.MockTransport(lambda request: answer))
    )
    day = dt.date(2024, 1, 1)
    assert asyncio.run(client.get_statement("C1", "A1", day, day)) == []
def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
def allocate():  # 48 MiB in blocks of a statement's pieces, then all freed
    blocks = [bytearray(256 * 1024) for _ in range(192)]
    del blocks
allocate(); allocate()
before = faults()
for _ in range(3):
    allocate()
print(faults() - before)
"""
PAGES = 3 * 48 * 1024 * 1024 // 4096  # of the three rounds counted


def faults_of_later_rounds(mode: str) -> int:
    answer = subprocess.run(
        [sys.executable, "-c", ROUNDS, mode], capture_output=True, text=True, check=True
    )
    return int(answer.stdout)


@pytest.mark.skipif(
    sys.platform != "linux" or platform.libc_ver()[0] != "glibc", reason="glibc's settings"
)
def test_memory_freed_is_reused_without_faulting_its_pages_in_again():
    if faults_of_later_rounds("default") < PAGES // 4:
        pytest.skip("this glibc keeps the memory by itself: nothing to tell apart")
    assert faults_of_later_rounds("kept") < PAGES // 10
    assert faults_of_later_rounds("statement") < PAGES // 10
