"""The receiver's HTTP/1.1 connection: requests read with h11 and answered from the
connection itself, without a task, an ASGI message or a future a request. Every answer but
a delivery's is known once its head is read; a delivery's once its batch is committed, and
the store's thread then wakes the loop once for the whole batch. uvicorn's way (a task a
request, its ASGI plumbing) cost as much again as everything the receiver checks and
stores (`make bench`, webhooks). The connection stays guarded as every server's is
(`app.serving.guard`: head and stall timers, the bound on connections, the error shape of
what is not HTTP/1.1), and the server around it is uvicorn's (accepting, the graceful stop,
the lifespan that opens and closes the store's writer)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any, Protocol
from urllib.parse import unquote

import h11
from uvicorn.protocols.http.h11_impl import STATUS_PHRASES

from app.core import webhooks as wh
from app.serving.body import too_large, too_slow
from app.serving.guard import GuardedH11Protocol
from app.webhooks.answers import Answer, refusal
from app.webhooks.delivery import Event

UNREADABLE = "Invalid HTTP request received."  # uvicorn's words, said briefly (app.serving)
# answers a connection writes in one turn of the loop, before the other connections' turn, as
# uvicorn answers one request a task: a client pipelining thousands of requests in one read
# (256 KiB) kept every other waiting for all of them, seconds (an attacker's run: 32 a
# turn still made a request wait 0.3 s beside 20 such clients, one 0.01 s); its reading
# stays paused meanwhile, so what it sends waits in its socket
ANSWERS_A_TURN = 1


class Receiving(Protocol):
    """What a connection asks of its receiver (`app.webhooks.receiver.ReceiverApp`)."""

    def answer_at_once(self, method: str, path: str) -> Answer | None: ...

    def opening(self, raw_headers: Iterable[tuple[bytes, bytes]]) -> dict[str, str] | Answer: ...

    def checked(self, headers: dict[str, str], raw: bytes) -> Event | Answer: ...

    def put(self, event: Event, outcome: asyncio.Future[bool]) -> None: ...

    def told(self, event: Event | None, outcome: asyncio.Future[bool]) -> Answer: ...


class _Delivery:
    """A POST of a delivery under way: its body arriving, then its event being committed."""

    __slots__ = ("event", "headers", "late", "outcome", "parts", "size", "started")

    def __init__(self, headers: dict[str, str], outcome: asyncio.Future[bool], now: float):
        self.headers = headers
        self.outcome = outcome  # settled by the writer; cancelled by a stop's end of grace
        self.started = now
        self.parts: list[bytes] = []
        self.size = 0
        self.late: asyncio.TimerHandle | None = None  # armed only while the body is awaited
        self.event: Event | None = None  # checked, and handed to the writer


class ReceiverProtocol(GuardedH11Protocol):
    receiver: Receiving  # set by `app.webhooks.receiver.receiver_server`
    body_seconds = 10.0  # a delivery's body arrives within this, or it is refused
    _delivery: _Delivery | None = None
    _due: Answer | None = None  # an answer known, written once what arrived is read
    _handling = False  # the events are being read: an answer written meanwhile goes on there
    _ending = False  # a stop: the connection ends after the answer under way
    _answered = 0  # answers written in this turn of the loop
    _turn_asked = False  # a turn of its own asked for, to read on what waits

    def handle_events(self) -> None:
        if self._handling:  # an answer ended while events are read: that reading goes on
            return
        self._handling = True
        self._answered = 0
        try:
            self._read_events()
        finally:
            self._handling = False
        delivery = self._delivery
        if delivery is not None and delivery.event is None and delivery.late is None:
            # the body is still to come (its timer armed only now: most arrive whole)
            delivery.late = self.loop.call_at(delivery.started + self.body_seconds, self._late)

    def _read_events(self) -> None:
        conn = self.conn
        while True:
            if self.flow.write_paused:  # a client that takes no answers is read no further
                self.flow.pause_reading()
                return
            if self._answered >= ANSWERS_A_TURN:  # the others' turn; this one's next
                self.flow.pause_reading()
                if not self._turn_asked:
                    self._turn_asked = True
                    self.loop.call_soon(self._next_turn)
                return
            try:
                event = conn.next_event()
            except h11.RemoteProtocolError:
                self.logger.warning(UNREADABLE)
                self.send_400_response(UNREADABLE)
                return
            kind = type(event)
            if kind is h11.Request:
                self._request(event)
            elif kind is h11.Data:
                delivery = self._delivery
                if delivery is not None and delivery.event is None:
                    self._body_part(delivery, event.data)
                # else: the rest of a body already answered (refused), dropped
            elif kind is h11.EndOfMessage:
                if self._due is not None:
                    self._answer_due()
                elif conn.our_state is h11.DONE:  # answered before its body ended
                    self.transport.resume_reading()
                    conn.start_next_cycle()
                elif self._delivery is not None:
                    self._body_complete(self._delivery)
                if conn.their_state is h11.MUST_CLOSE:  # nothing may follow its request
                    return
            elif self._due is not None:  # all that arrived is read: the answer known goes
                self._answer_due()
            else:
                if event is h11.PAUSED:  # a request pipelined behind one being answered
                    self.flow.pause_reading()
                return

    def _next_turn(self) -> None:
        self._turn_asked = False
        if not self.transport.is_closing():
            self.flow.resume_reading()  # paused again at once if much still waits
            self.handle_events()

    def _request(self, event: h11.Request) -> None:
        self._unset_keepalive_if_required()
        path = unquote(event.target.partition(b"?")[0].decode("ascii"))
        receiver = self.receiver
        answer = receiver.answer_at_once(event.method.decode("ascii"), path)
        if answer is None:  # a delivery
            opened = receiver.opening(event.headers.raw_items())
            if isinstance(opened, dict):
                self._open(opened)
                return
            answer = opened
        self._due = answer

    def _open(self, headers: dict[str, str]) -> None:
        outcome: asyncio.Future[bool] = self.loop.create_future()
        # a stop waits for it as for any request under way; its grace ended, it is cancelled
        self.tasks.add(outcome)  # type: ignore[arg-type]
        outcome.add_done_callback(self._delivered)
        self._delivery = _Delivery(headers, outcome, self.loop.time())
        if self.conn.they_are_waiting_for_100_continue:
            continuing = h11.InformationalResponse(status_code=100, headers=[], reason="Continue")
            self.transport.write(self.conn.send(continuing) or b"")

    def _body_part(self, delivery: _Delivery, data: bytes) -> None:
        delivery.size += len(data)
        if delivery.size > wh.BODY_MAX:
            self._refuse(400, too_large(wh.BODY_MAX))
        else:
            delivery.parts.append(data)

    def _body_complete(self, delivery: _Delivery) -> None:
        if delivery.late is not None:
            delivery.late.cancel()
            delivery.late = None
        raw = b"".join(delivery.parts)
        delivery.parts = []
        checked = self.receiver.checked(delivery.headers, raw)
        if isinstance(checked, Answer):  # refused
            self._end_delivery()
            self._answer(checked)
            return
        delivery.event = checked
        self.receiver.put(checked, delivery.outcome)

    def _late(self) -> None:
        delivery = self._delivery
        if delivery is not None and delivery.event is None:
            delivery.late = None
            self._refuse(400, too_slow(self.body_seconds))
            self.handle_events()  # answers it, the loop reading nothing else now

    def _refuse(self, status: int, message: str) -> None:
        self._end_delivery()
        self._due = refusal(status, message)

    def _end_delivery(self) -> None:
        """The delivery under way is ended here, not by its commit (refused, or its
        connection gone before its body came): nobody waits for it any longer."""
        delivery, self._delivery = self._delivery, None
        if delivery is not None and delivery.event is None:
            if delivery.late is not None:
                delivery.late.cancel()
            delivery.outcome.remove_done_callback(self._delivered)
            self.tasks.discard(delivery.outcome)

    def _delivered(self, outcome: asyncio.Future[bool]) -> None:
        """The delivery's commit ended (or a stop's grace did): its answer goes."""
        self.tasks.discard(outcome)
        delivery = self._delivery
        if delivery is None or delivery.outcome is not outcome:  # its connection was dropped
            return
        self._delivery = None
        if delivery.late is not None:
            delivery.late.cancel()
        answer = self.receiver.told(delivery.event, outcome)
        if not self.transport.is_closing():  # else its sender went away: nobody to tell
            self._answer(answer)

    def _answer_due(self) -> None:
        answer, self._due = self._due, None
        if answer is not None:
            self._answer(answer)

    def _answer(self, answer: Answer) -> None:
        """The answer, head and body in one send; then the next request, if one waits."""
        conn = self.conn
        # h11 adds "Connection: close" where the request asked for it
        head = h11.Response(
            status_code=answer.status,
            headers=[*self.server_state.default_headers, *answer.headers],
            reason=STATUS_PHRASES[answer.status],
        )
        data = conn.send(head) or b""
        if conn.method != b"HEAD":
            data += conn.send(h11.Data(data=answer.body)) or b""
        data += conn.send(h11.EndOfMessage()) or b""
        self.joined.write_whole(data)
        self._answered += 1
        if conn.our_state is h11.MUST_CLOSE or self._ending:
            conn.send(h11.ConnectionClosed())
            self.transport.close()
        self.on_response_complete()

    # the guard's view of the request under way (uvicorn's cycle there)
    def answering(self) -> bool:
        return self._delivery is not None or self._due is not None

    def abandon_answer(self) -> bool:
        self._due = None
        self._end_delivery()
        return False  # an answer is written whole or not at all

    def close_after_answer(self) -> None:
        self._ending = True

    def resume_writing(self) -> None:
        super().resume_writing()
        if not self.transport.is_closing():  # its client reads again: the next request
            self.flow.resume_reading()
            self.handle_events()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._delivery is not None and self._delivery.event is None:
            self._end_delivery()  # one being committed is answered into the void, and awaited
        self._due = None
        super().connection_lost(exc)


def protocol_of(receiver: Receiving, body_seconds: float) -> type[ReceiverProtocol]:
    """The connection class of one receiver."""
    values: dict[str, Any] = {"receiver": receiver, "body_seconds": body_seconds}
    return type("ReceiverConnection", (ReceiverProtocol,), values)
