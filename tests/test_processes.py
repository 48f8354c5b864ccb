"""Real server processes on one real Redis: shared tasks and shared limits,
and the official a2a-sdk 0.3 client driving a running server."""

from __future__ import annotations

import asyncio
import signal
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.client.errors import A2AClientJSONRPCError
from a2a.types import Message, Part, Role, Task, TaskIdParams, TaskQueryParams, TextPart

from magisterium_a2a.server.config import Settings
from magisterium_a2a.server.runtime import token_store
from magisterium_a2a.server.storage import Keys, connect
from tests.support import ServerProcess, issue_token, rpc_body, send_params, server_process

pytestmark = pytest.mark.subprocess


def server_env(settings: Settings, plugin_site: Path) -> dict[str, str]:
    return {
        "A2A_REDIS_URL": settings.redis_url,
        "A2A_KEY_PREFIX": settings.key_prefix,
        "A2A_DATA_DIR": str(settings.data_dir),
        "A2A_LOG_LEVEL": "warning",
        "PYTHONPATH": str(plugin_site),
    }


async def redis_token(settings: Settings, user: str, plan: str = "pro") -> str:
    redis = connect(settings)
    try:
        return await issue_token(
            token_store(settings, redis, Keys(settings.key_prefix)), plan, user
        )  # type: ignore[arg-type]
    finally:
        await redis.aclose()


@pytest.fixture
def two_servers(
    redis_settings: Settings, plugin_site: Path, tmp_path: Path
) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    env = server_env(redis_settings, plugin_site)
    with server_process(env, tmp_path) as first, server_process(env, tmp_path) as second:
        yield first, second


async def test_two_processes_share_tasks_and_limits(
    two_servers: tuple[ServerProcess, ServerProcess], redis_settings: Settings
) -> None:
    first, second = two_servers
    token = await redis_token(redis_settings, "ivy")
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(headers=headers, timeout=30) as client:
        created = await client.post(
            f"{first.base_url}/api/v1/a2a", json=rpc_body("message/send", send_params("shared"))
        )
        task = created.json()["result"]
        read = await client.post(
            f"{second.base_url}/api/v1/a2a", json=rpc_body("tasks/get", {"id": task["id"]})
        )
        assert read.json()["result"] == task

    fresh = await redis_token(redis_settings, "ivy-burst")

    async def one(client: httpx.AsyncClient, i: int) -> int:
        server = (first, second)[i % 2]
        body = rpc_body("message/send", send_params(f"n{i}"), i)
        response = await client.post(f"{server.base_url}/api/v1/a2a", json=body)
        return response.status_code

    async with httpx.AsyncClient(headers={"Authorization": f"Bearer {fresh}"}, timeout=30) as c:
        statuses = Counter(await asyncio.gather(*[one(c, i) for i in range(30)]))
    assert statuses == {200: 15, 429: 15}


async def test_workers_share_one_redis(
    redis_settings: Settings, plugin_site: Path, tmp_path: Path
) -> None:
    env = server_env(redis_settings, plugin_site)
    token = await redis_token(redis_settings, "jack")
    with server_process(env, tmp_path, workers=2) as server:
        url = f"{server.base_url}/api/v1/a2a"
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(headers=headers, timeout=30) as client:
            sends = [
                client.post(url, json=rpc_body("message/send", send_params(), i)) for i in range(40)
            ]
            responses = await asyncio.gather(*sends)
            task_ids = [r.json()["result"]["id"] for r in responses if r.status_code == 200]
            gets = await asyncio.gather(
                *[client.post(url, json=rpc_body("tasks/get", {"id": t})) for t in task_ids]
            )
            scrapes = [(await client.get(f"{server.base_url}/metrics")).text for _ in range(4)]
    assert Counter(r.status_code for r in responses) == {200: 15, 429: 25}
    assert all("result" in g.json() for g in gets)
    for text in scrapes:  # whichever worker answers, it reports both workers' calls
        sent = [
            float(line.rsplit(" ", 1)[1])
            for line in text.splitlines()
            if line.startswith('a2a_requests_total{method="message/send"')
        ]
        assert sum(sent) == 40


