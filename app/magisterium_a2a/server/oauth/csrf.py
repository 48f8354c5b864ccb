"""The login form's CSRF tokens: signed, timed and good for one submission.

The form carries the token and a cookie carries it again (double submit), as
before; the token is now also signed with a key every replica shares, expires
with the cookie, and is spent by its first submission. So one page shown gives
one approval at most, and a caller cannot make up its own pairs.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from magisterium_a2a.server.oauth.server import Clock
from magisterium_a2a.server.oauth.store import OAuthStore

FORM_SECONDS = 1800


class CSRF:
    def __init__(self, store: OAuthStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock
        self._key: bytes | None = None

    async def _signing_key(self) -> bytes:
        if self._key is None:
            self._key = await self._store.csrf_key()
        return self._key

    @staticmethod
    def _mac(key: bytes, payload: str) -> str:
        return hmac.new(key, payload.encode(), hashlib.sha256).hexdigest()[:32]

    async def issue(self) -> str:
        expires = int(self._clock.now()) + FORM_SECONDS
        payload = f"{expires}.{secrets.token_urlsafe(16)}"
        return f"{payload}.{self._mac(await self._signing_key(), payload)}"

    async def spend(self, token: str) -> bool:
        """Whether ``token`` is one of ours, unexpired and not used before (it is now)."""
        expires, _, rest = token.partition(".")
        nonce, _, mac = rest.partition(".")
        if not (expires.isdigit() and nonce and mac) or len(token) > 200:
            return False
        expected = self._mac(await self._signing_key(), f"{expires}.{nonce}")
        if not hmac.compare_digest(mac, expected):
            return False
        left = int(expires) - self._clock.now()
        return left > 0 and await self._store.spend_csrf(nonce, int(left) + 1)
