"""Task storage: a small abstract interface and its Redis implementation.

A task is written once, in its terminal state, with the configured TTL, under
a key namespaced by its owner, so another user cannot read it even with its
id. Each record is ``<expiry time>\n<task JSON>``: the expiry is checked
against the injected clock (Redis' TTL reclaims the memory, the clock decides
visibility, so tests and the test mode can cross a TTL without waiting), and
the JSON is served as stored, with no parsing, when it is returned whole.

A write may carry a rate-limit ``Admission``: then the bucket check, the
token's revocation check and the write happen in one atomic script
(``storage.Scripts.admit_and_save``), one round trip, and nothing is written
when the request is refused; the limiter says what the verdict means.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Protocol

from redis.asyncio import Redis

from magisterium_a2a.server.clock import Clock
from magisterium_a2a.server.errors import Unauthorized
from magisterium_a2a.server.identity import NO_TOKEN_ID
from magisterium_a2a.server.protocol import Task
from magisterium_a2a.server.ratelimit import Admission, RateLimitState
from magisterium_a2a.server.storage import Keys, SaveArgs, SaveKeys, Scripts, text

CONTEXT_HISTORY_LIMIT = 50


class StoredTask(Protocol):
    """What a write needs of a task: a ``Task``, or the JSON message/send built."""

    @property
    def id(self) -> str: ...
    @property
    def context_id(self) -> str: ...
    def to_json(self) -> bytes: ...


class TaskStore(ABC):
    """Where terminal tasks live, private to their owner."""

    @abstractmethod
    async def save(self, owner: str, task: StoredTask) -> bytes:
        """Store the task and return its JSON (encoded once for store and reply)."""

    @abstractmethod
    async def admit_and_save(
        self, owner: str, task: StoredTask, admission: Admission
    ) -> tuple[bytes, RateLimitState]:
        """Store the task only if the admission is granted, atomically.

        Raises what a refused admission raises (RateLimited, Unauthorized).
        """

    @abstractmethod
    async def get_json(self, owner: str, task_id: str, token_id: str = NO_TOKEN_ID) -> bytes | None:
        """The owner's task as stored JSON, or None when unknown, expired or someone else's.

        Raises Unauthorized if ``token_id`` was revoked (checked in the same round trip).
        """

    async def get(self, owner: str, task_id: str, token_id: str = NO_TOKEN_ID) -> Task | None:
        """The same, as a model."""
        payload = await self.get_json(owner, task_id, token_id)
        return None if payload is None else Task.model_validate_json(payload)

    @abstractmethod
    async def context_tasks(self, owner: str, context_id: str) -> list[Task]:
        """The owner's live tasks of one context, oldest first."""

    @abstractmethod
    async def ping(self) -> bool:
        """Whether the store answers."""


class RedisTaskStore(TaskStore):
    def __init__(
        self, redis: Redis, scripts: Scripts, keys: Keys, ttl_seconds: int, clock: Clock
    ) -> None:
        self._redis = redis
        self._scripts = scripts
        self._keys = keys
        self._ttl = ttl_seconds
        self._clock = clock

    async def save(self, owner: str, task: StoredTask) -> bytes:
        payload, record = self._record(task)
        context_key = self._keys.context(owner, task.context_id)
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.set(self._keys.task(owner, task.id), record, ex=self._ttl)
            pipe.rpush(context_key, task.id)
            pipe.ltrim(context_key, -CONTEXT_HISTORY_LIMIT, -1)
            pipe.expire(context_key, self._ttl)
            await pipe.execute()
        return payload

    async def admit_and_save(
        self, owner: str, task: StoredTask, admission: Admission
    ) -> tuple[bytes, RateLimitState]:
        payload, record = self._record(task)
        verdict = await self._scripts.admit_and_save(
            admission.keys,
            admission.args,
            SaveKeys(self._keys.task(owner, task.id), self._keys.context(owner, task.context_id)),
            SaveArgs(record, self._ttl, task.id, CONTEXT_HISTORY_LIMIT),
        )
        return payload, admission.outcome(verdict)

    def _record(self, task: StoredTask) -> tuple[bytes, bytes]:
        """The task's JSON, and the stored record: the JSON with its expiry time."""
        payload = task.to_json()
        return payload, b"%.3f\n%b" % (self._clock.now() + self._ttl, payload)

    async def get_json(self, owner: str, task_id: str, token_id: str = NO_TOKEN_ID) -> bytes | None:
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.exists(self._keys.revoked(owner, token_id))
            pipe.get(self._keys.task(owner, task_id))
            revoked, raw = await pipe.execute()
        if revoked:
            raise Unauthorized(data={"reason": "token revoked"})
        return self._live(raw)

    async def context_tasks(self, owner: str, context_id: str) -> list[Task]:
        ids = await self._redis.lrange(self._keys.context(owner, context_id), 0, -1)
        if not ids:
            return []
        unique = dict.fromkeys(map(text, ids))
        records = await self._redis.mget([self._keys.task(owner, task_id) for task_id in unique])
        return [
            Task.model_validate_json(payload)
            for raw in records
            if (payload := self._live(raw)) is not None
        ]

    async def ping(self) -> bool:
        return bool(await self._redis.ping())

    def _live(self, raw: bytes | str | None) -> bytes | None:
        """The task JSON of a record that has not expired by the clock."""
        if raw is None:
            return None
        expires, _, payload = (raw.encode() if isinstance(raw, str) else raw).partition(b"\n")
        return payload if float(expires) > self._clock.now() else None
