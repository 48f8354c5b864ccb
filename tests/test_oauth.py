"""The built-in authorization server, driven by a real OAuth client library
(authlib's httpx client) through the app over HTTP: discovery, registration,
authorization code with PKCE, tokens at the endpoint, refresh rotation,
revocation, and every way a request can be refused."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from authlib.common.security import generate_token
from authlib.integrations.httpx_client import AsyncOAuth2Client
from authlib.oauth2.rfc8414 import AuthorizationServerMetadata

from magisterium_a2a.server.clock import ManualClock
from magisterium_a2a.server.config import Settings
from tests.support import Harness, harness

PUBLIC = "https://a2a.example.org"
ENDPOINT_URL = PUBLIC + "/api/v1/a2a"
REDIRECT = "http://127.0.0.1:8765/callback"
NOW = 1_800_000_000.0


def oauth_settings(settings: Settings, **extra: Any) -> Settings:
    return settings.model_copy(
        update={
            "public_url": PUBLIC,
            "test_mode": True,
            "admin_token": "admin-token-for-tests",
            **extra,
        }
    )


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(NOW)


@pytest.fixture
async def h(settings: Settings, clock: ManualClock) -> AsyncIterator[Harness]:
    async with harness(oauth_settings(settings), clock=clock) as running:
        yield running


@dataclass
class Flow:
    """A registered client and its authlib session, over the app's transport."""

    h: Harness
    metadata: dict[str, Any]
    client_id: str
    session: AsyncOAuth2Client
    verifier: str = ""

    def authorization_url(self, **params: Any) -> tuple[str, str]:
        self.verifier = generate_token(48)
        url, state = self.session.create_authorization_url(
            self.metadata["authorization_endpoint"], code_verifier=self.verifier, **params
        )
        return str(url), str(state)

    async def authorize(self, api_token: str, **params: Any) -> httpx.Response:
        url, _ = self.authorization_url(login_hint=api_token, **params)
        return await self.h.client.get(url)

    async def tokens(self, location: str, **params: Any) -> dict[str, Any]:
        token: dict[str, Any] = await self.session.fetch_token(
            self.metadata["token_endpoint"],
            authorization_response=location,
            code_verifier=self.verifier,
            **params,
        )
        return token

    async def login(self, api_token: str) -> dict[str, Any]:
        answer = await self.authorize(api_token)
        assert answer.status_code == 302, answer.text
        return await self.tokens(answer.headers["location"])


async def discover(h: Harness) -> dict[str, Any]:
    """RFC 9728 then RFC 8414, as a client finds its way from a 401."""
    refused = await h.send("no-such-token")
    challenge = refused.headers["www-authenticate"]
    url = challenge.split('resource_metadata="', 1)[1].rstrip('"')
    resource = (await h.client.get(url)).json()
    issuer = resource["authorization_servers"][0]
    split = urlsplit(issuer)
    metadata: dict[str, Any] = (
        await h.client.get(f"{split.path.rstrip('/')}/.well-known/oauth-authorization-server")
    ).json()
    assert metadata["issuer"] == issuer
    return metadata


async def register(h: Harness, metadata: dict[str, Any], **fields: Any) -> httpx.Response:
    document = {
        "client_name": "Test client",
        "redirect_uris": [REDIRECT],
        "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        **fields,
    }
    return await h.client.post(metadata["registration_endpoint"], json=document)


def authlib_transport(h: Harness) -> Any:
    """An in-process transport for authlib's client, which runs on httpx2 when that is
    installed (the semantic extra brings it) and on httpx otherwise."""
    app = h.client._transport.app  # type: ignore[attr-defined]
    try:
        import httpx2
    except ImportError:
        return httpx.ASGITransport(app=app)
    return httpx2.ASGITransport(app=app)


async def new_flow(h: Harness, **fields: Any) -> Flow:
    metadata = await discover(h)
    registered = await register(h, metadata, **fields)
    assert registered.status_code == 201, registered.text
    info = registered.json()
    session = AsyncOAuth2Client(
        client_id=info["client_id"],
        client_secret=info.get("client_secret"),
        token_endpoint_auth_method=info["token_endpoint_auth_method"],
        redirect_uri=REDIRECT,
        scope="a2a",
        code_challenge_method="S256",
        transport=authlib_transport(h),
    )
    return Flow(h, metadata, info["client_id"], session)


def redirect_params(response: httpx.Response) -> dict[str, str]:
    assert response.status_code == 302, response.text
    location = response.headers["location"]
    assert location.startswith(REDIRECT)
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


