"""The task store, token store and limiter on the real Redis (127.0.0.1:6379)."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest
import redis as redis_sync

from magisterium_a2a.server.clock import ManualClock
from magisterium_a2a.server.config import Settings
from magisterium_a2a.server.identity import hash_token, owner_key
from magisterium_a2a.server.storage import Keys
from tests.support import harness, send_params


async def test_task_is_stored_once_with_ttl_under_the_users_namespace(
    redis_settings: Settings, redis_client: redis_sync.Redis
) -> None:
    async with harness(redis_settings) as h:
        task = (await h.send(await h.token(user="u/1:{x}"))).json()["result"]
    keys = Keys(redis_settings.key_prefix)
    key = keys.task(owner_key("u/1:{x}"), task["id"])
    assert key == f"{redis_settings.key_prefix}:{{u%2F1%3A%7Bx%7D}}:task:{task['id']}"
    ttl = redis_client.ttl(key)
    assert 86400 - 5 <= ttl <= 86400
    task_keys = list(redis_client.scan_iter(match=f"{redis_settings.key_prefix}:*:task:*"))
    assert task_keys == [key.encode()]


async def test_short_ttl_expires_the_task(
    redis_settings: Settings, redis_client: redis_sync.Redis
) -> None:
    clock = ManualClock(1_800_000_000.0)
    short = redis_settings.model_copy(update={"task_ttl_seconds": 5})
    async with harness(short, clock=clock) as h:
        token = await h.token()
        task = (await h.send(token)).json()["result"]
        assert "result" in (await h.call("tasks/get", {"id": task["id"]}, token)).json()
        stored = list(redis_client.scan_iter(match=f"{short.key_prefix}:*:task:*"))
        assert 0 < redis_client.ttl(stored[0]) <= 5
        clock.advance(5)
        gone = (await h.call("tasks/get", {"id": task["id"]}, token)).json()
        assert gone["error"]["code"] == -32001


async def test_concurrent_sends_of_one_user_admit_exactly_the_limit(
    redis_settings: Settings,
) -> None:
    async with harness(redis_settings) as h:
        tokens = [await h.token(user="frank"), await h.token(user="frank")]
        bystander = await h.token(user="grace")

        async def burst(skill: str) -> Counter[int]:
            sends = [h.send(tokens[i % 2], skill=skill) for i in range(40)]
            return Counter(r.status_code for r in await asyncio.gather(*sends))

        assert await burst("echo") == {200: 15, 429: 25}
        assert await burst("echo_expensive") == {200: 2, 429: 38}
        gets = await asyncio.gather(
            *[h.call("tasks/get", {"id": "x"}, tokens[0]) for _ in range(40)]
        )
        assert {r.status_code for r in gets} == {200}
        assert (await h.send(bystander)).status_code == 200


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("message/send", send_params(skill="echo")),
        ("message/send", send_params(skill="earlier")),
        ("message/send", send_params(skill="echo_expensive")),
        ("message/send", send_params(skill="no_such_skill")),
        ("message/send", {"message": {}}),
        ("tasks/get", {"id": "x"}),
        ("tasks/cancel", {"id": "x"}),
        ("no/such/method", {}),
    ],
)
async def test_revoked_token_is_refused_at_once_although_cached(
    redis_settings: Settings, method: str, params: dict[str, object]
) -> None:
    assert redis_settings.token_cache_seconds > 0
    async with harness(redis_settings) as h:
        token = await h.token()
        assert (await h.send(token)).status_code == 200
        assert await h.tokens.delete(hash_token(token))
        response = await h.call(method, params, token)
        assert response.status_code == 401
        assert response.json()["error"]["code"] == -32004


async def test_revoked_free_token_is_401_not_403(redis_settings: Settings) -> None:
    async with harness(redis_settings) as h:
        token = await h.token("free")
        assert (await h.send(token)).status_code == 403
        await h.tokens.delete(hash_token(token))
        assert (await h.send(token)).status_code == 401


async def test_tokens_are_stored_only_as_hashes(
    redis_settings: Settings, redis_client: redis_sync.Redis
) -> None:
    async with harness(redis_settings) as h:
        token = await h.token(user="hank")
    values = [
        redis_client.get(k)
        for k in redis_client.scan_iter(match=f"{redis_settings.key_prefix}:token:*")
    ]
    assert values
    blob = b"".join(v or b"" for v in values) + b"".join(
        redis_client.scan_iter(match=f"{redis_settings.key_prefix}:*")
    )
    assert token.encode() not in blob
    assert hash_token(token).encode() in blob


async def test_readiness_follows_the_store(redis_settings: Settings) -> None:
    async with harness(redis_settings) as h:
        assert (await h.client.get("/readyz")).status_code == 200
    unreachable = redis_settings.model_copy(
        update={"redis_url": "redis://127.0.0.1:1/0", "redis_timeout_seconds": 0.5}
    )
    async with harness(unreachable) as h:
        assert (await h.client.get("/readyz")).status_code == 503
        response = await h.call("tasks/get", {"id": "x"}, "some-token")
        assert response.status_code == 200
        assert response.json()["error"] == {"code": -32603, "message": "Internal error"}
        assert "127.0.0.1:1" not in response.text
