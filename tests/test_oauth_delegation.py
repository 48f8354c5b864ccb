"""Delegation to the operator's identity provider (a local fake serving its
metadata and JWKS), the namespaces of users of different issuers, and JWT
time claims that are not finite numbers."""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
import pytest

from magisterium_a2a.server.clock import ManualClock
from magisterium_a2a.server.config import Settings
from tests.support import Harness, harness
from tests.test_doctor import doctor
from tests.test_oidc import AUDIENCE, ISSUER, NOW, JWKSServer, Keys, oidc

PUBLIC = "https://a2a.example.org"
ENDPOINT_URL = PUBLIC + "/api/v1/a2a"


class FakeProvider:
    """An identity provider's discovery document and keys, at its own issuer URL."""

    def __init__(self, keys: Keys, *, lie_about_issuer: bool = False) -> None:
        owner = self
        self.requests: list[str] = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                owner.requests.append(self.path)
                if self.path == "/.well-known/oauth-authorization-server":
                    issuer = "https://impostor.example" if lie_about_issuer else owner.issuer
                    body = {
                        "issuer": issuer,
                        "authorization_endpoint": owner.issuer + "/authorize",
                        "token_endpoint": owner.issuer + "/token",
                        "jwks_uri": owner.issuer + "/keys",
                        "scopes_supported": ["openid", "a2a"],
                        "response_types_supported": ["code"],
                    }
                elif self.path == "/keys":
                    body = keys.jwks()
                else:
                    self.send_error(404)
                    return
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.issuer = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


@pytest.fixture(scope="module")
def keys() -> Keys:
    return Keys()


@pytest.fixture
def provider(keys: Keys) -> Iterator[FakeProvider]:
    fake = FakeProvider(keys)
    yield fake
    fake.close()


@pytest.fixture
async def d(settings: Settings, provider: FakeProvider) -> AsyncIterator[Harness]:
    delegated = settings.model_copy(
        update={"public_url": PUBLIC, "oauth_issuer": provider.issuer, "dev_mode": True}
    )
    async with harness(delegated, clock=ManualClock(NOW)) as running:
        yield running


def provider_token(keys: Keys, provider: FakeProvider, **claims: Any) -> str:
    return keys.token(iss=provider.issuer, aud=ENDPOINT_URL, **claims)


async def test_delegation_names_the_provider(d: Harness, provider: FakeProvider) -> None:
    assert provider.requests[0] == "/.well-known/oauth-authorization-server"
    document = (await d.client.get("/.well-known/oauth-protected-resource/api/v1/a2a")).json()
    assert document["resource"] == ENDPOINT_URL
    assert document["authorization_servers"] == [provider.issuer]
    assert document["scopes_supported"] == ["openid", "a2a"]
    card = (await d.client.get("/.well-known/agent-card.json")).json()
    oauth = card["securitySchemes"]["oauth2"]
    assert oauth["oauth2MetadataUrl"] == provider.issuer + "/.well-known/oauth-authorization-server"
    flow = oauth["flows"]["authorizationCode"]
    assert flow["authorizationUrl"] == provider.issuer + "/authorize"
    assert flow["tokenUrl"] == provider.issuer + "/token"
    assert "bearer" in card["securitySchemes"]
    # The built-in server stays off, development mode or not.
    assert (await d.client.get("/.well-known/oauth-authorization-server")).status_code == 404
    assert (await d.client.post("/oauth/register", json={})).status_code == 404
    assert (await d.client.get("/oauth/authorize")).status_code == 404


async def test_provider_tokens_are_accepted(d: Harness, keys: Keys, provider: FakeProvider) -> None:
    token = provider_token(keys, provider, plan="pro")
    sent = await d.send(token)
    assert sent.status_code == 200, sent.text
    assert sent.json()["result"]["status"]["state"] == "completed"
    assert "/keys" in provider.requests
    # The audience defaults to this endpoint (RFC 8707's resource).
    elsewhere = keys.token(iss=provider.issuer, aud="https://other.example/api", plan="pro")
    assert (await d.send(elsewhere)).json()["error"]["data"]["reason"] == "wrong audience"
    stranger = keys.token(iss="https://stranger.example", aud=ENDPOINT_URL, plan="pro")
    assert (await d.send(stranger)).json()["error"]["data"]["reason"] == "wrong issuer"
    free = provider_token(keys, provider)
    assert (await d.send(free)).status_code == 403


