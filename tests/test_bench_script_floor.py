"""The script floor (bench/apps/script_floor.py) does a cheap message/send's Redis
work and nothing else: its ratio to send means something only while it writes
what send writes, with the script send runs."""

from __future__ import annotations

import importlib
import time
from collections.abc import Iterator
from types import ModuleType

import httpx
import pytest
import redis as redis_sync

OWNER_KEYS = "bench:{bench-script-floor}:*"


@pytest.fixture
def script_floor(real_redis: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    monkeypatch.setenv("BENCH_REDIS_URL", real_redis)
    client = redis_sync.Redis.from_url(real_redis)

    def clear() -> None:
        keys = list(client.scan_iter(match=OWNER_KEYS, count=1000))
        if keys:
            client.delete(*keys)

    clear()
    module = importlib.reload(importlib.import_module("bench.apps.script_floor"))
    yield module
    clear()
    client.close()


async def test_each_request_is_admitted_and_written_as_a_send_is(
    script_floor: ModuleType, real_redis: str
) -> None:
    # A Redis that forgot the scripts (a restart): the first call loads the script again.
    redis_sync.Redis.from_url(real_redis).script_flush()
    transport = httpx.ASGITransport(app=script_floor.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
        for _ in range(3):
            answer = await client.post("/api/v1/a2a", content=b"{}")
            assert answer.status_code == 200, answer.text
    await script_floor.redis.aclose()

    redis = redis_sync.Redis.from_url(real_redis)
    keys = script_floor.KEYS
    owner = script_floor.OWNER
    tasks = [member.decode() for member in redis.zrange(keys.tasks(owner), 0, -1)]
    assert len(tasks) == 3
    assert redis.zcard(keys.bucket(owner, "default")) == 3
    assert redis.zrange(keys.tasks_in_state(owner, "completed"), 0, -1) == redis.zrange(
        keys.tasks(owner), 0, -1
    )
    lists = [
        key for key in redis.scan_iter(match=keys.context(owner, "*")) if b":tasks:" not in key
    ]
    by_list = {}
    for key in lists:  # one new context per request, as a send without a contextId
        (member,) = redis.lrange(key, 0, -1)
        by_list[member.decode()] = key.decode().rsplit(":", 1)[1]
    assert sorted(by_list) == sorted(tasks)
    for task_id, context_id in by_list.items():
        assert redis.zrange(keys.tasks_in_context(owner, context_id), 0, -1) == [task_id.encode()]
        record = redis.get(keys.task(owner, task_id))
        assert record is not None
        expiry, _, body = record.partition(b"\n")
        assert abs(float(expiry) - (time.time() + script_floor.TTL)) < 600
        assert body == script_floor.VALUE
        assert 0 < redis.ttl(keys.task(owner, task_id)) <= script_floor.TTL
    redis.close()