def challenge(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


# --- discovery --------------------------------------------------------------


async def test_authorization_server_metadata_follows_rfc8414(h: Harness) -> None:
    response = await h.client.get("/.well-known/oauth-authorization-server")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    document = response.json()
    # Section 2, field by field.
    assert document["issuer"] == PUBLIC
    assert urlsplit(document["issuer"]).scheme == "https"
    assert not urlsplit(document["issuer"]).query and "#" not in document["issuer"]
    assert document["authorization_endpoint"] == PUBLIC + "/oauth/authorize"
    assert document["token_endpoint"] == PUBLIC + "/oauth/token"
    assert document["registration_endpoint"] == PUBLIC + "/oauth/register"
    assert document["revocation_endpoint"] == PUBLIC + "/oauth/revoke"
    assert document["scopes_supported"] == ["a2a"]
    assert document["response_types_supported"] == ["code"]
    assert document["response_modes_supported"] == ["query"]
    assert document["grant_types_supported"] == ["authorization_code", "refresh_token"]
    methods = ["none", "client_secret_basic", "client_secret_post"]
    assert document["token_endpoint_auth_methods_supported"] == methods
    assert document["revocation_endpoint_auth_methods_supported"] == methods
    assert document["code_challenge_methods_supported"] == ["S256"]
    assert set(document) == {
        "issuer",
        "authorization_endpoint",
        "token_endpoint",
        "registration_endpoint",
        "revocation_endpoint",
        "scopes_supported",
        "response_types_supported",
        "response_modes_supported",
        "grant_types_supported",
        "token_endpoint_auth_methods_supported",
        "revocation_endpoint_auth_methods_supported",
        "code_challenge_methods_supported",
    }
    # And by a library's own RFC 8414 validator.
    AuthorizationServerMetadata(document).validate()


async def test_protected_resource_metadata_follows_rfc9728(h: Harness) -> None:
    refused = await h.send("no-such-token")
    assert refused.status_code == 401
    url = PUBLIC + "/.well-known/oauth-protected-resource/api/v1/a2a"
    assert refused.headers["www-authenticate"] == f'Bearer resource_metadata="{url}"'
    assert "WWW-Authenticate" in refused.headers["access-control-expose-headers"]
    for path in (
        "/.well-known/oauth-protected-resource/api/v1/a2a",
        "/.well-known/oauth-protected-resource",
    ):
        response = await h.client.get(path)
        assert response.status_code == 200
        assert response.headers["content-type"] == "application/json"
        document = response.json()
        # Section 2: resource is the URL the client called (section 3.3).
        assert document["resource"] == ENDPOINT_URL
        assert document["authorization_servers"] == [PUBLIC]
        assert document["bearer_methods_supported"] == ["header"]
        assert document["scopes_supported"] == ["a2a"]
        assert document["resource_name"] == "Magisterium AI"
        assert set(document) == {
            "resource",
            "authorization_servers",
            "bearer_methods_supported",
            "scopes_supported",
            "resource_name",
        }
    assert (
        await h.client.get("/.well-known/oauth-protected-resource/elsewhere")
    ).status_code == 404


async def test_the_card_advertises_oauth2_and_keeps_bearer(h: Harness) -> None:
    card = (await h.client.get("/.well-known/agent-card.json")).json()
    assert card["securitySchemes"]["bearer"] == {
        "type": "http",
        "scheme": "bearer",
        "description": "An API token issued by the operator: 'Authorization: Bearer <token>'.",
    }
    oauth = card["securitySchemes"]["oauth2"]
    assert oauth["type"] == "oauth2"
    assert oauth["oauth2MetadataUrl"] == PUBLIC + "/.well-known/oauth-authorization-server"
    flow = oauth["flows"]["authorizationCode"]
    assert flow["authorizationUrl"] == PUBLIC + "/oauth/authorize"
    assert flow["tokenUrl"] == PUBLIC + "/oauth/token"
    assert flow["refreshUrl"] == PUBLIC + "/oauth/token"
    assert set(flow["scopes"]) == {"a2a"}
    assert card["security"] == [{"bearer": []}, {"oauth2": ["a2a"]}]


async def test_off_outside_development_and_test_mode(settings: Settings) -> None:
    async with harness(settings.model_copy(update={"public_url": PUBLIC})) as plain:
        assert (
            await plain.client.get("/.well-known/oauth-authorization-server")
        ).status_code == 404
        assert (await plain.client.get("/oauth/authorize")).status_code == 404
        card = (await plain.client.get("/.well-known/agent-card.json")).json()
        assert set(card["securitySchemes"]) == {"bearer"}
        document = (await plain.client.get("/.well-known/oauth-protected-resource")).json()
        assert document["resource"] == ENDPOINT_URL
        assert "authorization_servers" not in document
    async with harness(
        settings.model_copy(update={"public_url": PUBLIC, "oauth_server": True})
    ) as on:
        assert (await on.client.get("/.well-known/oauth-authorization-server")).status_code == 200


# --- the whole flow ---------------------------------------------------------


async def test_login_hint_flow_send_refresh_revoke(h: Harness) -> None:
    api_token = await h.token("enterprise", "carol", per_minute=7)
    flow = await new_flow(h)
    url, state = flow.authorization_url(login_hint=api_token)
    answer = await h.client.get(url)
    params = redirect_params(answer)
    assert params["state"] == state
    assert params["code"].startswith("mac_")
    token = await flow.tokens(answer.headers["location"])
    assert token["token_type"] == "Bearer"
    assert token["expires_in"] == 900
    assert token["scope"] == "a2a"
    access, refresh = token["access_token"], token["refresh_token"]

    # The endpoint answers as carol, on her plan and limits.
    sent = await h.send(access, "through oauth")
    assert sent.status_code == 200
    assert sent.json()["result"]["status"]["state"] == "completed"
    assert sent.headers["x-ratelimit-limit"] == "7"
    task_id = sent.json()["result"]["id"]
    # The same user as her API token: same tasks, same buckets.
    assert (await h.call("tasks/get", {"id": task_id}, api_token)).json()["result"]["id"] == task_id
    assert (await h.send(api_token)).headers["x-ratelimit-remaining"] == "5"

    # Refresh rotates: a new pair; the old refresh token is refused from then on.
    renewed = await flow.session.refresh_token(
        flow.metadata["token_endpoint"], refresh_token=refresh
    )
    assert renewed["refresh_token"] != refresh
    assert renewed["access_token"] != access
    assert (await h.send(renewed["access_token"])).status_code == 200

    # Revocation (RFC 7009) of the access token: refused at the endpoint.
    revoked = await flow.session.revoke_token(
        flow.metadata["revocation_endpoint"],
        renewed["access_token"],
        token_type_hint="access_token",
    )
    assert revoked.status_code == 200
    refused = await h.send(renewed["access_token"])
    assert refused.status_code == 401
    assert refused.json()["error"]["code"] == -32004
    # The refresh token of the session still works until it is revoked itself.
    again = await flow.session.refresh_token(
        flow.metadata["token_endpoint"], refresh_token=renewed["refresh_token"]
    )
    assert (await h.send(again["access_token"])).status_code == 200
    await flow.session.revoke_token(
        flow.metadata["revocation_endpoint"],
        again["refresh_token"],
        token_type_hint="refresh_token",
    )
    # Revoking a refresh token ends its grant: its access tokens too.
    assert (await h.send(again["access_token"])).status_code == 401


async def v1_call(h: Harness, method: str, params: Any, token: str) -> httpx.Response:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    return await h.post(body, token, {"A2A-Version": "1.0"})


async def test_an_oauth_access_token_on_the_1_0_dialect(h: Harness, clock: ManualClock) -> None:
    api_token = await h.token("enterprise", "dora", per_minute=9)
    flow = await new_flow(h)
    access = (await flow.login(api_token))["access_token"]
    assert access.startswith("mat_")
    message = {
        "messageId": "m-oauth-1",
        "role": "ROLE_USER",
        "parts": [{"text": "through oauth, in 1.0"}],
        "metadata": {"skillId": "echo"},
    }
    sent = await v1_call(h, "SendMessage", {"message": message}, access)
    assert sent.status_code == 200, sent.text
    assert sent.headers["x-ratelimit-limit"] == "9"  # dora's own limits
    task = sent.json()["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    assert task["artifacts"][0]["parts"] == [{"text": "through oauth, in 1.0"}]
    got = await v1_call(h, "GetTask", {"id": task["id"], "historyLength": 1}, access)
    assert got.json()["result"]["id"] == task["id"]
    assert [m["role"] for m in got.json()["result"]["history"]] == ["ROLE_AGENT"]
    # Dora's tasks, whichever credential and dialect: her API token lists the same one.
    for token in (access, api_token):
        listed = (await v1_call(h, "ListTasks", {}, token)).json()["result"]
        assert [t["id"] for t in listed["tasks"]] == [task["id"]], token[:4]
        assert listed["totalSize"] == 1
    hosted = await h.call("tasks/get", {"id": task["id"]}, access)
    assert hosted.json()["result"]["status"]["state"] == "completed"
    # Another user's OAuth token sees none of it.
    stranger = (await flow.login(await h.token("pro", "eve")))["access_token"]
    assert (await v1_call(h, "ListTasks", {}, stranger)).json()["result"]["tasks"] == []
    unknown = await v1_call(h, "GetTask", {"id": task["id"]}, stranger)
    assert unknown.json()["error"]["code"] == -32001

    # Expired: refused as 1.0 names it, with the challenge that leads to a new token.
    clock.advance(901)
    expired = await v1_call(h, "GetTask", {"id": task["id"]}, access)
    assert expired.status_code == 401
    assert expired.json()["error"]["code"] == -31401
    assert expired.json()["error"]["data"][0]["reason"] == "UNAUTHENTICATED"
    assert "resource_metadata=" in expired.headers["www-authenticate"]


async def test_a_free_plan_oauth_token_on_the_1_0_dialect(h: Harness) -> None:
    flow = await new_flow(h)
    access = (await flow.login(await h.token("free")))["access_token"]
    message = {"messageId": "m-free", "role": "ROLE_USER", "parts": [{"text": "hi"}]}
    refused = await v1_call(h, "SendMessage", {"message": message}, access)
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == -31403
    assert refused.json()["error"]["data"][0]["reason"] == "PLAN_REQUIRED"


async def test_confidential_client_with_secret(h: Harness) -> None:
    flow = await new_flow(h, token_endpoint_auth_method="client_secret_basic")
    assert flow.session.client_secret
    token = await flow.login(await h.token("pro"))
    assert (await h.send(token["access_token"])).status_code == 200
    wrong = await h.client.post(
        "/oauth/token",
        data={"grant_type": "refresh_token", "refresh_token": token["refresh_token"]},
        auth=(flow.client_id, "not-the-secret"),
    )
    assert wrong.status_code == 401
    assert wrong.json()["error"] == "invalid_client"


async def test_login_page_without_javascript(h: Harness) -> None:
    api_token = await h.token("pro", "dora")
    flow = await new_flow(h, client_name="Dora's <agent>")
    url, state = flow.authorization_url()
    page = await h.client.get(url)
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    html = page.text
    assert "<script" not in html and "http://" not in html.replace(REDIRECT, "")
    assert "Dora&#x27;s &lt;agent&gt;" in html
    assert '<label for="api_token">' in html and 'id="api_token"' in html
    assert "default-src 'none'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"
    cookie = page.headers["set-cookie"]
    for attribute in ("HttpOnly", "Secure", "SameSite=strict", "Path=/oauth/authorize"):
        assert attribute in cookie
    csrf = page.cookies["a2a_oauth_csrf"]
    # The test client speaks plain http to the app: hand it the https-only cookie.
    h.client.cookies.set("a2a_oauth_csrf", csrf)
    fields = dict(_hidden_fields(html))
    assert fields["csrf"] == csrf
    assert "demo_plan" not in html  # not in development mode

    wrong = await h.client.post(
        "/oauth/authorize", data={**fields, "api_token": "nope", "decision": "approve"}
    )
    assert wrong.status_code == 400
    assert 'role="alert"' in wrong.text and 'aria-invalid="true"' in wrong.text
    # The page shown again carries a new pair (each form gives one code at most).
    again = dict(_hidden_fields(wrong.text))
    assert again["csrf"] != csrf

    h.client.cookies.clear()
    forged = await h.client.post(
        "/oauth/authorize", data={**again, "api_token": api_token, "decision": "approve"}
    )
    assert forged.status_code == 400 and "location" not in forged.headers

    h.client.cookies.set("a2a_oauth_csrf", again["csrf"])
    denied = await h.client.post(
        "/oauth/authorize", data={**again, "api_token": api_token, "decision": "deny"}
    )
    denial = redirect_params(denied)
    assert (denial["error"], denial["state"]) == ("access_denied", state)
    assert "code" not in denial

    page = await h.client.get(url)
    fields = dict(_hidden_fields(page.text))
    h.client.cookies.set("a2a_oauth_csrf", fields["csrf"])
    approved = await h.client.post(
        "/oauth/authorize", data={**fields, "api_token": api_token, "decision": "approve"}
    )
    params = redirect_params(approved)
    assert params["state"] == state
    replay = await h.client.post(
        "/oauth/authorize", data={**fields, "api_token": api_token, "decision": "approve"}
    )
    assert replay.status_code == 400 and "location" not in replay.headers
    token = await flow.tokens(approved.headers["location"])
    assert (await h.send(token["access_token"])).status_code == 200


def _hidden_fields(html: str) -> list[tuple[str, str]]:
    import re
    from html import unescape

    return [
        (unescape(name), unescape(value))
        for name, value in re.findall(r'<input type="hidden" name="([^"]*)" value="([^"]*)">', html)
    ]


async def test_development_mode_offers_demo_plans(settings: Settings) -> None:
    dev = settings.model_copy(update={"public_url": PUBLIC, "dev_mode": True})
    async with harness(dev) as h:
        flow = await new_flow(h)
        url, _ = flow.authorization_url()
        page = await h.client.get(url)
        h.client.cookies.set("a2a_oauth_csrf", page.cookies["a2a_oauth_csrf"])
        for plan in ("free", "pro", "organization", "enterprise"):
            assert f'value="{plan}"' in page.text
        fields = dict(_hidden_fields(page.text))
        approved = await h.client.post(
            "/oauth/authorize", data={**fields, "demo_plan": "organization", "decision": "approve"}
        )
        token = await flow.tokens(approved.headers["location"])
        assert (await h.send(token["access_token"])).status_code == 200
        # The demo user is demo-organization: the same as its demo token.
        sent = await h.send(token["access_token"])
        task = sent.json()["result"]["id"]
        got = await h.call("tasks/get", {"id": task}, "demo-organization")
        assert got.json()["result"]["id"] == task


# --- refusals: the RFC's error, and no token ------------------------------------


async def _token_request(h: Harness, **form: str) -> httpx.Response:
    return await h.client.post("/oauth/token", data=form)


async def test_wrong_code_verifier(h: Harness) -> None:
    flow = await new_flow(h)
    params = redirect_params(await flow.authorize(await h.token("pro")))
    answer = await _token_request(
        h,
        grant_type="authorization_code",
        code=params["code"],
        client_id=flow.client_id,
        redirect_uri=REDIRECT,
        code_verifier=generate_token(48),
    )
    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid_grant"
    assert "access_token" not in answer.json()


async def test_missing_code_verifier(h: Harness) -> None:
    flow = await new_flow(h)
    params = redirect_params(await flow.authorize(await h.token("pro")))
    answer = await _token_request(
        h,
        grant_type="authorization_code",
        code=params["code"],
        client_id=flow.client_id,
        redirect_uri=REDIRECT,
    )
    assert answer.json()["error"] == "invalid_request"
    assert "access_token" not in answer.json()


@pytest.mark.parametrize("method", ["plain", None])
async def test_plain_or_no_pkce_is_refused(h: Harness, method: str | None) -> None:
    flow = await new_flow(h)
    verifier = generate_token(48)
    query: dict[str, str] = {
        "response_type": "code",
        "client_id": flow.client_id,
        "redirect_uri": REDIRECT,
        "state": "s-1",
        "login_hint": await h.token("pro"),
    }
    if method is not None:
        query |= {"code_challenge": verifier, "code_challenge_method": method}
    params = redirect_params(await h.client.get("/oauth/authorize", params=query))
    assert params["error"] == "invalid_request"
    assert params["state"] == "s-1"
    assert "code" not in params


async def test_redirect_uri_mismatch_is_not_followed(h: Harness) -> None:
    flow = await new_flow(h)
    url, _ = flow.authorization_url(
        login_hint=await h.token("pro"), redirect_uri="https://evil.example/callback"
    )
    answer = await h.client.get(url)
    assert answer.status_code == 400
    assert "location" not in answer.headers
    assert "invalid_request" in answer.text
    # At the token endpoint: a code issued for one URI is not redeemed for another.
    params = redirect_params(await flow.authorize(await h.token("pro")))
    other = await _token_request(
        h,
        grant_type="authorization_code",
        code=params["code"],
        client_id=flow.client_id,
        redirect_uri="http://127.0.0.1:8765/other",
        code_verifier=flow.verifier,
    )
    assert other.json()["error"] == "invalid_grant"


async def test_loopback_redirect_any_port(h: Harness) -> None:
    flow = await new_flow(h)
    url, _state = flow.authorization_url(
        login_hint=await h.token("pro"), redirect_uri="http://127.0.0.1:50123/callback"
    )
    answer = await h.client.get(url)
    assert answer.status_code == 302
    assert answer.headers["location"].startswith("http://127.0.0.1:50123/callback?code=")


async def test_unknown_client(h: Harness) -> None:
    verifier = generate_token(48)
    page = await h.client.get(
        "/oauth/authorize",
        params={
            "response_type": "code",
            "client_id": "mcl_nobody",
            "redirect_uri": REDIRECT,
            "code_challenge": challenge(verifier),
            "code_challenge_method": "S256",
        },
    )
    assert page.status_code == 400 and "location" not in page.headers
    assert "invalid_client" in page.text
    answer = await _token_request(
        h,
        grant_type="authorization_code",
        code="mac_x",
        client_id="mcl_nobody",
        redirect_uri=REDIRECT,
        code_verifier=verifier,
    )
    assert answer.status_code in (400, 401)
    assert answer.json()["error"] == "invalid_client"


async def test_expired_code(h: Harness, clock: ManualClock) -> None:
    flow = await new_flow(h)
    answer = await flow.authorize(await h.token("pro"))
    clock.advance(61)
    response = await _token_request(
        h,
        grant_type="authorization_code",
        code=redirect_params(answer)["code"],
        client_id=flow.client_id,
        redirect_uri=REDIRECT,
        code_verifier=flow.verifier,
    )
    assert response.json()["error"] == "invalid_grant"
    assert "access_token" not in response.json()


async def test_reused_code_revokes_what_it_issued(h: Harness) -> None:
    flow = await new_flow(h)
    answer = await flow.authorize(await h.token("pro"))
    form = {
        "grant_type": "authorization_code",
        "code": redirect_params(answer)["code"],
        "client_id": flow.client_id,
        "redirect_uri": REDIRECT,
        "code_verifier": flow.verifier,
    }
    first = (await _token_request(h, **form)).json()
    assert (await h.send(first["access_token"])).status_code == 200
    second = await _token_request(h, **form)
    assert second.json()["error"] == "invalid_grant"
    assert "access_token" not in second.json()
    assert (await h.send(first["access_token"])).status_code == 401
    refreshed = await _token_request(
        h,
        grant_type="refresh_token",
        refresh_token=first["refresh_token"],
        client_id=flow.client_id,
    )
    assert refreshed.json()["error"] == "invalid_grant"


async def test_reused_refresh_token_ends_the_session(h: Harness) -> None:
    flow = await new_flow(h)
    first = await flow.login(await h.token("pro"))
    form = {
        "grant_type": "refresh_token",
        "refresh_token": first["refresh_token"],
        "client_id": flow.client_id,
    }
    rotated = (await _token_request(h, **form)).json()
    assert (await h.send(rotated["access_token"])).status_code == 200
    reused = await _token_request(h, **form)
    assert reused.status_code == 400
    assert reused.json()["error"] == "invalid_grant"
    assert "access_token" not in reused.json()
    # Reuse means the token leaked: the whole session ends, the rotated pair with it.
    assert (await h.send(rotated["access_token"])).status_code == 401
    after = await _token_request(
        h,
        grant_type="refresh_token",
        refresh_token=rotated["refresh_token"],
        client_id=flow.client_id,
    )
    assert after.json()["error"] == "invalid_grant"


async def test_expired_access_token(h: Harness, clock: ManualClock) -> None:
    flow = await new_flow(h)
    token = await flow.login(await h.token("pro"))
    clock.advance(901)
    assert (await h.send(token["access_token"])).status_code == 401
    renewed = await flow.session.refresh_token(
        flow.metadata["token_endpoint"], refresh_token=token["refresh_token"]
    )
    assert (await h.send(renewed["access_token"])).status_code == 200


async def test_free_plan_login_is_refused_at_the_endpoint(h: Harness) -> None:
    flow = await new_flow(h)
    token = await flow.login(await h.token("free"))
    answer = await h.send(token["access_token"])
    assert answer.status_code == 403
    assert answer.json()["error"]["code"] == -32005


async def test_revoked_api_token(h: Harness) -> None:
    api_token = await h.token("pro", "erin")
    flow = await new_flow(h)
    token = await flow.login(api_token)
    assert (await h.send(token["access_token"])).status_code == 200
    from magisterium_a2a.server.identity import hash_token

    assert await h.tokens.delete(hash_token(api_token))
    # The session ends: its access token, its refresh token ...
    assert (await h.send(token["access_token"])).status_code == 401
    refreshed = await _token_request(
        h,
        grant_type="refresh_token",
        refresh_token=token["refresh_token"],
        client_id=flow.client_id,
    )
    assert refreshed.json()["error"] == "invalid_grant"
    # ... and the revoked token cannot sign in again.
    params = redirect_params(await flow.authorize(api_token))
    assert params["error"] == "access_denied"
    assert "code" not in params


async def test_resource_must_be_this_endpoint(h: Harness) -> None:
    flow = await new_flow(h)
    api_token = await h.token("pro")
    ok = await flow.authorize(api_token, resource=ENDPOINT_URL)
    token = await flow.tokens(ok.headers["location"], resource=ENDPOINT_URL)
    assert (await h.send(token["access_token"])).status_code == 200
    other = redirect_params(await flow.authorize(api_token, resource="https://other.example/api"))
    assert other["error"] == "invalid_target"
    assert "code" not in other


# --- registration ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("uris", "error"),
    [
        (["http://client.example/callback"], "invalid_redirect_uri"),
        (["https://client.example/cb#frag"], "invalid_redirect_uri"),
        (["myapp:/callback"], "invalid_redirect_uri"),
        ([], "invalid_redirect_uri"),
        ([f"https://client.example/{n}" for n in range(11)], "invalid_redirect_uri"),
    ],
)
async def test_registration_redirect_uri_rules(h: Harness, uris: list[str], error: str) -> None:
    metadata = await discover(h)
    answer = await register(h, metadata, redirect_uris=uris)
    assert answer.status_code == 400
    assert answer.json()["error"] == error


@pytest.mark.parametrize(
    "fields",
    [
        {"grant_types": ["client_credentials"]},
        {"token_endpoint_auth_method": "private_key_jwt"},
        {"response_types": ["token"]},
        {"scope": "admin"},
    ],
)
async def test_registration_refuses_what_the_server_does_not_do(
    h: Harness, fields: dict[str, Any]
) -> None:
    answer = await register(h, await discover(h), **fields)
    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid_client_metadata"


async def test_registration_bad_bodies(h: Harness) -> None:
    not_json = await h.client.post(
        "/oauth/register", content=b"{", headers={"content-type": "application/json"}
    )
    assert not_json.status_code == 400 and not_json.json()["error"] == "invalid_client_metadata"
    a_list = await h.client.post("/oauth/register", json=[1])
    assert a_list.status_code == 400
    huge = await h.client.post("/oauth/register", content=b" " * 20_000)
    assert huge.status_code == 400


async def test_registration_flood_is_limited(settings: Settings) -> None:
    limited = oauth_settings(settings, oauth_registrations_per_hour_per_address=3)
    async with harness(limited, clock=ManualClock(NOW)) as h:
        metadata = await discover(h)
        for _ in range(3):
            assert (await register(h, metadata)).status_code == 201
        refused = await register(h, metadata)
        assert refused.status_code == 429
        assert int(refused.headers["retry-after"]) >= 1
        h.runtime.clock.base.advance(3600)  # type: ignore[attr-defined]
        assert (await register(h, metadata)).status_code == 201


async def test_token_endpoint_bad_requests(h: Harness) -> None:
    json_body = await h.client.post("/oauth/token", json={"grant_type": "authorization_code"})
    assert json_body.status_code == 400 and json_body.json()["error"] == "invalid_request"
    unknown = await _token_request(h, grant_type="password", username="a", password="b")
    assert unknown.json()["error"] == "unsupported_grant_type"


# --- `tokens revoke` from another process's point of view, on either store -------


async def _revoke_with_the_cli(settings: Settings, api_token: str) -> None:
    """``magisterium-a2a tokens revoke``, in a process of its own, as an operator runs it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("A2A_")}
    env["A2A_DATA_DIR"] = str(settings.data_dir)
    if settings.redis_url:
        env |= {"A2A_REDIS_URL": settings.redis_url, "A2A_KEY_PREFIX": settings.key_prefix}
    command = [sys.executable, "-m", "magisterium_a2a.server", "tokens", "revoke", api_token]
    done = await asyncio.to_thread(
        subprocess.run, command, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr


async def test_tokens_revoke_ends_the_oauth_session(h: Harness) -> None:
    api_token = await h.token("pro", "fay")
    flow = await new_flow(h)
    token = await flow.login(api_token)
    assert (await h.send(token["access_token"])).status_code == 200
    await _revoke_with_the_cli(h.settings, api_token)
    assert (await h.send(token["access_token"])).status_code == 401


@pytest.mark.redis
async def test_the_flow_on_real_redis(redis_settings: Settings, clock: ManualClock) -> None:
    async with harness(oauth_settings(redis_settings), clock=clock) as h:
        api_token = await h.token("organization", "gus")
        flow = await new_flow(h)
        token = await flow.login(api_token)
        assert (await h.send(token["access_token"])).status_code == 200
        form = {
            "grant_type": "refresh_token",
            "refresh_token": token["refresh_token"],
            "client_id": flow.client_id,
        }
        rotated = (await _token_request(h, **form)).json()
        assert (await _token_request(h, **form)).json()["error"] == "invalid_grant"
        assert (await h.send(rotated["access_token"])).status_code == 401
        again = await flow.login(api_token)
        assert (await h.send(again["access_token"])).status_code == 200
        await _revoke_with_the_cli(h.settings, api_token)
        assert (await h.send(again["access_token"])).status_code == 401


async def test_an_unreachable_store_is_503(settings: Settings) -> None:
    down = oauth_settings(settings, redis_url="redis://127.0.0.1:1/0", redis_timeout_seconds=0.5)
    async with harness(down, clock=ManualClock(NOW)) as h:
        registered = await h.client.post(
            "/oauth/register",
            json={"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none"},
        )
        assert registered.status_code == 503
        assert registered.json()["error"] == "temporarily_unavailable"
        assert registered.headers["retry-after"] == "5"
        token = await _token_request(
            h,
            grant_type="authorization_code",
            code="mac_x",
            client_id="mcl_x",
            redirect_uri=REDIRECT,
            code_verifier=generate_token(48),
        )
        assert token.status_code == 503
        # The discovery documents need no store.
        assert (await h.client.get("/.well-known/oauth-authorization-server")).status_code == 200


ODD_AUTHORIZE_QUERIES: list[dict[str, Any]] = [
    {},
    {"client_id": ""},
    {"response_type": "token", "client_id": "{client}"},
    {"response_type": "code", "client_id": "{client}"},
    {"response_type": "code", "client_id": "{client}", "redirect_uri": "not a uri"},
    {
        "response_type": "code",
        "client_id": "{client}",
        "code_challenge": "short",
        "code_challenge_method": "S256",
    },
    {"response_type": "code", "client_id": "{client}", "scope": "a2a admin"},
    {"response_type": "code", "client_id": ["{client}", "{client}"]},
    {"response_type": "code", "client_id": "{client}", "resource": ["a", "b"]},
    {"response_type": "code", "client_id": "\x00\ud7ff", "redirect_uri": "\u202e"},
]


@pytest.mark.parametrize("query", ODD_AUTHORIZE_QUERIES)
async def test_odd_authorization_requests_get_an_error_not_a_crash(
    h: Harness, query: dict[str, Any]
) -> None:
    flow = await new_flow(h)

    def fill(value: Any) -> Any:
        if isinstance(value, list):
            return [fill(v) for v in value]
        return value.replace("{client}", flow.client_id)

    answer = await h.client.get("/oauth/authorize", params={k: fill(v) for k, v in query.items()})
    assert answer.status_code in (302, 400), answer.text
    if answer.status_code == 302:
        params = parse_qs(urlsplit(answer.headers["location"]).query)
        assert "error" in params and "code" not in params
    else:
        assert "<h1>This authorization request cannot be served</h1>" in answer.text


@pytest.mark.parametrize(
    "form",
    [
        {},
        {"grant_type": ""},
        {"grant_type": "authorization_code"},
        {"grant_type": "authorization_code", "client_id": "mcl_x", "code": ""},
        {"grant_type": "refresh_token", "client_id": "mcl_x"},
        {"grant_type": "refresh_token", "refresh_token": "x" * 5000, "client_id": "\x00"},
        {
            "grant_type": "authorization_code",
            "code": "mac_x",
            "client_id": "mcl_x",
            "scope": "\ud7ff",
        },
    ],
)
async def test_odd_token_requests_get_an_error_not_a_crash(
    h: Harness, form: dict[str, str]
) -> None:
    answer = await _token_request(h, **form)
    assert answer.status_code in (400, 401), answer.text
    assert answer.json()["error"] in {
        "invalid_request",
        "invalid_client",
        "invalid_grant",
        "unsupported_grant_type",
    }


async def test_odd_revocation_and_form_bodies(h: Harness) -> None:
    assert (await h.client.post("/oauth/revoke", data={})).status_code in (400, 401)
    not_utf8 = await h.client.post(
        "/oauth/token",
        content=b"grant_type=\xff\xfe",
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert not_utf8.status_code == 400 and not_utf8.json()["error"] == "invalid_request"
    big = await h.client.post(
        "/oauth/token",
        content=b"a=" + b"b" * 20_000,
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert big.status_code == 400
    page = await h.client.post(
        "/oauth/authorize", content=b"x", headers={"content-type": "text/plain"}
    )
    assert page.status_code == 400


async def test_a_code_raced_twice_gives_one_token_and_then_none(h: Harness) -> None:
    flow = await new_flow(h)
    answer = await flow.authorize(await h.token("pro"))
    form = {
        "grant_type": "authorization_code",
        "code": redirect_params(answer)["code"],
        "client_id": flow.client_id,
        "redirect_uri": REDIRECT,
        "code_verifier": flow.verifier,
    }
    first, second = await asyncio.gather(_token_request(h, **form), _token_request(h, **form))
    bodies = sorted((first.json(), second.json()), key=lambda b: "error" in b)
    assert "access_token" in bodies[0]
    assert bodies[1]["error"] == "invalid_grant"
    # The second use ended the grant the first one opened.
    assert (await h.send(bodies[0]["access_token"])).status_code == 401
