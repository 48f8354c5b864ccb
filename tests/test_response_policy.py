"""Review round 2's smaller findings: nosniff on every response, page headers on
every HTML page, CORS of the OAuth routes, /metrics without a token, and a
clipped ``-32601`` echo."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import orjson

from magisterium_a2a.server.clock import ManualClock
from magisterium_a2a.server.config import Settings
from tests.support import Harness, harness, rpc_body
from tests.test_oauth import NOW, REDIRECT, oauth_settings
from tests.test_oauth_limits import from_address


async def test_every_response_says_nosniff(settings: Settings) -> None:
    async with harness(oauth_settings(settings), clock=ManualClock(NOW)) as h:
        token = await h.token()
        answers = [
            await h.client.get("/healthz"),
            await h.client.get("/.well-known/agent.json"),
            await h.client.get("/.well-known/oauth-authorization-server"),
            await h.client.get("/no-such-page"),
            await h.send(token, "hi"),
            await h.post(b"{not json"),
            await h.client.post("/oauth/token", data={"grant_type": "password"}),
            await h.client.get("/oauth/authorize"),
            await h.client.options("/api/v1/a2a", headers={"Origin": "https://x.example"}),
        ]
    for answer in answers:
        assert answer.headers.get("x-content-type-options") == "nosniff", answer.request.url


async def test_every_html_page_carries_the_page_headers(settings: Settings) -> None:
    async with harness(oauth_settings(settings), clock=ManualClock(NOW)) as h:
        pages = [
            # The POST error pages lacked them: a body of the wrong kind, a stale form.
            await h.client.post(
                "/oauth/authorize", content=b"x", headers={"content-type": "text/plain"}
            ),
            await h.client.post("/oauth/authorize", data={"csrf": "x", "decision": "approve"}),
            await h.client.get("/oauth/authorize", params={"client_id": "mcl_nobody"}),
        ]
    for page in pages:
        assert page.headers["content-type"].startswith("text/html")
        assert "default-src 'none'" in page.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
        assert page.headers["x-frame-options"] == "DENY"
        assert page.headers["referrer-policy"] == "no-referrer"
        assert page.headers["cache-control"] == "no-store"


async def test_the_oauth_endpoints_follow_the_cors_setting(settings: Settings) -> None:
    narrow = oauth_settings(settings, cors_origins=["https://app.example"])
    async with harness(narrow, clock=ManualClock(NOW)) as h:
        document = {"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none"}
        for origin, allowed in (("https://evil.example", None), ("https://app.example", True)):
            headers = {"Origin": origin}
            answers = [
                await h.client.post("/oauth/token", data={"grant_type": "x"}, headers=headers),
                await h.client.post("/oauth/revoke", data={}, headers=headers),
                await h.client.post("/oauth/register", json=document, headers=headers),
                await h.client.options(
                    "/oauth/token",
                    headers={**headers, "Access-Control-Request-Method": "POST"},
                ),
            ]
            for answer in answers:
                got = answer.headers.get("access-control-allow-origin")
                assert got == (origin if allowed else None), (answer.request.url, origin, got)
        # The discovery documents are public, as the agent card is.
        meta = await h.client.get(
            "/.well-known/oauth-authorization-server", headers={"Origin": "https://evil.example"}
        )
        assert meta.headers["access-control-allow-origin"] == "*"


async def test_metrics_without_a_token_answer_loopback_only(h: Harness) -> None:
    assert (await h.client.get("/metrics")).status_code == 200  # the harness is 127.0.0.1
    async with from_address(h, "203.0.113.9") as outside:
        refused = await outside.get("/metrics")
    assert refused.status_code == 403
    assert b"a2a_requests_total" not in refused.content
    async with from_address(h, "::1") as local6:
        assert (await local6.get("/metrics")).status_code == 200


async def test_method_not_found_echoes_a_clipped_method(h: Harness) -> None:
    token = await h.token()
    method = "m" * 500_000
    answer = await h.post(rpc_body(method, {}), token)
    error = answer.json()["error"]
    assert error["code"] == -32601
    assert error["data"]["method"].startswith("m" * 200)
    assert "+499800 chars" in error["data"]["method"]
    assert len(answer.content) < 1000
    short = (await h.post(rpc_body("tasks/nothing", {}), token)).json()["error"]
    assert short["data"] == {"method": "tasks/nothing"}


async def test_a_slow_body_on_an_oauth_route_in_process(settings: Settings) -> None:
    """The guard's deadline without a real socket: a body that never ends."""
    quick = oauth_settings(settings, read_timeout_seconds=0.2)
    async with harness(quick, clock=ManualClock(NOW)) as h:

        async def never_ending() -> AsyncIterator[bytes]:
            yield b"grant_type="
            await asyncio.Event().wait()  # the rest never comes

        async with asyncio.timeout(30):  # without a deadline the server would wait for ever
            answer = await h.client.post(
                "/oauth/token",
                content=never_ending(),
                headers={"content-type": "application/x-www-form-urlencoded"},
            )
    assert answer.status_code == 408
    assert answer.headers["connection"] == "close"
    assert orjson.loads(answer.content)["error"] == "invalid_request"
