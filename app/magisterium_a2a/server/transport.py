"""uvicorn's HTTP protocol with a deadline on each request's head, and a cap
on open connections that sheds the slowest request rather than the newest.

uvicorn times out idle keep-alive connections but not a request whose
headers arrive a byte at a time, so one slow client could hold a connection
(and a file descriptor) for ever. This protocol closes a connection whose
request line and headers are not complete within ``head_timeout`` seconds of
its first byte (or of the connection, for a client that sends nothing); the
body has the same deadline in the ASGI layer in front of every route
(``guard.RequestGuard``), which no request reaches before its head is complete.

Deadlines bound how long one connection is held, not how many are: a client
opening connections faster than the deadline ends them would still use up the
process' file descriptors, and then ``accept()`` fails for everyone (asyncio
stops accepting for a second at a time). So a process keeps at most
``max_connections`` open: a connection beyond it closes the one that has waited
longest without a complete request (a slow head or body, or an idle keep-alive
connection). A request being answered is never closed this way. A health check
or a normal call arriving in the middle of a flood of slow requests is thus
served at once, at the expense of the oldest slow one.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import time
from typing import ClassVar

from uvicorn._types import ASGI3Application, ASGISendEvent
from uvicorn.protocols.http.httptools_impl import (
    HEADER_RE,
    HEADER_VALUE_RE,
    STATUS_LINE,
    HttpToolsProtocol,
    RequestResponseCycle,
)

from magisterium_a2a.server.config import Settings
from magisterium_a2a.server.guard import BODY_RECEIVED

log = logging.getLogger(__name__)

FD_RESERVE = 64
"""File descriptors kept for everything but client connections (besides the Redis pool)."""
SHED_LOG_INTERVAL = 10.0


class HeadDeadlineProtocol(HttpToolsProtocol):
    head_timeout: ClassVar[float] = 30.0
    max_connections: ClassVar[int] = 1 << 30
    _unfinished: ClassVar[dict[HeadDeadlineProtocol, None]] = {}
    """Connections without a complete request, oldest first (a dict keeps order)."""
    _shed: ClassVar[int] = 0
    _shed_logged: ClassVar[float] = 0.0
    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()
        self._unfinished[self] = None
        if len(self.connections) > self.max_connections:
            self._shed_oldest()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._head_timer is None:
            self._arm()

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._unfinished.pop(self, None)
        super().on_message_complete()
        if self.cycle is not None and not self.cycle.more_body:
            # The whole body is buffered: the guard reads it without a deadline.
            self.scope.setdefault("extensions", {})[BODY_RECEIVED] = {}

    def _start_asgi_task(self, cycle: RequestResponseCycle, app: ASGI3Application) -> None:
        # The app's ``send`` (looked up when the task runs): a complete answer in one write.
        cycle.send = OneWrite(cycle).send  # type: ignore[method-assign]
        super()._start_asgi_task(cycle, app)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        idle = self.cycle is None or self.cycle.response_complete  # no pipelined request
        if idle and not self.transport.is_closing():
            # Idle until its next request: among the first to go if room is needed.
            self._unfinished[self] = None

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._unfinished.pop(self, None)
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._head_timer = self.loop.call_later(self.head_timeout, self._expired)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _expired(self) -> None:
        self._head_timer = None
        if not self.transport.is_closing():
            self.transport.close()

    def _shed_oldest(self) -> None:
        for victim in self._unfinished:
            if victim is not self:
                break
        else:
            return
        del self._unfinished[victim]
        victim.transport.close()
        cls = type(self)
        cls._shed += 1
        now = time.monotonic()
        if now - cls._shed_logged >= SHED_LOG_INTERVAL:
            cls._shed_logged = now
            log.warning(
                "%d connections open (the most kept): closing the oldest unfinished "
                "requests to make room; %d closed so far",
                len(self.connections),
                cls._shed,
            )


def connection_cap(settings: Settings) -> int:
    """``A2A_MAX_CONNECTIONS``, or the file-descriptor limit less what the process
    needs besides its clients (the Redis pool and a reserve)."""
    if settings.max_connections is not None:
        return settings.max_connections
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return 1 << 30
    reserve = FD_RESERVE + max(soft // 8, settings.redis_max_connections)
    return max(16, soft - reserve)


def configure(settings: Settings) -> str:
    """Apply the settings to the protocol; returns its import path for uvicorn
    (worker processes import it by name and configure it from their settings)."""
    HeadDeadlineProtocol.head_timeout = settings.read_timeout_seconds
    HeadDeadlineProtocol.max_connections = connection_cap(settings)
    return f"{__name__}:HeadDeadlineProtocol"


class OneWrite:
    """Writes a complete answer (one that names its ``Content-Length``) in one write,
    its head serialized here; any other answer goes through uvicorn as it is.

    uvicorn writes a response's head as soon as the app starts it, then the body:
    two writes, and on loopback each costs the sender the receiver's TCP work and
    wakes the client twice. It also checks every header with two regular
    expressions, one at a time. This keeps the head until the first body message
    and sends both together; it runs uvicorn's own two checks once each, over all
    the names and over all the values, so it refuses exactly what uvicorn refuses,
    before anything is written (the app's error then answers 500). The cycle is
    left in the state uvicorn's own start would leave it in (response started, the
    length to expect, whether to keep the connection), so uvicorn's body handling,
    length checks and keep-alive work unchanged. With uvicorn's access log on,
    uvicorn writes.
    """

    __slots__ = ("_cycle", "_head")

    def __init__(self, cycle: RequestResponseCycle) -> None:
        self._cycle = cycle
        self._head = b""

    async def send(self, message: ASGISendEvent) -> None:
        cycle = self._cycle
        if self._head and message["type"] == "http.response.body":
            await self._send_with_head(cycle, message)
            return
        if message["type"] == "http.response.start" and not self._head:
            head = self._serialize(cycle, message)
            if head is not None:
                if cycle.flow.write_paused and not cycle.disconnected:
                    await cycle.flow.drain()
                if not cycle.disconnected:
                    self._head = head
                return
        await RequestResponseCycle.send(cycle, message)

    @staticmethod
    def _serialize(cycle: RequestResponseCycle, message: ASGISendEvent) -> bytes | None:
        """The head of a start message with one Content-Length, marking the cycle
        started; None, the cycle untouched, for any other."""
        assert message["type"] == "http.response.start"
        if cycle.response_started or cycle.access_log:
            return None
        headers = [*cycle.default_headers, *message.get("headers", ())]
        # uvicorn's patterns match single bytes none of which joins adds, so one
        # search over all the names (and one over the values, joined by an allowed
        # TAB) finds what a search per header would.
        if HEADER_RE.search(b"".join(name for name, _ in headers)):
            raise RuntimeError("Invalid HTTP header name.")
        if HEADER_VALUE_RE.search(b"\t".join(value for _, value in headers)):
            raise RuntimeError("Invalid HTTP header value.")
        length: int | None = None
        close = False
        lines = [STATUS_LINE[message["status"]]]
        for name, value in headers:
            name = name.lower()
            if name == b"content-length":
                if length is not None or not value.isdigit():
                    return None
                length = int(value)
            elif name == b"transfer-encoding":
                return None
            elif name == b"connection":
                close = close or b"close" in [t.strip() for t in value.lower().split(b",")]
            lines += (name, b": ", value, b"\r\n")
        if length is None:
            return None
        if close:
            cycle.keep_alive = False
        elif not cycle.keep_alive:
            lines.append(b"connection: close\r\n")
        lines.append(b"\r\n")
        cycle.response_started = True
        cycle.waiting_for_100_continue = False
        cycle.expected_content_length = length
        cycle.chunked_encoding = False
        return b"".join(lines)

    async def _send_with_head(self, cycle: RequestResponseCycle, message: ASGISendEvent) -> None:
        """uvicorn's body handling, its first write carrying the head."""
        transport = cycle.transport
        prefixed = _Prefixed(transport, self._head)
        self._head = b""
        cycle.transport = prefixed  # type: ignore[assignment]
        try:
            await RequestResponseCycle.send(cycle, message)
        finally:
            cycle.transport = transport
        # A body that wrote nothing (an empty one, a HEAD request): the head alone.
        prefixed.flush()


class _Prefixed:
    """The transport, for one body message: the held head goes out with its first
    write, or alone before the connection closes."""

    __slots__ = ("_head", "_transport")

    def __init__(self, transport: asyncio.Transport, head: bytes) -> None:
        self._transport = transport
        self._head = head

    def write(self, data: bytes) -> None:
        head, self._head = self._head, b""
        self._transport.write(head + data if head else data)

    def flush(self) -> None:
        if self._head and not self._transport.is_closing():
            self.write(b"")

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def __getattr__(self, name: str) -> object:
        return getattr(self._transport, name)
