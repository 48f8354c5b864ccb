"""Task storage: a small abstract interface and its Redis implementation.

A task is written once, in its terminal state, with the configured TTL, under
a key namespaced by its owner, so another user cannot read it even with its
id. Each record also carries its logical expiry time, checked against the
injected clock: Redis' TTL reclaims the memory, the clock decides visibility,
so tests and the test mode can cross a TTL without waiting for it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import orjson
from redis.asyncio import Redis

from app.clock import Clock
from app.protocol import Task
from app.storage import Keys, text

CONTEXT_HISTORY_LIMIT = 50


class TaskStore(ABC):
    """Where terminal tasks live, private to their owner."""

    @abstractmethod
    async def save(self, owner: str, task: Task) -> bytes:
        """Store the task and return its JSON, encoded once for store and reply."""

    @abstractmethod
    async def get(self, owner: str, task_id: str) -> Task | None:
        """The owner's task, or None when unknown, expired or someone else's."""

    @abstractmethod
    async def context_tasks(self, owner: str, context_id: str) -> list[Task]:
        """The owner's live tasks of one context, oldest first."""

    @abstractmethod
    async def ping(self) -> bool:
        """Whether the store answers."""


class RedisTaskStore(TaskStore):
    def __init__(self, redis: Redis, keys: Keys, ttl_seconds: int, clock: Clock) -> None:
        self._redis = redis
        self._keys = keys
        self._ttl = ttl_seconds
        self._clock = clock

    async def save(self, owner: str, task: Task) -> bytes:
        payload = task.to_json()
        expires_at = self._clock.now() + self._ttl
        record = b'{"expiresAt":%.3f,"task":%b}' % (expires_at, payload)
        context_key = self._keys.context(owner, task.context_id)
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.set(self._keys.task(owner, task.id), record, ex=self._ttl)
            pipe.rpush(context_key, task.id)
            pipe.ltrim(context_key, -CONTEXT_HISTORY_LIMIT, -1)
            pipe.expire(context_key, self._ttl)
            await pipe.execute()
        return payload

    async def get(self, owner: str, task_id: str) -> Task | None:
        raw = await self._redis.get(self._keys.task(owner, task_id))
        return self._decode(raw)

    async def context_tasks(self, owner: str, context_id: str) -> list[Task]:
        ids = await self._redis.lrange(self._keys.context(owner, context_id), 0, -1)
        if not ids:
            return []
        unique = dict.fromkeys(map(text, ids))
        keys = [self._keys.task(owner, task_id) for task_id in unique]
        records = await self._redis.mget(keys)
        return [task for raw in records if (task := self._decode(raw)) is not None]

    async def ping(self) -> bool:
        return bool(await self._redis.ping())

    def _decode(self, raw: bytes | str | None) -> Task | None:
        if raw is None:
            return None
        record = orjson.loads(raw)
        if record["expiresAt"] <= self._clock.now():
            return None
        return Task.model_validate(record["task"])
