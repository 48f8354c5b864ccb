"""The login form's CSRF tokens: signed, timed and good for one submission.

The form carries the token and a cookie carries it again (double submit); the
token is also signed with a key every replica shares, expires with the cookie,
and is spent by the approval it gives. So one page shown gives one code at
most, and a caller cannot make up its own pairs.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from magisterium_a2a.server.oauth.server import Clock
from magisterium_a2a.server.oauth.store import OAuthStore

FORM_SECONDS = 1800


@dataclass(frozen=True)
class Form:
    """A login form the server issued, not yet known to be unused."""

    nonce: str
    expires: int


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

    async def check(self, token: str) -> Form | None:
        """The form ``token`` names if it is one of ours and unexpired (nothing stored)."""
        expires, _, rest = token.partition(".")
        nonce, _, mac = rest.partition(".")
        if not (expires.isdigit() and nonce and mac) or len(token) > 200:
            return None
        expected = self._mac(await self._signing_key(), f"{expires}.{nonce}")
        if not hmac.compare_digest(mac, expected) or int(expires) <= self._clock.now():
            return None
        return Form(nonce, int(expires))

    async def spend(self, form: Form) -> bool:
        """True the first time only. Spent when it would give a code, so only
        approvals (throttled) leave a marker, for the rest of the form's life."""
        left = form.expires - self._clock.now()
        return left > 0 and await self._store.spend_csrf(form.nonce, int(left) + 1)
