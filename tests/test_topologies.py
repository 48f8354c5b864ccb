"""The same server on a Redis Cluster, behind Sentinel, and through an
outage of a real redis-server (with AOF): nothing acknowledged is lost."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from pathlib import Path

import httpx
import pytest

from magisterium_a2a.server.config import Settings
from magisterium_a2a.server.identity import hash_token
from tests.redis_servers import redis_cluster, redis_process, redis_sentinel
from tests.support import harness, issue_token, rpc_body, send_params, server_process

pytestmark = pytest.mark.subprocess


async def exercise(settings: Settings) -> None:
    """Send, read, limit, revoke: the whole per-user keyspace in use."""
    async with harness(settings) as h:
        token = await h.token(user="topology-user")
        task = (await h.send(token, context_id="ctx")).json()["result"]
        got = (await h.call("tasks/get", {"id": task["id"]}, token)).json()
        assert got["result"] == task
        statuses = Counter(
            r.status_code for r in await asyncio.gather(*[h.send(token) for _ in range(20)])
        )
        assert statuses == {200: 14, 429: 6}
        earlier = (await h.send(token, skill="earlier", context_id="ctx")).json()
        assert earlier["error"]["code"] == -32003
        assert (await h.send(token, skill="echo_expensive")).status_code == 200
        v1 = {"A2A-Version": "1.0"}
        everything = (await h.post(rpc_body("ListTasks", {}), token, v1)).json()["result"]
        assert everything["totalSize"] == 16
        in_ctx = (await h.post(rpc_body("ListTasks", {"contextId": "ctx"}), token, v1)).json()
        assert [t["id"] for t in in_ctx["result"]["tasks"]] == [task["id"]]
        listed = await h.tokens.all()
        assert hash_token(token) in listed
        await h.tokens.delete(hash_token(token))
        assert (await h.call("tasks/get", {"id": task["id"]}, token)).status_code == 401
        assert (await h.post(rpc_body("ListTasks", {}), token, v1)).status_code == 401


async def test_redis_cluster(settings: Settings, tmp_path: Path) -> None:
    with redis_cluster(tmp_path) as nodes:
        url = "redis+cluster://" + ",".join(f"127.0.0.1:{n.port}" for n in nodes[:2])
        await exercise(settings.model_copy(update={"redis_url": url}))


async def test_redis_sentinel(settings: Settings, tmp_path: Path) -> None:
    with redis_sentinel(tmp_path) as (_, sentinel_port):
        url = f"redis+sentinel://127.0.0.1:{sentinel_port}/mymaster/0"
        await exercise(settings.model_copy(update={"redis_url": url}))


def test_bad_sentinel_url_is_refused(settings: Settings) -> None:
    from magisterium_a2a.server.storage import connect

    with pytest.raises(ValueError, match="names the service"):
        connect(settings.model_copy(update={"redis_url": "redis+sentinel://127.0.0.1:26379"}))


async def test_redis_outage_and_recovery(
    settings: Settings, tmp_path: Path, plugin_site: Path
) -> None:
    aof = ("--appendonly", "yes", "--appendfsync", "always")
    with redis_process(tmp_path / "redis", *aof) as redis_server:
        configured = settings.model_copy(update={"redis_url": redis_server.url})
        from magisterium_a2a.server.runtime import token_store
        from magisterium_a2a.server.storage import Keys, connect

        client = connect(configured)
        token = await issue_token(token_store(configured, client, Keys("a2a")), "pro", "olga")
        await client.aclose()
        env = {
            "A2A_REDIS_URL": redis_server.url,
            "A2A_REDIS_TIMEOUT_SECONDS": "0.5",
            "A2A_DATA_DIR": str(settings.data_dir),
            "PYTHONPATH": str(plugin_site),
        }
        with server_process(env, tmp_path) as server:
            url = f"{server.base_url}/api/v1/a2a"
            async with httpx.AsyncClient(
                headers={"Authorization": f"Bearer {token}"}, timeout=30
            ) as http:
                acknowledged = [
                    (
                        await http.post(url, json=rpc_body("message/send", send_params(f"n{i}")))
                    ).json()["result"]["id"]
                    for i in range(5)
                ]
                redis_server.kill()
                started = time.monotonic()
                down = await http.post(url, json=rpc_body("message/send", send_params("x")))
                assert time.monotonic() - started < 5
                assert down.status_code == 200
                assert down.json()["error"] == {"code": -32603, "message": "Internal error"}
                read = await http.post(url, json=rpc_body("tasks/get", {"id": acknowledged[0]}))
                assert read.json()["error"]["code"] == -32603
                assert (await http.get(f"{server.base_url}/readyz")).status_code == 503

                redis_server.start()
                deadline = time.monotonic() + 20
                while (await http.get(f"{server.base_url}/readyz")).status_code != 200:
                    assert time.monotonic() < deadline, "the server did not recover"
                    await asyncio.sleep(0.05)
                for task_id in acknowledged:
                    back = await http.post(url, json=rpc_body("tasks/get", {"id": task_id}))
                    assert back.json()["result"]["id"] == task_id
                after = await http.post(url, json=rpc_body("message/send", send_params("y")))
                assert after.json()["result"]["status"]["state"] == "completed"
