"""A connection answers a bounded number of requests in one turn of the loop: one client
pipelining thousands cannot keep the others waiting until all of its are answered."""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.server import ServerState

from app.webhooks.connection import ANSWERS_A_TURN
from app.webhooks.receiver import receiver_server


class Noted(asyncio.Transport):
    """A connection's transport that counts the answers written to it, and reads on."""

    def __init__(self, answered: list[str], name: str) -> None:
        super().__init__()
        self.answered, self.name = answered, name
        self.reading, self.closing = True, False

    def write(self, data: Any) -> None:
        self.answered += [self.name] * bytes(data).count(b"HTTP/1.1 200 ")

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def abort(self) -> None:
        self.closing = True

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 1), "sockname": ("127.0.0.1", 2)}.get(name, default)

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True

    def is_reading(self) -> bool:
        return self.reading


def test_a_client_pipelining_thousands_of_requests_lets_another_be_answered_meanwhile():
    pipelined = 2000

    async def scenario() -> tuple[list[str], bool]:
        config = receiver_server(store=None, key=None).config  # type: ignore[arg-type]
        config.load()
        state = ServerState()
        answered: list[str] = []
        flooding, asking = (
            config.http_protocol_class(config=config, server_state=state, app_state={})
            for _ in range(2)
        )
        flooding.connection_made(Noted(answered, "flooding"))
        asking.connection_made(Noted(answered, "asking"))
        health = b"GET /health HTTP/1.1\r\nHost: r\r\n\r\n"
        flooding.data_received(health * pipelined)
        paused_meanwhile = not flooding.transport.is_reading()  # what it sends waits
        asking.data_received(health)
        while len(answered) < pipelined + 1:
            await asyncio.sleep(0)
        await asyncio.sleep(0)  # its turn after the last answer: nothing left waits
        resumed = flooding.transport.is_reading()  # all answered: it is read again
        for connection in (flooding, asking):
            connection.connection_lost(None)
        return answered, paused_meanwhile and resumed

    answered, paused_then_resumed = asyncio.run(scenario())
    assert answered.index("asking") == ANSWERS_A_TURN  # after one turn of the 2,000
    assert answered.count("flooding") == pipelined
    assert paused_then_resumed