async def test_official_sdk_client_send_get_cancel(
    redis_settings: Settings, plugin_site: Path, tmp_path: Path
) -> None:
    env = server_env(redis_settings, plugin_site)
    token = await redis_token(redis_settings, "kate")
    with server_process(env, tmp_path) as server:
        env_url = server.base_url
        async with httpx.AsyncClient(
            headers={"Authorization": f"Bearer {token}"}, timeout=30
        ) as http:
            card = await A2ACardResolver(
                http, env_url, agent_card_path="/.well-known/agent.json"
            ).get_agent_card()
            assert card.protocol_version == "0.3.0"
            assert card.url == f"{env_url}/api/v1/a2a"
            client = ClientFactory(ClientConfig(httpx_client=http, streaming=False)).create(card)
            message = Message(
                role=Role.user,
                message_id="sdk-1",
                parts=[Part(root=TextPart(text="from the SDK"))],
                metadata={"skillId": "echo"},
            )
            events = [event async for event in client.send_message(message)]
            task = events[-1][0] if isinstance(events[-1], tuple) else events[-1]
            assert isinstance(task, Task)
            assert task.status.state.value == "completed"
            assert task.artifacts is not None
            assert task.artifacts[0].parts[0].root.text == "from the SDK"  # type: ignore[union-attr]

            fetched = await client.get_task(TaskQueryParams(id=task.id, history_length=1))
            assert fetched.id == task.id
            assert fetched.history is not None and len(fetched.history) == 1

            with pytest.raises(A2AClientJSONRPCError) as raised:
                await client.cancel_task(TaskIdParams(id=task.id))
            assert raised.value.error.code == -32602
            assert raised.value.error.message == "Invalid state transition"
            await client.close()


async def test_graceful_shutdown_finishes_in_flight_requests(
    settings: Settings, plugin_site: Path, tmp_path: Path
) -> None:
    admin = "graceful-admin-token-0123456789"
    env = {
        "A2A_DATA_DIR": str(settings.data_dir),
        "A2A_TEST_MODE": "1",
        "A2A_ADMIN_TOKEN": admin,
        "PYTHONPATH": str(plugin_site),
    }
    with server_process(env, tmp_path) as server:
        async with httpx.AsyncClient(base_url=server.base_url, timeout=30) as http:
            headers = {"Authorization": f"Bearer {admin}"}
            token = (
                await http.post("/_test/tokens", json={"plan": "pro"}, headers=headers)
            ).json()["token"]
            scenario = {"kind": "latency", "token": token, "latencyMs": 1500}
            assert (await http.post("/_test/scenarios", json=scenario, headers=headers)).is_success
            slow = asyncio.create_task(
                http.post(
                    "/api/v1/a2a",
                    json=rpc_body("message/send", send_params("slow")),
                    headers={"Authorization": f"Bearer {token}"},
                )
            )
            await asyncio.sleep(0.5)  # let the request reach the server before stopping it
            server.process.terminate()
            response = await slow
            assert response.status_code == 200
            assert response.json()["result"]["status"]["state"] == "completed"
            # uvicorn ends by re-raising the signal it handled, as a well-behaved child should
            assert await asyncio.to_thread(server.process.wait, 20) in (0, -signal.SIGTERM)


async def test_development_mode_prints_and_accepts_the_demo_tokens(
    settings: Settings, tmp_path: Path
) -> None:
    env = {"A2A_DEV_MODE": "1", "A2A_DATA_DIR": str(settings.data_dir)}
    with server_process(env, tmp_path) as server:
        async with httpx.AsyncClient(base_url=server.base_url, timeout=30) as http:
            statuses = {}
            for token in ("demo-free", "demo-pro", "demo-organization", "demo-enterprise"):
                response = await http.post(
                    "/api/v1/a2a",
                    json=rpc_body("message/send", send_params("Rerum Novarum", "document_search")),
                    headers={"Authorization": f"Bearer {token}"},
                )
                statuses[token] = response.status_code
        banner = server.log()
    assert statuses == {
        "demo-free": 403,
        "demo-pro": 200,
        "demo-organization": 200,
        "demo-enterprise": 200,
    }
    for token in statuses:
        assert token in banner
    assert "Development mode" in banner
    assert f"Playground: {server.base_url}/" in banner
