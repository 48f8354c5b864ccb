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

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from magisterium_a2a.server.config import Settings

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
