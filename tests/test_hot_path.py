"""The hot path's shortcuts change nothing on the wire.

``message/send`` writes its task's JSON from plain dicts with orjson instead of
building and dumping the models: for any message a client can send and any
artifacts a skill can return, the bytes are the models' own (and whatever
orjson cannot write as pydantic does falls back to the models). The endpoint
answers ahead of FastAPI's stack: the framework's way (taken under a root
path) gives the same answers, and an unhandled error is still a plain 500.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import decimal
import enum
from collections.abc import AsyncIterator
from typing import Any, cast

import httpx
import orjson
import pytest
from asgi_lifespan import LifespanManager
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from magisterium_a2a.plugin import Artifact, DataPart, FilePart, Message, SkillContext, TextPart
from magisterium_a2a.server import taskjson
from magisterium_a2a.server.clock import ManualClock, SeededIds
from magisterium_a2a.server.config import Settings
from magisterium_a2a.server.main import create_app
from magisterium_a2a.server.methods import A2AMethods, parse_params
from magisterium_a2a.server.protocol import MessageSendParams
from magisterium_a2a.server.rpc import parse_body
from magisterium_a2a.server.runtime import Runtime
from magisterium_a2a.server.tokens import TokenStore
from tests.support import ENDPOINT, families, issue_token, rpc_body, send_params

# --- the task's JSON ------------------------------------------------------------

scalar = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats()
    | st.text(max_size=12)
)
json_value = st.recursive(
    scalar,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=12,
)
json_object = st.dictionaries(st.text(max_size=6), json_value, max_size=3)
maybe_object = st.none() | json_object
maybe_text = st.none() | st.text(max_size=10)

client_part = st.one_of(
    st.builds(lambda t, m: {"kind": "text", "text": t, "metadata": m}, st.text(), maybe_object),
    st.builds(lambda d: {"kind": "data", "data": d}, json_object),
    st.builds(
        lambda f: {"kind": "file", "file": f},
        st.fixed_dictionaries({"uri": st.text(max_size=20)}, optional={"mimeType": st.text()})
        | st.fixed_dictionaries({"bytes": st.text(max_size=20)}, optional={"name": st.text()}),
    ),
)
client_message = st.fixed_dictionaries(
    {
        "kind": st.just("message"),
        "role": st.just("user"),
        "messageId": st.text(min_size=1, max_size=12),
        "parts": st.lists(client_part, min_size=1, max_size=3),
    },
    optional={
        "contextId": st.text(max_size=12),
        "referenceTaskIds": st.lists(st.text(max_size=6), max_size=2),
        "extensions": st.lists(st.text(max_size=6), max_size=2),
        "metadata": json_object,
        "unknownField": json_value,
    },
)


class Colour(enum.StrEnum):
    RED = "red"


# What a skill may put in a data part beyond plain JSON: values only pydantic writes.
exotic = st.sampled_from(
    [
        datetime.datetime(2026, 12, 1, 4, 5, 6, tzinfo=datetime.UTC),
        datetime.date(2026, 12, 1),
        decimal.Decimal("1.50"),
        2**80,
        Colour.RED,
        (1, "two"),
        float("nan"),
        float("inf"),
    ]
)
skill_value = st.recursive(
    scalar | exotic,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
skill_part = st.one_of(
    st.builds(
        lambda text, meta: TextPart(kind="text", text=text, metadata=meta), st.text(), maybe_object
    ),
    st.builds(
        lambda data, meta: DataPart(kind="data", data=data, metadata=meta),
        st.dictionaries(st.text(max_size=6), skill_value, max_size=3),
        maybe_object,
    ),
    st.builds(
        lambda uri, mime: FilePart.model_validate(
            {"kind": "file", "file": {"uri": uri, "mimeType": mime}}
        ),
        st.text(max_size=10),
        maybe_text,
    ),
)
skill_artifact = st.builds(
    lambda artifact_id, name, description, parts, meta: Artifact(
        artifact_id=artifact_id, name=name, description=description, parts=parts, metadata=meta
    ),
    st.text(min_size=1, max_size=10),
    maybe_text,
    maybe_text,
    st.lists(skill_part, min_size=1, max_size=3),
    maybe_object,
)


def _methods() -> A2AMethods:
    unused = cast(Any, None)
    return A2AMethods(
        settings=Settings(_env_file=None),
        store=unused,
        registry=unused,
        limiter=unused,
        clock=ManualClock(1_795_984_200.123),
        ids=SeededIds(7),
    )


class _Skill:
    id = "some.skill"


def _context(incoming: Message) -> SkillContext:
    assert incoming.task_id is not None and incoming.context_id is not None
    ids = SeededIds(11)
    return SkillContext(
        user_id="u",
        plan="pro",
        task_id=incoming.task_id,
        context_id=incoming.context_id,
        ids=ids,
        clock=ManualClock(0),
        earlier_tasks=cast(Any, None),
    )


def _incoming(raw: dict[str, Any]) -> Message:
    """A client's message as the endpoint validates it (through orjson's parser)."""
    params = parse_params(MessageSendParams, parse_body(orjson.dumps({"message": raw})))
    message: Message = params.message
    message.task_id = "0b7f1c9e-5d43-4b1a-9c43-3f0c8a2d9e11"
    message.context_id = message.context_id or "7c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5"
    return message


def _expected(
    methods: A2AMethods,
    built: Any,
    incoming: Message,
    artifacts: list[Artifact],
    failure: TextPart | None,
) -> bytes:
    written = orjson.loads(built.json)
    return methods._task_model(
        cast(Any, _Skill()),
        _context(incoming),
        incoming,
        artifacts,
        failure,
        written["history"][1]["messageId"],
        written["status"]["timestamp"],
    ).to_json()


@hypothesis_settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    raw=client_message,
    artifacts=st.lists(skill_artifact, min_size=1, max_size=2),
    failure=st.none() | st.text().map(lambda text: TextPart(kind="text", text=text)),
)
def test_the_built_task_is_byte_for_byte_the_models_json(
    raw: dict[str, Any], artifacts: list[Artifact], failure: TextPart | None
) -> None:
    methods = _methods()
    incoming = _incoming(raw)
    kept = [] if failure is not None else artifacts
    built = methods._task(cast(Any, _Skill()), _context(incoming), incoming, kept, failure)
    assert built.json == _expected(methods, built, incoming, kept, failure)
    assert built.state == ("failed" if failure is not None else "completed")
    assert (built.id, built.context_id) == (incoming.task_id, incoming.context_id)


def test_values_only_pydantic_writes_fall_back_to_the_models() -> None:
    methods = _methods()
    incoming = _incoming(
        {
            "kind": "message",
            "role": "user",
            "messageId": "m",
            "parts": [{"kind": "text", "text": "x"}],
        }
    )
    for value in (
        datetime.datetime(2026, 12, 1, tzinfo=datetime.UTC),
        decimal.Decimal("2.5"),
        2**70,
        {1: "a"},
    ):
        part = DataPart(kind="data", data={"value": value})
        assert taskjson.encode(taskjson.plain(part)) is None, value
        artifacts = [Artifact(artifact_id="a", parts=[part])]
        built = methods._task(cast(Any, _Skill()), _context(incoming), incoming, artifacts, None)
        assert built.json == _expected(methods, built, incoming, artifacts, None)
        assert orjson.loads(built.json)["artifacts"][0]["parts"][0]["data"]["value"] is not None


# --- the endpoint's direct way ----------------------------------------------------


@contextlib.asynccontextmanager
async def _clients(
    settings: Settings,
) -> AsyncIterator[tuple[httpx.AsyncClient, httpx.AsyncClient, Runtime]]:
    """Two clients of one app: the direct way, and the framework's (a root path)."""
    app = create_app(settings, plugin_settings=families(settings))
    async with LifespanManager(app) as manager:
        direct = httpx.ASGITransport(app=manager.app, raise_app_exceptions=False)
        framework = httpx.ASGITransport(app=manager.app, root_path="/x", raise_app_exceptions=False)
        async with (
            httpx.AsyncClient(transport=direct, base_url="http://t") as one,
            httpx.AsyncClient(transport=framework, base_url="http://t/x") as other,
        ):
            yield one, other, app.state.runtime


