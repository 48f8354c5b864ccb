"""uvicorn's HTTP protocol with a deadline on each request's head.

uvicorn times out idle keep-alive connections but not a request whose
headers arrive a byte at a time, so one slow client could hold a connection
(and a file descriptor) for ever. This protocol closes a connection whose
request line and headers are not complete within ``head_timeout`` seconds of
its first byte (or of the connection, for a client that sends nothing); the
body has its own deadline in ``http.read_body``.
"""

from __future__ import annotations

import asyncio
from typing import ClassVar

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from magisterium_a2a.server.config import Settings


class HeadDeadlineProtocol(HttpToolsProtocol):
    head_timeout: ClassVar[float] = 30.0
    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._head_timer is None:
            self._arm()

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
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


def configure(settings: Settings) -> str:
    """Apply the settings to the protocol; returns its import path for uvicorn
    (worker processes import it by name and configure it from their settings)."""
    HeadDeadlineProtocol.head_timeout = settings.read_timeout_seconds
    return f"{__name__}:HeadDeadlineProtocol"
