"""The Redis connection and the key layout shared by every store.

With no ``A2A_REDIS_URL`` the same code runs on an in-process fakeredis, so
the embedded default and production differ only in where the bytes live.
Every per-user key carries the user in a hash tag (``{...}``) so that, on a
Redis Cluster, one user's tasks, contexts and limits share a slot.
"""

from __future__ import annotations

from urllib.parse import quote

import fakeredis
from redis.asyncio import Redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from app.config import Settings


def connect(settings: Settings) -> Redis:
    """A client for the configured Redis, or an embedded fakeredis."""
    if settings.embedded:
        client: Redis = fakeredis.FakeAsyncRedis()
        return client
    timeout = settings.redis_timeout_seconds
    return Redis.from_url(
        settings.redis_url,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        retry=Retry(NoBackoff(), retries=1),
        health_check_interval=30,
    )


def text(value: bytes | str) -> str:
    """A Redis reply as text, whichever way the client decodes."""
    return value.decode() if isinstance(value, bytes) else value


class Keys:
    """Names of every key the server writes, under one prefix."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def user_tag(self, user_id: str) -> str:
        return "{" + quote(user_id, safe="") + "}"

    def task(self, user_id: str, task_id: str) -> str:
        return f"{self.prefix}:{self.user_tag(user_id)}:task:{task_id}"

    def context(self, user_id: str, context_id: str) -> str:
        return f"{self.prefix}:{self.user_tag(user_id)}:ctx:{context_id}"

    def bucket(self, user_id: str, bucket: str) -> str:
        return f"{self.prefix}:{self.user_tag(user_id)}:limit:{bucket}"

    def revoked(self, user_id: str, token_id: str) -> str:
        """Exists for a while after the token ``token_id`` of this user is revoked."""
        return f"{self.prefix}:{self.user_tag(user_id)}:revoked:{token_id}"

    def token(self, token_hash: str) -> str:
        return f"{self.prefix}:token:{token_hash}"

    @property
    def token_index(self) -> str:
        return f"{self.prefix}:tokens"
