"""The Redis connection: one server, Sentinel, Cluster, or an embedded fakeredis.

With no ``A2A_REDIS_URL`` the same code (and the same Lua scripts) runs on an
in-process fakeredis, so the embedded default and production differ only in
where the bytes live.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast
from urllib.parse import urlsplit

import fakeredis
import hiredis
from redis.asyncio import Redis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.connection import Connection
from redis.asyncio.sentinel import Sentinel
from redis.backoff import NoBackoff
from redis.retry import Retry
from redis.typing import EncodableT

from magisterium_a2a.server.config import Settings
from magisterium_a2a.server.storage.pipe import Pipe, Polling


def connect(settings: Settings) -> Redis:
    """A client for the configured Redis, or an embedded fakeredis.

    ``redis://``, ``rediss://`` and ``unix://`` URLs name one server;
    ``redis+sentinel://[:password@]host:port[,host:port...]/service[/db]``
    asks Sentinels for the current master; ``redis+cluster://[:password@]
    host:port[,host:port...]`` is a Redis Cluster (every multi-key operation
    here stays inside one user's hash tag, so one slot).
    """
    if settings.embedded:
        client: Redis = fakeredis.FakeAsyncRedis()
        return client
    timeout = settings.redis_timeout_seconds
    options: dict[str, Any] = {
        "socket_timeout": timeout,
        "socket_connect_timeout": timeout,
        "retry": Retry(NoBackoff(), retries=1),
        "max_connections": settings.redis_max_connections,
    }
    url = urlsplit(settings.redis_url)
    nodes = [_host_port(node) for node in url.netloc.rpartition("@")[2].split(",") if node]
    if url.scheme == "redis+sentinel":
        service, _, db = url.path.strip("/").partition("/")
        if not service:
            raise ValueError("a redis+sentinel:// URL names the service: .../<service>[/<db>]")
        sentinel = Sentinel(  # type: ignore[no-untyped-call]
            nodes,
            sentinel_kwargs={"socket_timeout": timeout, "socket_connect_timeout": timeout},
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
        )
        del options["max_connections"]
        master: Redis = sentinel.master_for(
            service, db=int(db or 0), password=url.password, **options
        )
        return master
    if url.scheme == "redis+cluster":
        cluster = RedisCluster(
            startup_nodes=[ClusterNode(host, port) for host, port in nodes],
            password=url.password,
            **options,
        )
        # Not a subclass of Redis, but it answers every command used here.
        return cast(Redis, cluster)
    if url.scheme == "redis":
        options["connection_class"] = HiredisPacking
    return Redis.from_url(settings.redis_url, health_check_interval=30, **options)


def hot_pipe(settings: Settings, worth_polling: Callable[[], bool] | None = None) -> Pipe | None:
    """The hot path's pipelined connection (``pipe.py``) for a plain ``redis://``
    server; None for the embedded store and every other kind of URL.
    ``worth_polling``: whether keeping the loop polling for a due reply is worth it
    now (always, when not given); ``A2A_REDIS_SPIN_MICROSECONDS`` bounds it."""
    if settings.embedded:
        return None
    polling = None
    if settings.redis_spin_microseconds:
        bound = settings.redis_spin_microseconds / 1_000_000
        polling = Polling(bound) if worth_polling is None else Polling(bound, worth_polling)
    return Pipe.for_url(settings.redis_url, settings.redis_timeout_seconds, polling)


_PLAIN = (str, bytes, int)


class HiredisPacking(Connection):
    """redis-py's asyncio connection, with commands packed by hiredis.

    redis-py's asyncio connection writes the protocol in Python (its blocking
    client uses hiredis when installed): about 40 µs for a cheap
    ``message/send``'s script call against 6 µs in hiredis, on every call of the
    hot path (bench/RESULTS.md). The bytes are the same (tests/test_storage.py);
    anything but plain text, bytes and integers (floats, memoryviews, a command
    name with a space, what redis-py refuses) takes redis-py's own way.
    """

    def pack_command(self, *args: EncodableT) -> list[bytes]:
        first = args[0]
        if type(first) is not str or " " in first:
            return super().pack_command(*args)
        for arg in args:
            if type(arg) not in _PLAIN:
                return super().pack_command(*args)
        # hiredis types its argument as one tuple of its own accepted items.
        return [hiredis.pack_command(args)]  # type: ignore[arg-type]


def _host_port(node: str) -> tuple[str, int]:
    host, _, port = node.rpartition(":")
    return (host or node, int(port)) if host else (node, 6379)


def text(value: bytes | str) -> str:
    """A Redis reply as text, whichever way the client decodes."""
    return value.decode() if isinstance(value, bytes) else value
