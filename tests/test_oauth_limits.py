"""The authorization server's bounds (review round 2): registration nobody can
shut off (N2), codes and login forms that cost little and work once (N4), and
a throttled, logged login form (N6)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from magisterium_a2a.server.clock import ManualClock
from magisterium_a2a.server.config import Settings
from magisterium_a2a.server.oauth.store import digest
from magisterium_a2a.server.storage.keys import OAuthKeys
from tests.support import Harness, harness, server_process
from tests.test_oauth import (
    NOW,
    REDIRECT,
    _hidden_fields,
    discover,
    new_flow,
    oauth_settings,
    redirect_params,
    register,
)


def from_address(h: Harness, host: str) -> httpx.AsyncClient:
    """Another client of the same app, seen from ``host``."""
    app = h.client._transport.app  # type: ignore[attr-defined]
    transport = httpx.ASGITransport(app=app, client=(host, 40000))
    return httpx.AsyncClient(transport=transport, base_url="http://testserver")


def redis_of(h: Harness) -> Any:
    assert h.runtime.oauth is not None and h.runtime.oauth.server is not None
    return h.runtime.oauth.server.store._redis


DOCUMENT = {"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none"}


# --- N2: registration -----------------------------------------------------------------


async def test_refused_registrations_do_not_shut_registration_off(settings: Settings) -> None:
    limited = oauth_settings(
        settings,
        oauth_registrations_per_hour_per_address=3,
        oauth_registrations_per_hour=5,
    )
    async with harness(limited, clock=ManualClock(NOW)) as h:
        flood = [await h.client.post("/oauth/register", json=DOCUMENT) for _ in range(50)]
        assert [r.status_code for r in flood].count(201) == 3
        assert all(r.status_code == 429 for r in flood[3:])
        # Another address is not refused for the first one's attempts ...
        async with from_address(h, "198.51.100.7") as other:
            assert (await other.post("/oauth/register", json=DOCUMENT)).status_code == 201
        # ... and only accepted registrations count towards the overall cap (5).
        async with from_address(h, "198.51.100.8") as third:
            assert (await third.post("/oauth/register", json=DOCUMENT)).status_code == 201
            refused = await third.post("/oauth/register", json=DOCUMENT)
        assert refused.status_code == 429
        assert int(refused.headers["retry-after"]) >= 1


async def test_ipv6_addresses_count_per_64(settings: Settings) -> None:
    limited = oauth_settings(settings, oauth_registrations_per_hour_per_address=2)
    async with harness(limited, clock=ManualClock(NOW)) as h:
        statuses = []
        for host in ("2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:2:ffff::9"):
            async with from_address(h, host) as client:
                statuses.append((await client.post("/oauth/register", json=DOCUMENT)).status_code)
        assert statuses == [201, 201, 429]


async def test_a_client_never_used_is_kept_an_hour(settings: Settings) -> None:
    async with harness(oauth_settings(settings), clock=ManualClock(NOW)) as h:
        flow = await new_flow(h)
        redis = redis_of(h)
        key = OAuthKeys(h.settings.key_prefix).client(flow.client_id)
        assert 0 < await redis.ttl(key) <= 3600
        await flow.login(await h.token("pro"))
        assert await redis.ttl(key) > 29 * 86_400  # in use: kept as long as its sessions


@pytest.mark.subprocess
def test_forwarded_for_is_believed_from_no_one_by_default(tmp_path: Path) -> None:
    """uvicorn alone trusts X-Forwarded-For from 127.0.0.1, so a client beside the
    proxy could pick any address; here nobody is trusted unless named."""
    env = {
        "A2A_DEV_MODE": "1",
        "A2A_DATA_DIR": str(tmp_path / "data"),
        "A2A_OAUTH_REGISTRATIONS_PER_HOUR_PER_ADDRESS": "2",
    }
    with server_process(env, tmp_path) as server:
        statuses = [
            httpx.post(
                f"{server.base_url}/oauth/register",
                json=DOCUMENT,
                headers={"X-Forwarded-For": f"203.0.113.{i}"},
                timeout=10,
            ).status_code
            for i in range(4)
        ]
    assert statuses == [201, 201, 429, 429]


# --- N4: codes and forms -----------------------------------------------------------


async def test_a_code_record_lives_as_long_as_the_code(settings: Settings) -> None:
    async with harness(oauth_settings(settings), clock=ManualClock(NOW)) as h:
        flow = await new_flow(h)
        answer = await flow.authorize(await h.token("pro"))
        code = redirect_params(answer)["code"]
        keys = OAuthKeys(h.settings.key_prefix)
        redis = redis_of(h)
        assert 0 < await redis.ttl(keys.code(digest(code))) <= 60 + 30
        await flow.tokens(answer.headers["location"])
        # Spent: the record is gone; a small marker of its grant remains for a day.
        assert not await redis.exists(keys.code(digest(code)))
        marker = await redis.get(keys.code_used(digest(code)))
        assert marker is not None and len(marker) < 64
        assert await redis.ttl(keys.code_used(digest(code))) > 86_000


async def test_a_spent_code_whose_record_is_gone_still_ends_its_grant(
    settings: Settings,
) -> None:
    async with harness(oauth_settings(settings), clock=ManualClock(NOW)) as h:
        flow = await new_flow(h)
        answer = await flow.authorize(await h.token("pro"))
        form = {
            "grant_type": "authorization_code",
            "code": redirect_params(answer)["code"],
            "client_id": flow.client_id,
            "redirect_uri": REDIRECT,
            "code_verifier": flow.verifier,
        }
        first = (await h.client.post("/oauth/token", data=form)).json()
        assert (await h.send(first["access_token"])).status_code == 200
        again = await h.client.post("/oauth/token", data=form)
        assert again.json()["error"] == "invalid_grant"
        assert (await h.send(first["access_token"])).status_code == 401


async def _page(h: Harness, flow: Any) -> dict[str, str]:
    url, _ = flow.authorization_url()
    page = await h.client.get(url)
    assert page.status_code == 200
    fields = dict(_hidden_fields(page.text))
    h.client.cookies.set("a2a_oauth_csrf", fields["csrf"])
    return fields


async def test_a_login_form_is_good_for_one_code(settings: Settings) -> None:
    async with harness(oauth_settings(settings), clock=ManualClock(NOW)) as h:
        api_token = await h.token("pro")
        flow = await new_flow(h)
        fields = {**await _page(h, flow), "api_token": api_token, "decision": "approve"}
        assert (await h.client.post("/oauth/authorize", data=fields)).status_code == 302
        replay = await h.client.post("/oauth/authorize", data=fields)
        assert replay.status_code == 400 and "location" not in replay.headers
        # A pair made up by the caller (cookie and field alike) is no form of ours.
        h.client.cookies.set("a2a_oauth_csrf", "made-up-by-the-client")
        forged = await h.client.post(
            "/oauth/authorize", data={**fields, "csrf": "made-up-by-the-client"}
        )
        assert forged.status_code == 400 and "location" not in forged.headers


async def test_approvals_are_throttled_per_account_in_development_mode(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    dev = settings.model_copy(update={"public_url": "https://a2a.example.org", "dev_mode": True})
    async with harness(dev, clock=ManualClock(NOW)) as h:
        flow = await new_flow(h)
        statuses = []
        with caplog.at_level(logging.WARNING):
            for _ in range(15):
                fields = {**await _page(h, flow), "demo_plan": "free", "decision": "approve"}
                answer = await h.client.post("/oauth/authorize", data=fields)
                statuses.append(answer.status_code)
        assert statuses == [302] * 10 + [429] * 5
        # One line for the flood, not one per refusal.
        throttled = [r for r in caplog.records if "approvals throttled" in r.getMessage()]
        assert len(throttled) == 1
        assert "location" not in answer.headers
        assert int(answer.headers["retry-after"]) >= 1
        assert "default-src 'none'" in answer.headers["content-security-policy"]


async def test_approvals_are_throttled_per_address(settings: Settings) -> None:
    limited = oauth_settings(
        settings, oauth_approvals_per_minute=100, oauth_approvals_per_minute_per_address=3
    )
    async with harness(limited, clock=ManualClock(NOW)) as h:
        flow = await new_flow(h)
        statuses = [(await flow.authorize(await h.token("pro"))).status_code for _ in range(4)]
        assert statuses == [302, 302, 302, 429]


# --- N6: the login form ------------------------------------------------------------


@pytest.fixture
async def page_h(settings: Settings) -> AsyncIterator[tuple[Harness, ManualClock]]:
    clock = ManualClock(NOW)
    async with harness(oauth_settings(settings), clock=clock) as h:
        yield h, clock


async def test_failed_sign_ins_are_throttled_and_logged_without_the_token(
    page_h: tuple[Harness, ManualClock], caplog: pytest.LogCaptureFixture
) -> None:
    h, clock = page_h
    api_token = await h.token("pro")
    flow = await new_flow(h)
    wrong = [f"mag_wrong-token-{i}-secret" for i in range(11)]
    statuses = []
    with caplog.at_level(logging.INFO):
        for attempt in wrong:
            fields = {**await _page(h, flow), "api_token": attempt, "decision": "approve"}
            statuses.append((await h.client.post("/oauth/authorize", data=fields)).status_code)
        # The address is blocked now, even with the right token.
        fields = {**await _page(h, flow), "api_token": api_token, "decision": "approve"}
        blocked = await h.client.post("/oauth/authorize", data=fields)
    assert statuses == [400] * 10 + [429]
    assert blocked.status_code == 429 and int(blocked.headers["retry-after"]) >= 1
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert logged.count("OAuth sign-in refused") == 10
    assert "secret" not in logged and api_token not in logged
    clock.advance(601)
    fields = {**await _page(h, flow), "api_token": api_token, "decision": "approve"}
    assert (await h.client.post("/oauth/authorize", data=fields)).status_code == 302


async def test_registration_refusals_from_one_address_leave_others_alone_on_redis(
    redis_settings: Settings,
) -> None:
    limited = oauth_settings(
        redis_settings, oauth_registrations_per_hour_per_address=1, oauth_registrations_per_hour=2
    )
    async with harness(limited, clock=ManualClock(NOW)) as h:
        metadata = await discover(h)
        assert (await register(h, metadata)).status_code == 201
        refused = [(await register(h, metadata)).status_code for _ in range(5)]
        assert refused == [429] * 5
        async with from_address(h, "198.51.100.20") as other:
            assert (await other.post("/oauth/register", json=DOCUMENT)).status_code == 201


@pytest.mark.subprocess
def test_forwarded_for_is_believed_from_a_named_proxy(tmp_path: Path) -> None:
    env = {
        "A2A_DEV_MODE": "1",
        "A2A_DATA_DIR": str(tmp_path / "data"),
        "A2A_OAUTH_REGISTRATIONS_PER_HOUR_PER_ADDRESS": "2",
        "A2A_FORWARDED_ALLOW_IPS": "127.0.0.1",
    }
    with server_process(env, tmp_path) as server:

        def register_as(client: str) -> int:
            return httpx.post(
                f"{server.base_url}/oauth/register",
                json=DOCUMENT,
                # A client's own header first, then the address the proxy saw (appended).
                headers={"X-Forwarded-For": f"198.51.100.99, {client}"},
                timeout=10,
            ).status_code

        statuses = [register_as(c) for c in ("203.0.113.1",) * 3 + ("203.0.113.2",)]
    assert statuses == [201, 201, 429, 201]
