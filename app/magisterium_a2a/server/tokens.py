"""Opaque bearer tokens: their records and where they live.

Tokens are issued by an operator command and stored only as their SHA-256
hash, bound to a user id and a plan, optionally with an expiry and per-user
limits. With Redis they live beside the tasks; with the embedded store they
live in a small JSON file in the data directory, so that the CLI and a running
server (separate processes) see the same tokens.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Iterator
from pathlib import Path

import orjson
from pydantic import BaseModel, Field, ValidationError
from redis.asyncio import Redis

from magisterium_a2a.server.identity import Plan, Principal, owner_key
from magisterium_a2a.server.storage import Keys, text

TOKEN_PREFIX = "mag_"
DEMO_TOKENS: dict[str, Plan] = {
    "demo-free": "free",
    "demo-pro": "pro",
    "demo-organization": "organization",
    "demo-enterprise": "enterprise",
}


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

    async def revoked(self, owner: str, token_id: str) -> bool:
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
                marker = self._keys.revoked(owner_key(record.user_id), token_hash)
                pipe.set(marker, b"1", ex=self._marker_seconds)
            pipe.delete(self._keys.token(token_hash))
            pipe.srem(self._keys.token_index, token_hash)
            *_, deleted, _ = await pipe.execute()
        return bool(deleted)

    async def revoked(self, owner: str, token_id: str) -> bool:
        return bool(await self._redis.exists(self._keys.revoked(owner, token_id)))

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
