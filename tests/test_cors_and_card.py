"""CONTRACT sections 1, 8 and 9: CORS on every answer, the agent card at
both paths, health and readiness."""

from __future__ import annotations

from typing import Any

import pytest
from a2a import types as sdk

from magisterium_a2a.server.config import Settings
from tests.support import Harness, harness, validate_definition

ORIGIN = "https://orchestrator.example"


async def test_preflight_needs_no_auth(h: Harness) -> None:
    response = await h.client.options(
        "/api/v1/a2a",
        headers={
            "Origin": ORIGIN,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type",
        },
    )
    assert response.status_code == 204
    assert response.headers["access-control-allow-origin"] == "*"
    assert response.headers["access-control-allow-methods"] == "POST, OPTIONS"
    assert response.headers["access-control-allow-headers"] == "Content-Type, Authorization"
    assert int(response.headers["access-control-max-age"]) > 0


@pytest.mark.parametrize("case", ["ok", "401", "403", "429", "parse", "413"])
async def test_every_endpoint_answer_carries_cors(settings: Settings, case: str) -> None:
    async with harness(settings.model_copy(update={"limit_default_per_minute": 1})) as h:
        headers = {"Origin": ORIGIN}
        token = await h.token()
        if case == "ok":
            response = await h.post(
                {"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": "x"}},
                token,
                headers,
            )
            expected = 200
        elif case == "401":
            response = await h.post({"jsonrpc": "2.0", "id": 1, "method": "x"}, None, headers)
            expected = 401
        elif case == "403":
            response = await h.post(
                {"jsonrpc": "2.0", "id": 1, "method": "x"}, await h.token("free"), headers
            )
            expected = 403
        elif case == "429":
            await h.send(token)
            response = await h.client.post(
                "/api/v1/a2a",
                json={
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "message/send",
                    "params": {
                        "message": {
                            "role": "user",
                            "kind": "message",
                            "messageId": "m",
                            "parts": [{"kind": "text", "text": "x"}],
                            "metadata": {"skillId": "echo"},
                        }
                    },
                },
                headers={**headers, "Authorization": f"Bearer {token}"},
            )
            expected = 429
        elif case == "parse":
            response = await h.post(b"nope", token, headers)
            expected = 200
        else:
            response = await h.post(b" " * (settings.max_body_bytes + 1), token, headers)
            expected = 413
    assert response.status_code == expected
    assert response.headers["access-control-allow-origin"] == "*"
    assert "Retry-After" in response.headers["access-control-expose-headers"]


async def test_restricted_origins(settings: Settings) -> None:
    allowed = "https://app.example"
    async with harness(settings.model_copy(update={"cors_origins": [allowed]})) as h:
        ok = await h.client.options("/api/v1/a2a", headers={"Origin": allowed})
        other = await h.client.options("/api/v1/a2a", headers={"Origin": ORIGIN})
        post = await h.post({"jsonrpc": "2.0"}, None, {"Origin": allowed})
    assert ok.headers["access-control-allow-origin"] == allowed
    assert ok.headers["vary"] == "Origin"
    assert "access-control-allow-origin" not in other.headers
    assert post.headers["access-control-allow-origin"] == allowed


def test_cors_origins_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("A2A_CORS_ORIGINS", "https://a.example, https://b.example")
    assert Settings(_env_file=None).cors_origins == [  # type: ignore[call-arg]
        "https://a.example",
        "https://b.example",
    ]


@pytest.mark.parametrize("path", ["/.well-known/agent.json", "/.well-known/agent-card.json"])
async def test_agent_card(settings: Settings, path: str, schema: dict[str, Any]) -> None:
    configured = settings.model_copy(update={"public_url": "https://a2a.example.org/"})
    async with harness(configured) as h:
        response = await h.client.get(path)
    assert response.status_code == 200
    assert response.headers["cache-control"] == "public, max-age=3600"
    card = response.json()
    validate_definition(schema, "AgentCard", card)
    sdk.AgentCard.model_validate(card)
    assert card["url"] == "https://a2a.example.org/api/v1/a2a"
    assert card["protocolVersion"] == "0.3.0"
    assert card["preferredTransport"] == "JSONRPC"
    assert card["capabilities"] == {
        "streaming": False,
        "pushNotifications": False,
        "stateTransitionHistory": True,
    }
    assert card["securitySchemes"]["bearer"] == {
        "type": "http",
        "scheme": "bearer",
        "description": card["securitySchemes"]["bearer"]["description"],
    }
    assert card["security"] == [{"bearer": []}]
    assert card["defaultInputModes"] and card["defaultOutputModes"]
    skills = {skill["id"]: skill for skill in card["skills"]}
    assert set(skills) >= {"echo", "echo_expensive", "explode"}
    assert set(skills["echo"]) == {
        "id",
        "name",
        "description",
        "tags",
        "examples",
        "inputModes",
        "outputModes",
    }


async def test_card_lists_exactly_the_registry(settings: Settings) -> None:
    hidden = settings.model_copy(update={"disabled_skills": ["explode", "hang"]})
    async with harness(hidden) as h:
        card = (await h.client.get("/.well-known/agent.json")).json()
        assert [s["id"] for s in card["skills"]] == [s.id for s in h.runtime.registry]
        assert (await h.send(await h.token(), skill="explode")).json()["error"]["code"] == -32002
    assert "explode" not in {s["id"] for s in card["skills"]}


async def test_health_and_readiness(h: Harness) -> None:
    assert (await h.client.get("/healthz")).json() == {"status": "ok"}
    assert (await h.client.get("/readyz")).json() == {"status": "ready"}
