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

Every write also indexes the task for listing (A2A 1.0's ``ListTasks``): in
sorted sets of the owner's tasks, of their state and of their context, scored
by write time, which is when the task's status last changed. The indexes live
no longer than the tasks they list (``storage/lua/index.lua``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Protocol

import orjson
from redis.asyncio import Redis

from magisterium_a2a.server.clock import Clock
from magisterium_a2a.server.errors import Unauthorized
from magisterium_a2a.server.identity import NO_TOKEN_ID
from magisterium_a2a.server.protocol import Task
from magisterium_a2a.server.ratelimit import Admission, RateLimitState
from magisterium_a2a.server.storage import (
    Keys,
    ListArgs,
    ListKeys,
    Pipe,
    SaveArgs,
    SaveKeys,
    Scripts,
    text,
)

CONTEXT_HISTORY_LIMIT = 50


class StoredTask(Protocol):
    """What a write needs of a task: its ids, its state and its JSON."""

    @property
    def id(self) -> str: ...
    @property
    def context_id(self) -> str: ...
    @property
    def state(self) -> str: ...
    def to_json(self) -> bytes: ...


@dataclass(frozen=True, slots=True)
class TaskQuery:
    """Which of the owner's tasks to list, and where the page starts."""

    context_id: str | None = None
    state: str | None = None
    written_since: float | None = None
    """Only tasks whose status changed at or after this time (epoch seconds)."""
    after: tuple[int, str] | None = None
    """The (write time in ms, id) of the last task of the previous page."""
    limit: int = 50


@dataclass(frozen=True, slots=True)
class TaskPage:
    """A page of the owner's tasks, newest first, as stored JSON."""

    tasks: list[bytes]
    total: int
    """How many tasks match the query, on every page."""
    next: tuple[int, str] | None
    """Where the next page starts, or None on the last page."""


class TaskStore(ABC):
    """Where terminal tasks live, private to their owner."""

    @abstractmethod
    async def save(self, owner: str, task: StoredTask, earlier_state: str | None = None) -> bytes:
        """Store the task and return its JSON (encoded once for store and reply);
        ``earlier_state`` is its state before, when it was stored already."""

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
    async def list(self, owner: str, query: TaskQuery, token_id: str = NO_TOKEN_ID) -> TaskPage:
        """A page of the owner's live tasks, most recently changed first.

        Raises Unauthorized if ``token_id`` was revoked (checked in the same round trip).
        """

    @abstractmethod
    async def forget(self, owner: str, task_id: str) -> bool:
        """Drop the task and its index entries at once; whether it existed."""

    @abstractmethod
    async def ping(self) -> bool:
        """Whether the store answers."""


class RedisTaskStore(TaskStore):
    def __init__(
        self,
        redis: Redis,
        scripts: Scripts,
        keys: Keys,
        ttl_seconds: int,
        clock: Clock,
        pipe: Pipe | None = None,
    ) -> None:
        self._redis = redis
        self._pipe = pipe
        self._scripts = scripts
        self._keys = keys
        self._ttl = ttl_seconds
        self._clock = clock

    async def save(self, owner: str, task: StoredTask, earlier_state: str | None = None) -> bytes:
        payload, args = self._record(task)
        keys = self._save_keys(owner, task)
        earlier = keys.by_state
        if earlier_state is not None:
            earlier = self._keys.tasks_in_state(owner, earlier_state)
        await self._scripts.save(keys, args, earlier)
        return payload

    async def admit_and_save(
        self, owner: str, task: StoredTask, admission: Admission
    ) -> tuple[bytes, RateLimitState]:
        payload, args = self._record(task)
        verdict = await self._scripts.admit_and_save(
            admission.keys, admission.args, self._save_keys(owner, task), args
        )
        return payload, admission.outcome(verdict)

    def _save_keys(self, owner: str, task: StoredTask) -> SaveKeys:
        keys = self._keys
        return SaveKeys(
            keys.task(owner, task.id),
            keys.context(owner, task.context_id),
            keys.tasks(owner),
            keys.tasks_in_state(owner, task.state),
            keys.tasks_in_context(owner, task.context_id),
        )

    def _record(self, task: StoredTask) -> tuple[bytes, SaveArgs]:
        """The task's JSON, and what the write takes: the record (the JSON with its
        expiry time) and the write time that orders the indexes."""
        payload = task.to_json()
        now = self._clock.now()
        record = b"%.3f\n%b" % (now + self._ttl, payload)
        return payload, SaveArgs(record, self._ttl, task.id, CONTEXT_HISTORY_LIMIT, int(now * 1000))

    async def get_json(self, owner: str, task_id: str, token_id: str = NO_TOKEN_ID) -> bytes | None:
        revoked_key, task_key = self._keys.revoked(owner, token_id), self._keys.task(owner, task_id)
        if self._pipe is not None:  # the hot path's connection (storage/pipe.py)
            revoked, raw = await self._pipe.calls(("EXISTS", revoked_key), ("GET", task_key))
        else:
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.exists(revoked_key)
                pipe.get(task_key)
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

    async def list(self, owner: str, query: TaskQuery, token_id: str = NO_TOKEN_ID) -> TaskPage:
        keys = self._keys
        walk = keys.tasks(owner)
        within = None
        if query.context_id is not None:
            walk = keys.tasks_in_context(owner, query.context_id)
        if query.state is not None:
            within = keys.tasks_in_state(owner, query.state)
            if query.context_id is None:
                walk = within
        now_ms = int(self._clock.now() * 1000)
        # A task is live while its expiry (write time + TTL) is after now.
        floor = now_ms - self._ttl * 1000 + 1
        if query.written_since is not None:
            floor = max(floor, _ceil_ms(query.written_since))
        after_ms, after_id = query.after or (0, "")
        page = await self._scripts.list(
            ListKeys(walk, within or walk, keys.revoked(owner, token_id)),
            ListArgs(floor, after_ms, after_id, query.limit),
        )
        if page.total < 0:
            raise Unauthorized(data={"reason": "token revoked"})
        found: list[bytes] = []
        if page.entries:
            records = await self._redis.mget([keys.task(owner, i) for i, _ in page.entries])
            found = [payload for raw in records if (payload := self._live(raw)) is not None]
        last = page.entries[-1] if page.entries and page.more else None
        return TaskPage(found, page.total, None if last is None else (last[1], last[0]))

    async def forget(self, owner: str, task_id: str) -> bool:
        keys = self._keys
        raw = await self._redis.get(keys.task(owner, task_id))
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.delete(keys.task(owner, task_id))
            pipe.zrem(keys.tasks(owner), task_id)
            if raw is not None:
                task = orjson.loads(
                    (raw.encode() if isinstance(raw, str) else raw).partition(b"\n")[2]
                )
                pipe.zrem(keys.tasks_in_state(owner, task["status"]["state"]), task_id)
                pipe.zrem(keys.tasks_in_context(owner, task["contextId"]), task_id)
                pipe.lrem(keys.context(owner, task["contextId"]), 0, task_id)
            deleted, *_ = await pipe.execute()
        return bool(deleted)

    async def ping(self) -> bool:
        return bool(await self._redis.ping())

    def _live(self, raw: bytes | str | None) -> bytes | None:
        """The task JSON of a record that has not expired by the clock."""
        if raw is None:
            return None
        expires, _, payload = (raw.encode() if isinstance(raw, str) else raw).partition(b"\n")
        return payload if float(expires) > self._clock.now() else None


def _ceil_ms(epoch: float) -> int:
    """Epoch seconds as whole milliseconds, rounded up (a bound that counts from there)."""
    millis = int(epoch * 1000)
    return millis + 1 if millis < epoch * 1000 else millis
