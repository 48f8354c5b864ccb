"""Identity: bearer tokens, the principal they stand for, and where they live.

Opaque tokens are issued by an operator command and stored only as their
SHA-256 hash, bound to a user id and a plan, optionally with an expiry and
per-user limits. With Redis they live beside the tasks; with the embedded
store they live in a small JSON file in the data directory, so that the CLI
and a running server (separate processes) see the same tokens.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import secrets
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import orjson
from cachetools import TTLCache
from pydantic import BaseModel, Field, ValidationError
from redis.asyncio import Redis

from app.clock import Clock
from app.config import PAID_PLANS, Plan
from app.errors import PlanRequired, Unauthorized
from app.storage import Keys, text

if TYPE_CHECKING:
    from app.oidc import JWTVerifier

TOKEN_PREFIX = "mag_"
DEMO_TOKENS: dict[str, Plan] = {
    "demo-free": "free",
    "demo-pro": "pro",
    "demo-organization": "organization",
    "demo-enterprise": "enterprise",
}


NO_TOKEN_ID = "-"


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is calling: the user (limits are per user, not per token) and plan.

    ``token_id`` is the hash of an opaque token (its revocation marker is
    checked in the same Redis round trip as the request's own work);
    ``cached`` says the record came from this process' short-lived cache.
    """

    user_id: str
    plan: Plan
    per_minute: int | None = None
    qa_per_minute: int | None = None
    token_id: str = NO_TOKEN_ID
    cached: bool = False


class TokenRecord(BaseModel):
    """What a token hash maps to in the token store."""

    user_id: str = Field(min_length=1)
    plan: Plan
    created_at: float
    expires_at: float | None = None
    per_minute: int | None = Field(None, ge=1)
    qa_per_minute: int | None = Field(None, ge=1)

    def principal(self, token_id: str, *, cached: bool) -> Principal:
        return Principal(
            self.user_id, self.plan, self.per_minute, self.qa_per_minute, token_id, cached
        )


def looks_like_jwt(token: str) -> bool:
    """A compact JWS (three base64url parts, a JSON header); opaque tokens never are."""
    return token.count(".") == 2 and token.startswith("eyJ")


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


class TokenStore(ABC):
    """Token hashes and their records."""

    @abstractmethod
    async def put(self, token_hash: str, record: TokenRecord) -> None: ...

    @abstractmethod
    async def get(self, token_hash: str) -> TokenRecord | None: ...

    @abstractmethod
    async def delete(self, token_hash: str) -> bool: ...

    @abstractmethod
    async def all(self) -> dict[str, TokenRecord]: ...

    async def revoked(self, user_id: str, token_id: str) -> bool:
        """Whether the token was revoked since a server may have cached it."""
        return False


class RedisTokenStore(TokenStore):
    """Tokens in Redis. Revoking also leaves a marker under the user's keys for
    longer than any server caches a token, which every request checks in the
    same round trip as its own work: revocation takes effect at once."""

    def __init__(self, redis: Redis, keys: Keys, marker_seconds: int) -> None:
        self._redis = redis
        self._keys = keys
        self._marker_seconds = marker_seconds

    # Pipelines here are not transactions: the token, the index and a user's
    # marker live in different Redis Cluster slots.

    async def put(self, token_hash: str, record: TokenRecord) -> None:
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.set(self._keys.token(token_hash), record.model_dump_json())
            if record.expires_at is not None:
                pipe.expireat(self._keys.token(token_hash), int(record.expires_at) + 1)
            pipe.sadd(self._keys.token_index, token_hash)
            await pipe.execute()

    async def get(self, token_hash: str) -> TokenRecord | None:
        raw = await self._redis.get(self._keys.token(token_hash))
        return None if raw is None else TokenRecord.model_validate_json(raw)

    async def delete(self, token_hash: str) -> bool:
        record = await self.get(token_hash)
        async with self._redis.pipeline(transaction=False) as pipe:
            if record is not None:
                marker = self._keys.revoked(record.user_id, token_hash)
                pipe.set(marker, b"1", ex=self._marker_seconds)
            pipe.delete(self._keys.token(token_hash))
            pipe.srem(self._keys.token_index, token_hash)
            *_, deleted, _ = await pipe.execute()
        return bool(deleted)

    async def revoked(self, user_id: str, token_id: str) -> bool:
        return bool(await self._redis.exists(self._keys.revoked(user_id, token_id)))

    async def all(self) -> dict[str, TokenRecord]:
        hashes = sorted(map(text, await self._redis.smembers(self._keys.token_index)))
        async with self._redis.pipeline(transaction=False) as pipe:
            for token_hash in hashes:
                pipe.get(self._keys.token(token_hash))
            raws = await pipe.execute() if hashes else []
        return {
            h: TokenRecord.model_validate_json(raw)
            for h, raw in zip(hashes, raws, strict=True)
            if raw is not None
        }