def _comparable(response: httpx.Response) -> tuple[int, list[tuple[str, str]], bytes]:
    return response.status_code, list(response.headers.multi_items()), response.content


async def test_the_framework_way_answers_exactly_as_the_direct_way(settings: Settings) -> None:
    settings = settings.model_copy(update={"cors_origins": ["https://app.example"]})
    async with _clients(settings) as (direct, framework, runtime):
        tokens: TokenStore = runtime.tokens
        good = await issue_token(tokens, "pro", "user-a")
        free = await issue_token(tokens, "free", "user-b")
        cases: list[tuple[bytes, dict[str, str]]] = [
            (b"{nope", {}),
            (b"[]", {}),
            (orjson.dumps(rpc_body("tasks/get", {"id": "missing"})), {}),
            (
                orjson.dumps(rpc_body("tasks/get", {"id": "missing"})),
                {"Authorization": "Bearer wrong"},
            ),
            (
                orjson.dumps(rpc_body("tasks/get", {"id": "missing"})),
                {"Authorization": f"Bearer {free}"},
            ),
            (
                orjson.dumps(rpc_body("tasks/get", {"id": "missing"})),
                {"Authorization": f"Bearer {good}"},
            ),
            (
                orjson.dumps(rpc_body("no/such", {})),
                {"Authorization": f"Bearer {good}", "Origin": "https://app.example"},
            ),
            (
                orjson.dumps(rpc_body("message/send", {"message": 1})),
                {"Authorization": f"Bearer {good}"},
            ),
            (
                orjson.dumps([rpc_body("tasks/get", {"id": "a"}), 7]),
                {"Authorization": f"Bearer {good}"},
            ),
            (b"x" * (settings.max_body_bytes + 1), {"Authorization": f"Bearer {good}"}),
        ]
        for body, headers in cases:
            headers = {"Content-Type": "application/json", "X-Request-ID": "r-1", **headers}
            one = await direct.post(ENDPOINT, content=body, headers=headers)
            other = await framework.post(ENDPOINT, content=body, headers=headers)
            assert _comparable(one) == _comparable(other), body[:60]
        sent = await direct.post(
            ENDPOINT,
            content=orjson.dumps(rpc_body("message/send", send_params("hi"))),
            headers={"Authorization": f"Bearer {good}", "X-Request-ID": "r-2"},
        )
        assert sent.status_code == 200
        # Starlette's order, kept: the endpoint's own headers, length, type, request id;
        # then what the guard adds to every response.
        assert [name for name, _ in sent.headers.multi_items()] == [
            "vary",
            "x-ratelimit-limit",
            "x-ratelimit-remaining",
            "x-ratelimit-reset",
            "content-length",
            "content-type",
            "x-request-id",
            "x-content-type-options",
        ]
        assert sent.headers["content-type"] == "application/json"
        assert sent.headers["x-request-id"] == "r-2"


