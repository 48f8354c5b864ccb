"""The authorization server's state in Redis: clients, codes, grants, tokens.

A *grant* is one sign-in of one user for one client: every access and refresh
token issued from it names it, so ending the grant (a reused code or refresh
token, a revoked refresh token) ends them all at once. Single use of codes and
refresh tokens is a ``SET NX`` on a per-token key, atomic on one Redis key and
so on any topology (Cluster included). Tokens and codes are stored under the
SHA-256 of their value, never in clear.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Literal

from pydantic import BaseModel, Field
from redis.asyncio import Redis

from magisterium_a2a.server.storage.keys import OAuthKeys

ACCESS_PREFIX = "mat_"
REFRESH_PREFIX = "mrt_"
CODE_PREFIX = "mac_"
CLIENT_PREFIX = "mcl_"

# Redis keeps expired state a little longer than the clock says it lives, so
# that a code or refresh token presented again late is still recognised as reused.
REUSE_MEMORY_SECONDS = 86_400

Plan = Literal["free", "pro", "organization", "enterprise"]


def digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def new_secret(prefix: str) -> str:
    return prefix + secrets.token_urlsafe(32)


class ClientRecord(BaseModel):
    """A registered client (RFC 7591 metadata we keep)."""

    client_id: str
    secret_hash: str | None = None
    issued_at: int
    redirect_uris: list[str]
    token_endpoint_auth_method: str
    grant_types: list[str]
    response_types: list[str]
    client_name: str | None = None
    scope: str


class Account(BaseModel):
    """Who signed in: an operator user (by the API token they typed) or a demo user."""

    user_id: str
    plan: Plan
    api_token_id: str = Field(description="SHA-256 of the API token used to sign in")
    per_minute: int | None = None
    qa_per_minute: int | None = None


class CodeRecord(BaseModel):
    client_id: str
    redirect_uri: str | None
    scope: str
    resource: str
    code_challenge: str
    code_challenge_method: str
    account: Account
    grant_id: str
    expires_at: float


class GrantRecord(BaseModel):
    client_id: str
    scope: str
    resource: str
    account: Account
    expires_at: float


class TokenRecord(BaseModel):
    """An access or refresh token: the grant it belongs to and when it ends."""

    kind: Literal["access", "refresh"]
    grant_id: str
    client_id: str
    scope: str
    expires_at: float


class OAuthStore:
    """Reads and writes of the authorization server's records."""

    def __init__(self, redis: Redis, keys: OAuthKeys) -> None:
        self._redis = redis
        self.keys = keys

    async def put_client(self, record: ClientRecord, ttl: int) -> None:
        await self._redis.set(self.keys.client(record.client_id), record.model_dump_json(), ex=ttl)

    async def client(self, client_id: str) -> ClientRecord | None:
        raw = await self._redis.get(self.keys.client(client_id))
        return None if raw is None else ClientRecord.model_validate_json(raw)

    async def touch_client(self, client_id: str, ttl: int) -> None:
        """A client in use stays registered; one unused for ``ttl`` goes."""
        await self._redis.expire(self.keys.client(client_id), ttl)

    async def put_code(self, code: str, record: CodeRecord, ttl: int) -> None:
        """``ttl``: the code's life and a small margin; only the spent marker stays longer."""
        await self._redis.set(self.keys.code(digest(code)), record.model_dump_json(), ex=ttl)

    async def code(self, code: str) -> CodeRecord | None:
        raw = await self._redis.get(self.keys.code(digest(code)))
        return None if raw is None else CodeRecord.model_validate_json(raw)

    async def claim_code(self, code: str, grant_id: str) -> bool:
        """True the first time only: a code is spent by its first presentation.
        Its record goes; a marker naming its grant (about 150 bytes) stays a day, so
        that a second use, however late, ends what the first one opened."""
        hashed = digest(code)
        claimed = await self._redis.set(
            self.keys.code_used(hashed), grant_id.encode(), nx=True, ex=REUSE_MEMORY_SECONDS
        )
        if claimed:
            await self._redis.delete(self.keys.code(hashed))
        return bool(claimed)

    async def spent_code_grant(self, code: str) -> str | None:
        """The grant a spent code opened, if it was spent within the last day."""
        raw = await self._redis.get(self.keys.code_used(digest(code)))
        return None if raw is None else raw.decode() if isinstance(raw, bytes) else str(raw)

    async def put_grant(self, grant_id: str, record: GrantRecord, ttl: int) -> None:
        await self._redis.set(self.keys.grant(grant_id), record.model_dump_json(), ex=ttl)

    async def grant(self, grant_id: str) -> GrantRecord | None:
        """The grant, unless it was ended (even if written again since, by an issue
        that raced with the reuse that ended it)."""
        raw, ended = await self._redis.mget(
            [self.keys.grant(grant_id), self.keys.grant_ended(grant_id)]
        )
        return None if raw is None or ended is not None else GrantRecord.model_validate_json(raw)

    async def end_grant(self, grant_id: str, ttl: int) -> None:
        """Every token of the grant stops working at once (they all name it). The
        tombstone outlives any record of the grant (``ttl``: their longest life)."""
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.set(self.keys.grant_ended(grant_id), b"1", ex=ttl)
            pipe.delete(self.keys.grant(grant_id))
            await pipe.execute()

    async def put_token(self, token: str, record: TokenRecord, ttl: int) -> None:
        key = self.keys.access if record.kind == "access" else self.keys.refresh
        await self._redis.set(key(digest(token)), record.model_dump_json(), ex=ttl)

    async def token(self, token: str, kind: Literal["access", "refresh"]) -> TokenRecord | None:
        key = self.keys.access if kind == "access" else self.keys.refresh
        raw = await self._redis.get(key(digest(token)))
        return None if raw is None else TokenRecord.model_validate_json(raw)

    async def delete_token(self, token: str, kind: Literal["access", "refresh"]) -> None:
        key = self.keys.access if kind == "access" else self.keys.refresh
        await self._redis.delete(key(digest(token)))

    async def claim_refresh(self, token: str) -> bool:
        """True the first time only: rotation spends a refresh token."""
        return bool(
            await self._redis.set(
                self.keys.refresh_used(digest(token)), b"1", nx=True, ex=REUSE_MEMORY_SECONDS
            )
        )

    async def hit(self, kind: str, who: str, window: int, ttl: int) -> int:
        """Count one more in ``who``'s fixed window; the count, this one included."""
        key = self.keys.throttle(kind, who, window)
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.incr(key)
            pipe.expire(key, ttl)
            count, _ = await pipe.execute()
        return int(count)

    async def hits(self, kind: str, who: str, window: int) -> int:
        """``who``'s count in the window, without adding to it."""
        raw = await self._redis.get(self.keys.throttle(kind, who, window))
        return 0 if raw is None else int(raw)

    async def csrf_key(self) -> bytes:
        """The CSRF signing key: made once, by whichever process asks first."""
        key = self.keys.csrf_key
        await self._redis.set(key, secrets.token_bytes(32), nx=True)
        raw = await self._redis.get(key)
        assert isinstance(raw, bytes)
        return raw

    async def spend_csrf(self, nonce: str, ttl: int) -> bool:
        """True the first time only: a login form is good for one submission."""
        return bool(
            await self._redis.set(self.keys.csrf_used(nonce), b"1", nx=True, ex=max(1, ttl))
        )