class FileTokenStore(TokenStore):
    """Tokens in a JSON file, for the embedded (Redis-less) setup.

    Writes take an exclusive lock and replace the file atomically; reads are
    served from memory and reloaded when the file's mtime changes, so a token
    revoked from the CLI stops working on the next request.
    """

    def __init__(self, path: Path) -> None:
        self._path = path
        self._stamp: tuple[int, int] | None = None
        self._records: dict[str, TokenRecord] = {}

    async def put(self, token_hash: str, record: TokenRecord) -> None:
        with self._locked() as records:
            records[token_hash] = record

    async def get(self, token_hash: str) -> TokenRecord | None:
        return self._current().get(token_hash)

    async def delete(self, token_hash: str) -> bool:
        with self._locked() as records:
            return records.pop(token_hash, None) is not None

    async def all(self) -> dict[str, TokenRecord]:
        return dict(self._current())

    def _current(self) -> dict[str, TokenRecord]:
        try:
            stat = self._path.stat()
        except FileNotFoundError:
            self._stamp, self._records = None, {}
            return self._records
        stamp = (stat.st_mtime_ns, stat.st_size)
        if stamp != self._stamp:
            self._records = self._read()
            self._stamp = stamp
        return self._records

    def _read(self) -> dict[str, TokenRecord]:
        try:
            raw = orjson.loads(self._path.read_bytes())
            return {h: TokenRecord.model_validate(r) for h, r in raw.items()}
        except (orjson.JSONDecodeError, ValidationError, AttributeError) as exc:
            raise RuntimeError(f"token file {self._path} is not readable: {exc}") from exc

    @contextlib.contextmanager
    def _locked(self) -> Iterator[dict[str, TokenRecord]]:
        self._path.parent.mkdir(parents=True, exist_ok=True)
        lock_path = self._path.with_suffix(".lock")
        with lock_path.open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            records = self._read() if self._path.exists() else {}
            yield records
            data = orjson.dumps(
                {h: r.model_dump() for h, r in records.items()}, option=orjson.OPT_INDENT_2
            )
            fd, tmp = tempfile.mkstemp(dir=self._path.parent, prefix=".tokens-")
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            Path(tmp).chmod(0o600)
            Path(tmp).replace(self._path)


class Authenticator:
    """Turns an ``Authorization`` header into a paying principal, or raises.

    Token records are cached for ``cache_seconds`` (a store round trip costs
    as much as the rest of a request); revocation still applies at once
    through the marker each request checks (see ``RedisTokenStore``).
    """

    def __init__(
        self,
        tokens: TokenStore,
        clock: Clock,
        *,
        demo_tokens: bool = False,
        cache_seconds: float = 0,
        cache_size: int = 10_000,
        jwt: JWTVerifier | None = None,
    ) -> None:
        self._jwt = jwt
        self._tokens = tokens
        self._clock = clock
        self._demo = (
            {
                token: Principal(user_id=token, plan=plan, token_id=hash_token(token))
                for token, plan in DEMO_TOKENS.items()
            }
            if demo_tokens
            else {}
        )
        self._cache: TTLCache[str, tuple[Principal, float | None]] | None = (
            TTLCache(cache_size, cache_seconds) if cache_seconds > 0 else None
        )

    async def identify(self, authorization: str | None) -> Principal:
        """The principal of a valid token, whatever its plan; else Unauthorized."""
        token = _bearer(authorization)
        demo = self._demo.get(token)
        if demo is not None:
            return demo
        if self._jwt is not None and looks_like_jwt(token):
            return await self._jwt.verify(token)
        token_hash = hash_token(token)
        entry = self._cache.get(token_hash) if self._cache is not None else None
        if entry is None:
            record = await self._tokens.get(token_hash)
            if record is None:
                raise Unauthorized(data={"reason": "unknown or revoked token"})
            entry = (record.principal(token_hash, cached=False), record.expires_at)
            if self._cache is not None:
                self._cache[token_hash] = (record.principal(token_hash, cached=True), entry[1])
        principal, expires_at = entry
        if expires_at is not None and expires_at <= self._clock.now():
            raise Unauthorized(data={"reason": "token expired"})
        return principal

    async def confirm(self, principal: Principal) -> None:
        """Raise Unauthorized if a cached principal's token was revoked meanwhile."""
        if principal.cached and await self._tokens.revoked(principal.user_id, principal.token_id):
            raise Unauthorized(data={"reason": "token revoked"})

    async def authenticate(self, authorization: str | None) -> Principal:
        """The principal of a valid token on a paid plan."""
        principal = await self.identify(authorization)
        if principal.plan not in PAID_PLANS:
            await self.confirm(principal)
            raise PlanRequired(
                data={"plan": principal.plan, "required": sorted(PAID_PLANS)},
            )
        return principal


def _bearer(authorization: str | None) -> str:
    if not authorization:
        raise Unauthorized(data={"reason": "missing Authorization header"})
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or " " in token:
        raise Unauthorized(data={"reason": "expected 'Authorization: Bearer <token>'"})
    return token