async def test_an_unhandled_error_on_the_direct_way_is_still_a_plain_500(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with _clients(settings) as (direct, framework, runtime):

        async def broken(*args: Any) -> Any:
            raise RuntimeError("boom")

        monkeypatch.setattr(runtime.dispatcher, "handle", broken)
        for client in (direct, framework):
            response = await client.post(ENDPOINT, content=b"{}")
            assert response.status_code == 500
            assert response.text == "Internal Server Error"


async def test_every_request_is_counted_whichever_way_it_takes(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The hot path's connection polls for a due Redis reply only for a request alone;
    # the request guard counts, on the direct way and in front of every framework route.
    async with _clients(settings) as (direct, framework, runtime):
        original = runtime.dispatcher.handle
        seen: list[tuple[int, bool]] = []
        first_inside, let_first_go = asyncio.Event(), asyncio.Event()

        async def watched(body: bytes, *args: Any) -> Any:
            seen.append((runtime.in_flight.count, runtime.in_flight.alone()))
            if len(seen) == 1:
                first_inside.set()
                await let_first_go.wait()
            if body == b"boom":
                raise RuntimeError("boom")
            return await original(body, *args)

        monkeypatch.setattr(runtime.dispatcher, "handle", watched)
        first = asyncio.ensure_future(direct.post(ENDPOINT, content=b"{}"))
        await first_inside.wait()
        second = await framework.post(ENDPOINT, content=b"{}")
        let_first_go.set()
        assert (await first).status_code == second.status_code == 200
        assert seen == [(1, True), (2, False)]
        assert runtime.in_flight.count == 0
        assert (await direct.post(ENDPOINT, content=b"boom")).status_code == 500
        assert runtime.in_flight.count == 0  # an error lets go of its count too
