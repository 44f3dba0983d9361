"""The webhook receiver under load: 32 concurrent senders POST signed deliveries to
`partner-desk webhooks serve` (its own process, signatures checked, SQLite store; then a
PostgreSQL store from pgserver). Figures: events verified and durably stored per second, the
99th percentile of the time to acknowledge, and a check that none was lost or stored twice."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

EVENTS = 4000
SENDERS = 32
EXE = str(Path(sys.executable).with_name("partner-desk"))


def _deliveries(count: int) -> list[tuple[dict[str, str], bytes, str]]:
    from tests.webhook_helpers import delivery, event_body

    made = []
    for _ in range(count):
        body = event_body()
        headers, raw = delivery(body)
        made.append((headers, raw, body["event_id"]))
    return made


async def _send(url: str, deliveries: list[tuple[dict[str, str], bytes, str]]) -> list[float]:
    queue: asyncio.Queue[tuple[dict[str, str], bytes, str]] = asyncio.Queue()
    for item in deliveries:
        queue.put_nowait(item)
    latencies: list[float] = []
    limits = httpx.Limits(max_connections=SENDERS, max_keepalive_connections=SENDERS)

    async def sender(client: httpx.AsyncClient) -> None:
        while not queue.empty():
            headers, raw, _event_id = queue.get_nowait()
            started = time.perf_counter()
            answer = await client.post(url, content=raw, headers=headers)
            latencies.append((time.perf_counter() - started) * 1000)
            if answer.status_code != 200:
                raise RuntimeError(f"refused: {answer.status_code} {answer.text}")

    async with httpx.AsyncClient(limits=limits, timeout=30) as client:
        await asyncio.gather(*(sender(client) for _ in range(SENDERS)))
    return latencies


def _measure(db: str, label: str) -> list[dict[str, Any]]:
    from app.webhooks.store import open_store
    from tests.webhook_helpers import PUBLIC_PEM

    key_file = Path(tempfile.mkdtemp()) / "public.pem"
    key_file.write_bytes(PUBLIC_PEM)
    process = subprocess.Popen(
        [EXE, "webhooks", "serve", "--port", "0", "--db", db, "--public-key", str(key_file)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    match = re.fullmatch(r"Webhook receiver listening on (\S+)\n", process.stdout.readline())
    assert match, "the receiver did not start"
    deliveries = _deliveries(EVENTS)
    try:
        asyncio.run(_send(match.group(1), deliveries[:200]))  # warm up
        started = time.perf_counter()
        latencies = asyncio.run(_send(match.group(1), deliveries[200:]))
        elapsed = time.perf_counter() - started
    finally:
        process.terminate()
        process.communicate(timeout=30)
    store = open_store(db)
    try:
        stored = store.list(limit=EVENTS + 10)
    finally:
        store.close()
    ids = {event_id for _, _, event_id in deliveries}
    lost = len(ids - {event.event_id for event in stored})
    twice = len(stored) - len({event.event_id for event in stored})
    latencies.sort()
    p99 = latencies[int(len(latencies) * 0.99) - 1]
    return [
        {
            "name": f"webhook_events_per_s{label}",
            "value": round(len(latencies) / elapsed, 1),
            "unit": "events/s",
            "senders": SENDERS,
            "events": len(latencies),
        },
        {"name": f"webhook_ack_p99_ms{label}", "value": round(p99, 1), "unit": "ms"},
        {"name": f"webhook_lost{label}", "value": lost, "unit": "events", "stored_twice": twice},
    ]


def run() -> list[dict[str, Any]]:
    figures = _measure(str(Path(tempfile.mkdtemp()) / "bench.db"), "")
    try:
        import pgserver
    except ImportError:
        return figures
    server = pgserver.get_server(tempfile.mkdtemp(prefix="pd-bench-pg-"), cleanup_mode="stop")
    try:
        figures += _measure(server.get_uri(), "_postgresql")
    finally:
        server.cleanup()
    return figures
