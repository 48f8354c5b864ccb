"""Fixed-window limits of the authorization server: client registrations,
approvals (authorization codes) and failed sign-ins on the login page.

Counters live in the store, so every replica sees the same ones. An address is
the peer address as uvicorn gives it (the client's own behind a proxy named in
``A2A_FORWARDED_ALLOW_IPS``); an IPv6 address counts as its /64, which one
host usually holds whole.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from magisterium_a2a.server.oauth.server import Clock
from magisterium_a2a.server.oauth.store import OAuthStore, digest


@dataclass(frozen=True)
class Limit:
    """At most ``most`` per ``seconds`` (a fixed window) for each ``who``."""

    kind: str
    seconds: int
    most: int


def address_key(host: str | None) -> str:
    """The throttled unit of a peer address: itself, or for IPv6 its /64."""
    if not host:
        return "unknown"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return digest(host)[:32]
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False).network_address) + "/64"
    return str(address)


class Throttle:
    def __init__(self, store: OAuthStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    def _window(self, limit: Limit) -> tuple[int, int]:
        """The current window's number, and the whole seconds until the next."""
        now = self._clock.now()
        window = int(now // limit.seconds)
        return window, max(1, int((window + 1) * limit.seconds - now) + 1)

    async def over(self, limit: Limit, who: str) -> int | None:
        """Retry-After seconds if ``who`` used up the window, else None (counts nothing)."""
        window, retry = self._window(limit)
        count = await self._store.hits(limit.kind, who, window)
        return retry if count >= limit.most else None

    async def take(self, limit: Limit, who: str) -> int | None:
        """Count one for ``who``; Retry-After seconds if that was one too many."""
        window, retry = self._window(limit)
        count = await self._store.hit(limit.kind, who, window, limit.seconds + 60)
        return retry if count > limit.most else None

    def retry_after(self, limit: Limit) -> int:
        """Whole seconds until the current window of ``limit`` ends."""
        return self._window(limit)[1]

    async def count(self, limit: Limit, who: str) -> int:
        """Count one for ``who``; the count in this window."""
        window, _ = self._window(limit)
        return await self._store.hit(limit.kind, who, window, limit.seconds + 60)
