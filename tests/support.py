"""Helpers shared by the tests: an in-process harness over HTTP, token
issuing, real subprocess servers, and the A2A v0.3 schema."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
from asgi_lifespan import LifespanManager

from magisterium_a2a.plugin import PluginSettings
from magisterium_a2a.server.clock import Clock, IdFactory
from magisterium_a2a.server.config import Settings
from magisterium_a2a.server.identity import Plan, hash_token
from magisterium_a2a.server.main import create_app
from magisterium_a2a.server.registry import SkillRegistry
from magisterium_a2a.server.runtime import Runtime
from magisterium_a2a.server.tokens import TokenRecord, TokenStore, new_token
from magisterium_a2a.skills.knowledge.settings import KnowledgeSettings
from magisterium_a2a.skills.liturgy.settings import LiturgySettings
from magisterium_a2a.skills.qa.settings import QASettings
from magisterium_a2a.testing.pytest_plugin import ServerProcess, running_server

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
SCHEMA_PATH = SHARED / "refdata" / "a2a-v0.3" / "a2a.json"
ENDPOINT = "/api/v1/a2a"
_ids = itertools.count(1)
FAMILIES: tuple[type[PluginSettings], ...] = (LiturgySettings, KnowledgeSettings, QASettings)


class AllSettings(Settings, LiturgySettings, KnowledgeSettings, QASettings):
    """The server's settings and every built-in skill family's in one object, so a
    test sets any ``A2A_*`` field in one place; the harness hands each family its
    own part (the server never sees the families' fields)."""


def families(settings: Settings) -> list[PluginSettings]:
    """Each built-in family's settings, taken from the fields ``settings`` has."""
    values = dict(settings)
    return [
        kind.model_validate({k: values[k] for k in kind.model_fields if k in values})
        for kind in FAMILIES
    ]


async def issue_token(
    store: TokenStore,
    plan: Plan = "pro",
    user: str | None = None,
    *,
    now: float | None = None,
    expires_in: float | None = None,
    per_minute: int | None = None,
    qa_per_minute: int | None = None,
) -> str:
    created = time.time() if now is None else now
    token = new_token()
    record = TokenRecord(
        user_id=user or f"user-{next(_ids)}",
        plan=plan,
        created_at=created,
        expires_at=created + expires_in if expires_in is not None else None,
        per_minute=per_minute,
        qa_per_minute=qa_per_minute,
    )
    await store.put(hash_token(token), record)
    return token


@contextlib.contextmanager
def isolated_settings(**fields: Any) -> Iterator[Settings]:
    """Settings for a fixture wider than one test, with none of the developer's
    A2A_* variables in the environment while it lives (the autouse fixture in
    conftest clears them per test only)."""
    with pytest.MonkeyPatch.context() as patch:
        for name in list(os.environ):
            if name.startswith("A2A_"):
                patch.delenv(name)
        yield AllSettings(_env_file=None, **fields)  # type: ignore[call-arg]


def rpc_body(method: str, params: Any = None, req_id: int | str = 1) -> dict[str, Any]:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": req_id, "method": method}
    if params is not None:
        body["params"] = params
    return body


def send_params(
    text: str = "hello",
    skill: str | None = "echo",
    *,
    context_id: str | None = None,
    parts: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "user",
        "kind": "message",
        # Of one length whatever the count: test_fuzz mutates these bytes at drawn
        # offsets, and hypothesis replays a case only if its request is as long again.
        "messageId": f"m-{next(_ids):09d}",
        "parts": parts if parts is not None else [{"kind": "text", "text": text}],
    }
    if skill is not None:
        message["metadata"] = {"skillId": skill}
    if context_id is not None:
        message["contextId"] = context_id
    return {"message": message}


@dataclass
class Harness:
    """One app, in process, spoken to over HTTP through httpx's ASGI transport."""

    client: httpx.AsyncClient
    runtime: Runtime
    settings: Settings
    tokens: TokenStore

    async def token(self, plan: Plan = "pro", user: str | None = None, **kw: Any) -> str:
        now = self.runtime.env.clock.now()
        return await issue_token(self.tokens, plan, user, now=now, **kw)

    async def post(
        self, body: Any, token: str | None = None, headers: dict[str, str] | None = None
    ) -> httpx.Response:
        all_headers = {"Content-Type": "application/json", **(headers or {})}
        if token is not None:
            all_headers["Authorization"] = f"Bearer {token}"
        content = body if isinstance(body, bytes) else json.dumps(body).encode()
        return await self.client.post(ENDPOINT, content=content, headers=all_headers)

    async def call(
        self, method: str, params: Any, token: str | None, req_id: int | str = 1
    ) -> httpx.Response:
        return await self.post(rpc_body(method, params, req_id), token)

    async def send(
        self, token: str, text: str = "hello", skill: str | None = "echo", **kw: Any
    ) -> httpx.Response:
        return await self.call("message/send", send_params(text, skill, **kw), token)


@contextlib.asynccontextmanager
async def harness(
    settings: Settings,
    *,
    clock: Clock | None = None,
    ids: IdFactory | None = None,
    builtins: tuple[str, ...] = (),
) -> AsyncIterator[Harness]:
    def registry(env: Any) -> SkillRegistry:
        return SkillRegistry.load(
            env, builtins=builtins, extra=settings.extra_skills, disabled=settings.disabled_skills
        )

    app = create_app(
        settings,
        clock=clock,
        ids=ids,
        registry_factory=registry,
        plugin_settings=families(settings),
    )
    async with LifespanManager(app) as manager:
        runtime: Runtime = app.state.runtime
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            yield Harness(client, runtime, settings, runtime.tokens)


@contextlib.contextmanager
def server_process(
    env: dict[str, str], log_dir: Path, *, workers: int = 1, python: str | None = None
) -> Iterator[ServerProcess]:
    """A real server whose imports also see the repository and the test plug-ins
    (``python``: another interpreter command, e.g. a wrapper that sets limits).

    None of the tests that start one this way is about search by meaning, so the
    server starts without the in-process embedding model (its search is BM25), which
    saves loading it, about 1.4 s of CPU a server; ``A2A_EMBEDDINGS_LOCAL`` in ``env``
    says otherwise. The model's own tests are test_knowledge_semantic's and the image's
    (test_deploy), on the default settings."""
    paths = [str(ROOT), str(ROOT / "tests" / "plugins"), env.get("PYTHONPATH", "")]
    env = {
        "A2A_EMBEDDINGS_LOCAL": "false",
        **env,
        "PYTHONPATH": os.pathsep.join(p for p in paths if p),
    }
    extra = {} if python is None else {"python": python}
    with running_server(env, log_dir, workers=workers, **extra) as server:
        yield server


def a2a_schema() -> dict[str, Any] | None:
    if not SCHEMA_PATH.exists():
        return None
    schema: dict[str, Any] = json.loads(SCHEMA_PATH.read_text())
    return schema


def validate_definition(schema: dict[str, Any], definition: str, instance: Any) -> None:
    wrapper = {"$ref": f"#/definitions/{definition}", "definitions": schema["definitions"]}
    jsonschema.validate(instance, wrapper, cls=jsonschema.Draft7Validator)