async def test_provider_whose_document_names_another_issuer_stops_the_start(
    settings: Settings, keys: Keys
) -> None:
    fake = FakeProvider(keys, lie_about_issuer=True)
    try:
        delegated = settings.model_copy(update={"oauth_issuer": fake.issuer})
        with pytest.raises(Exception, match="impostor"):
            async with harness(delegated):
                pass
    finally:
        fake.close()


def test_built_in_server_and_delegation_exclude_each_other() -> None:
    with pytest.raises(ValueError, match="A2A_OAUTH_SERVER"):
        Settings(_env_file=None, oauth_server=True, oauth_issuer="https://idp.example")  # type: ignore[call-arg]


async def test_jwt_settings_alone_name_their_issuer(settings: Settings, keys: Keys) -> None:
    jwks = JWKSServer(keys)
    try:
        async with harness(oidc(settings, jwks.url), clock=ManualClock(NOW)) as o:
            document = (await o.client.get("/.well-known/oauth-protected-resource")).json()
            assert document["authorization_servers"] == [ISSUER]
            assert (
                await o.client.get("/.well-known/oauth-authorization-server")
            ).status_code == 404
    finally:
        jwks.httpd.shutdown()


# --- namespaces -----------------------------------------------------------------


@pytest.fixture
async def o(settings: Settings, keys: Keys) -> AsyncIterator[Harness]:
    jwks = JWKSServer(keys)
    try:
        async with harness(oidc(settings, jwks.url), clock=ManualClock(NOW)) as running:
            yield running
    finally:
        jwks.httpd.shutdown()


async def test_a_subject_named_like_an_operator_user_is_another_user(
    o: Harness, keys: Keys
) -> None:
    operator = await o.token("enterprise", "oidc-user", per_minute=1)
    task = (await o.send(operator)).json()["result"]["id"]
    assert (await o.send(operator)).status_code == 429
    token = keys.token(plan="pro")  # sub "oidc-user", the same name
    theirs = await o.call("tasks/get", {"id": task}, token)
    assert theirs.json()["error"]["code"] == -32001
    # Limits are the subject's own, not the operator user's spent bucket.
    assert (await o.send(token)).status_code == 200


# --- time claims ------------------------------------------------------------------


def raw_token(keys: Keys, payload: str, kid: str = "rsa-1") -> str:
    """A token whose payload is exactly this JSON text (PyJWT would re-encode numbers)."""
    algorithm, key = keys.private[kid]
    return jwt.api_jws.PyJWS().encode(
        payload.encode(), key, algorithm=algorithm, headers={"kid": kid}
    )


def payload(**times: str) -> str:
    claims = {
        "iss": json.dumps(ISSUER),
        "aud": json.dumps(AUDIENCE),
        "sub": '"oidc-user"',
        "plan": '"pro"',
        "exp": str(int(NOW + 300)),
        **times,
    }
    return "{" + ",".join(f'"{k}":{v}' for k, v in claims.items()) + "}"


@pytest.mark.parametrize(
    "times",
    [
        {"exp": '"inf"'},
        {"exp": '"nan"'},
        {"exp": '"1800000300"'},
        {"exp": "1e400"},
        {"exp": "Infinity"},
        {"exp": "NaN"},
        {"exp": "1" + "0" * 400},
        {"exp": "true"},
        {"nbf": '"nan"'},
        {"nbf": "-1e400"},
        {"iat": '"inf"'},
        {"iat": "NaN"},
    ],
)
async def test_time_claims_must_be_finite_numbers(
    o: Harness, keys: Keys, times: dict[str, str]
) -> None:
    response = await o.send(raw_token(keys, payload(**times)))
    assert response.status_code == 401, response.text
    error = response.json()["error"]
    assert error["code"] == -32004
    assert "claim" in error["data"]["reason"]


async def test_ordinary_numeric_dates_pass(o: Harness, keys: Keys) -> None:
    times = {"exp": f"{NOW + 300.5}", "iat": str(int(NOW)), "nbf": str(int(NOW - 1))}
    assert (await o.send(raw_token(keys, payload(**times)))).status_code == 200


def test_doctor_reads_the_provider(settings: Settings, provider: FakeProvider, keys: Keys) -> None:
    code, text = doctor(settings, A2A_OAUTH_ISSUER=provider.issuer)
    assert code == 0, text
    assert f"JWTs of {provider.issuer}" in text
    assert f"the JWKS holds {len(keys.published)} key(s)" in text
    liar = FakeProvider(keys, lie_about_issuer=True)
    try:
        code, text = doctor(settings, A2A_OAUTH_ISSUER=liar.issuer)
        assert code == 1
        assert "impostor" in text
    finally:
        liar.close()
