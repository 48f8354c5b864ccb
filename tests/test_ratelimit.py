"""CONTRACT section 7 on the embedded store: two buckets per user, what
counts and what does not, retryAfter, enterprise limits, the X-RateLimit
headers. Time is an injected clock, moved by the test, never waited for."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from magisterium_a2a.server.clock import ManualClock
from magisterium_a2a.server.config import Settings
from tests.support import Harness, harness, rpc_body, send_params

START = 1_800_000_000.0


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
async def h(settings: Settings, clock: ManualClock) -> AsyncIterator[Harness]:
    async with harness(settings, clock=clock) as running:
        yield running


@pytest.mark.parametrize("skill", ["echo", "earlier"], ids=["cheap", "checked-first"])
async def test_default_bucket_is_15_per_minute_with_retry_after(
    h: Harness, clock: ManualClock, skill: str
) -> None:
    token = await h.token()
    for i in range(15):
        admitted = await h.send(token, skill=skill)
        assert admitted.status_code == 200
        assert admitted.headers["x-ratelimit-limit"] == "15"
        assert admitted.headers["x-ratelimit-remaining"] == str(14 - i)
        assert admitted.headers["x-ratelimit-reset"] == "60"
    rejected = await h.send(token, skill=skill)
    assert rejected.status_code == 429
    assert rejected.json()["error"] == {
        "code": -32003,
        "message": "Rate limit exceeded",
        "data": {"retryAfter": 60},
    }
    assert rejected.headers["retry-after"] == "60"
    clock.advance(45.5)
    again = await h.send(token, skill=skill)
    assert again.json()["error"]["data"] == {"retryAfter": 15}
    assert again.headers["retry-after"] == "15"
    clock.advance(14.5)
    assert (await h.send(token, skill=skill)).status_code == 200


async def test_retry_after_is_at_least_one_second(h: Harness, clock: ManualClock) -> None:
    token = await h.token()
    for _ in range(15):
        await h.send(token)
    clock.advance(59.999)
    assert (await h.send(token)).json()["error"]["data"]["retryAfter"] == 1


async def test_window_moves_request_by_request(h: Harness, clock: ManualClock) -> None:
    token = await h.token()
    for _ in range(15):
        await h.send(token)
        clock.advance(2)
    rejected = await h.send(token)
    assert rejected.json()["error"]["data"]["retryAfter"] == 30
    clock.advance(30)
    assert (await h.send(token)).status_code == 200
    assert (await h.send(token)).status_code == 429


async def test_a_rejected_cheap_skill_stores_nothing(h: Harness) -> None:
    token = await h.token(user="zoe")
    for _ in range(15):
        await h.send(token, context_id="ctx")
    assert (await h.send(token, context_id="ctx")).status_code == 429
    assert len(await h.runtime.store.context_tasks("zoe", "ctx")) == 15


async def test_expensive_bucket_is_2_and_independent(h: Harness) -> None:
    token = await h.token()
    assert (await h.send(token, skill="echo_expensive")).status_code == 200
    assert (await h.send(token, skill="echo_expensive")).status_code == 200
    third = await h.send(token, skill="echo_expensive")
    assert third.status_code == 429
    assert third.json()["error"]["code"] == -32003
    assert (await h.send(token, skill="echo")).status_code == 200


async def test_limits_are_per_user_not_per_token(h: Harness) -> None:
    first, second = await h.token(user="dana"), await h.token(user="dana")
    other = await h.token(user="eve")
    for i in range(15):
        assert (await h.send(first if i % 2 else second)).status_code == 200
    assert (await h.send(first)).status_code == 429
    assert (await h.send(second)).status_code == 429
    assert (await h.send(other)).status_code == 200


async def test_what_never_counts(h: Harness) -> None:
    token = await h.token()
    for _ in range(15):
        await h.send(token)
    for _ in range(30):
        assert (await h.call("tasks/get", {"id": "x"}, token)).json()["error"]["code"] == -32001
        assert (await h.call("tasks/cancel", {"id": "x"}, token)).status_code == 200
        assert (await h.client.get("/.well-known/agent.json")).status_code == 200
        assert (await h.client.options("/api/v1/a2a")).status_code == 204
    assert (await h.send(token)).status_code == 429


async def test_rejected_sends_do_not_extend_the_window(h: Harness, clock: ManualClock) -> None:
    token = await h.token()
    for _ in range(15):
        await h.send(token)
    for _ in range(10):
        clock.advance(5)
        assert (await h.send(token)).status_code == 429
    clock.advance(10)
    assert (await h.send(token)).status_code == 200


async def test_enterprise_uses_the_tokens_own_limits(h: Harness) -> None:
    token = await h.token("enterprise", per_minute=3, qa_per_minute=1)
    plain = await h.token("enterprise")
    for _ in range(3):
        assert (await h.send(token)).status_code == 200
    assert (await h.send(token)).status_code == 429
    assert (await h.send(token, skill="echo_expensive")).status_code == 200
    assert (await h.send(token, skill="echo_expensive")).status_code == 429
    for _ in range(15):
        assert (await h.send(plain)).status_code == 200
    assert (await h.send(plain)).status_code == 429


async def test_limits_are_configurable(settings: Settings, clock: ManualClock) -> None:
    custom = settings.model_copy(
        update={"limit_default_per_minute": 4, "limit_expensive_per_minute": 1}
    )
    async with harness(custom, clock=clock) as h:
        token = await h.token("organization")
        assert [(await h.send(token)).status_code for _ in range(5)] == [200] * 4 + [429]
        codes = [(await h.send(token, skill="echo_expensive")).status_code for _ in range(2)]
        assert codes == [200, 429]


async def test_a_rate_limited_batch_element_is_answered_in_place(h: Harness) -> None:
    token = await h.token()
    batch = [rpc_body("message/send", send_params(skill="echo_expensive"), i) for i in range(3)]
    response = await h.post(batch, token)
    assert response.status_code == 200
    answers = response.json()
    assert ["result" in a for a in answers] == [True, True, False]
    assert answers[2]["error"]["data"]["retryAfter"] == 60
