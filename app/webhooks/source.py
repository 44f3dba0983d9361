"""Where the desk reads registration events from: a store (SQLite file or PostgreSQL URL) —
and, against the embedded sandbox, a receiver of its own on loopback, subscribed to the
sandbox with the sandbox's public key, so events arrive with no set-up. No Qt; blocking store
work runs off the caller's loop."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from app.core.tls import tls_context

if TYPE_CHECKING:
    from app.webhooks.delivery import Event
    from app.webhooks.receiver import BackgroundReceiver
    from app.webhooks.store import EventStore


class EventsSource:
    def __init__(self, store_spec: str | Path, *, sandbox_url: str | None = None) -> None:
        self.store_spec = store_spec
        self.sandbox_url = sandbox_url
        self.store: EventStore | None = None
        self.receiver: BackgroundReceiver | None = None
        self.subscription_id: str | None = None
        self.problem: str | None = None  # why events cannot be read, when they cannot
        self._starting: asyncio.Future[None] | None = None

    @property
    def sandbox(self) -> bool:
        return self.sandbox_url is not None

    async def start(self) -> None:
        """Open the store; in sandbox mode also run the receiver and subscribe it. One start
        runs at a time and runs to its end even when the caller is cancelled (a receiver
        half started would be left running); a failed start is tried again by the next."""
        if self._starting is None or (
            self._starting.done()
            and (self._starting.cancelled() or self._starting.exception() is not None)
        ):
            self._starting = asyncio.ensure_future(self._start())
        await asyncio.shield(self._starting)

    async def _start(self) -> None:
        # the store's and receiver's packages (cryptography, uvicorn) are loaded on a worker
        # thread, here and not on import: the window signs in and loads meanwhile
        await asyncio.to_thread(importlib.import_module, "app.webhooks.receiver")
        from app.webhooks.receiver import BackgroundReceiver
        from app.webhooks.signature import load_public_key
        from app.webhooks.store import StoreError, open_store

        if self.store is None:
            try:
                self.store = await asyncio.to_thread(open_store, self.store_spec)
            except StoreError as exc:
                self.problem = str(exc)
                raise
        if self.sandbox_url is None or self.subscription_id is not None:
            return
        if self.receiver is None:
            pem = await self._control("GET", "/_sandbox/webhooks/public-key")
            receiver = BackgroundReceiver(self.store, load_public_key(pem.encode()))
            await asyncio.to_thread(receiver.start)
            self.receiver = receiver
        created = await self.subscribe(self.receiver.url, "*", signed=True)
        self.subscription_id = str(created["id"])

    async def events(
        self, *, event_type: str | None = None, status: str | None = None, last: int = 1000
    ) -> list[Event]:
        """The most recent ``last`` events (by occurred_at), newest first."""
        await self.start()
        store = self.store
        assert store is not None

        def read() -> list[Event]:
            return store.list(event_type=event_type, status=status, limit=last, newest_first=True)

        return await asyncio.to_thread(read)

    # -- the sandbox's subscriptions

    async def _control(self, method: str, path: str, body: Any = None) -> Any:
        assert self.sandbox_url is not None
        tls = tls_context(self.sandbox_url)
        async with httpx.AsyncClient(base_url=self.sandbox_url, timeout=10, verify=tls) as client:
            answer = await client.request(method, path, json=body)
        if answer.status_code != 200:
            from app.webhooks.store import StoreError

            try:
                reason = answer.json()["failure_message"]
            except (ValueError, KeyError, TypeError):
                reason = f"HTTP {answer.status_code}"
            raise StoreError(f"The sandbox refused {method} {path}: {reason}")
        if path.endswith("public-key"):
            return answer.text
        return answer.json()

    async def subscriptions(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = await self._control("GET", "/_sandbox/webhooks/subscriptions")
        return found

    async def subscribe(self, url: str, filter_text: str, *, signed: bool) -> dict[str, Any]:
        body: dict[str, Any] = {"url": url, "filter": filter_text}
        if signed:
            body["public_key_pem"] = await self._control("GET", "/_sandbox/webhooks/public-key")
        created: dict[str, Any] = await self._control(
            "POST", "/_sandbox/webhooks/subscriptions", body
        )
        return created

    async def unsubscribe(self, subscription_id: str) -> None:
        await self._control("DELETE", f"/_sandbox/webhooks/subscriptions/{subscription_id}")

    async def aclose(self) -> None:
        if self._starting is not None and not self._starting.done():
            with contextlib.suppress(Exception):  # its failure was said where it was awaited
                await asyncio.shield(self._starting)
        if self.receiver is not None:
            from app.webhooks.store import StoreError

            if self.subscription_id is not None:
                # the sandbox may be gone already
                with contextlib.suppress(StoreError, httpx.HTTPError):
                    await self.unsubscribe(self.subscription_id)
            await asyncio.to_thread(self.receiver.stop)
            self.receiver = None
        if self.store is not None:
            await asyncio.to_thread(self.store.close)
            self.store = None
