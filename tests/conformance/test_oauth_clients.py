"""OAuth with clients nobody on this team wrote, against a real server
process in test mode: a person signing in on the login page in headless
Chromium (with JavaScript off), the official a2a-sdk with its auth interceptor reading the card's
``oauth2`` scheme, the MCP Python SDK's OAuth client starting from a 401, and the pytest plugin's
helper running the whole flow."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.client.auth import AuthInterceptor, InMemoryContextCredentialStore
from a2a.client.middleware import ClientCallContext
from a2a.types import Message, Part, Role, TextPart
from authlib.common.security import generate_token
from authlib.integrations.httpx_client import OAuth2Client

from magisterium_a2a.testing.oauth import discover, oauth_login
from magisterium_a2a.testing.pytest_plugin import MagisteriumServer
from tests.conformance.plan import PROBES, final_task, run_probe
from tests.conformance.test_browser import CHROMIUM_ARGS
from tests.conformance.toolchains import (
    CHROMIUM,
    MCP_SDK,
    PLAYWRIGHT,
    node_script,
    npm_prefix,
    python_env,
    require,
)

pytestmark = pytest.mark.subprocess


class _Callback(BaseHTTPRequestHandler):
    """The client's redirect URI: a page that says the sign-in came back."""

    def do_GET(self) -> None:
        body = b"signed in"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Not of interest to the test."""


@pytest.fixture
def callback() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Callback)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/callback"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def send_echo(server: MagisteriumServer, access_token: str, text: str) -> httpx.Response:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "message/send",
        "params": {
            "message": {
                "role": "user",
                "kind": "message",
                "messageId": f"oauth-{text}",
                "parts": [{"kind": "text", "text": text}],
                "metadata": {"skillId": "echo"},
            }
        },
    }
    return httpx.post(
        server.endpoint_url, json=body, headers={"Authorization": f"Bearer {access_token}"}
    )


def test_browser_signs_in_on_the_login_page(
    conformance_server: MagisteriumServer, tmp_path: Path, callback: str
) -> None:
    require(
        CHROMIUM.exists() or shutil.which("chromium") is not None,
        "Chromium is not installed (apt-get install chromium; .ci/run does it)",
    )
    prefix = npm_prefix([PLAYWRIGHT])
    api_token = conformance_server.issue_token("organization", "browser-oauth")
    with httpx.Client() as http:
        metadata = discover(http, conformance_server.base_url)
        client_id = http.post(
            metadata["registration_endpoint"],
            json={
                "redirect_uris": [callback],
                "token_endpoint_auth_method": "none",
                "grant_types": ["authorization_code", "refresh_token"],
                "client_name": "Browser test client",
            },
        ).json()["client_id"]
    with OAuth2Client(
        client_id=client_id,
        redirect_uri=callback,
        scope="a2a",
        code_challenge_method="S256",
        token_endpoint_auth_method="none",
    ) as session:
        verifier = generate_token(48)
        url, state = session.create_authorization_url(
            metadata["authorization_endpoint"], code_verifier=verifier
        )
        plan = {
            "executablePath": str(CHROMIUM if CHROMIUM.exists() else shutil.which("chromium")),
            "args": CHROMIUM_ARGS,
            "userDataDir": str(tmp_path / "profile"),
            "authorizationUrl": url,
            "origin": conformance_server.base_url,
            "redirectUri": callback,
            "apiToken": api_token,
        }
        report = run_probe(
            ["node", str(node_script(prefix, PROBES / "oauth_login.mjs"))], plan, cwd=prefix
        )
        assert report["status"] == 200
        assert report["title"] == "Sign in to allow Browser test client"
        assert report["heading"] == "Allow Browser test client to use your account?"
        assert report["outside"] == []  # nothing fetched from anywhere else
        back = report["redirectedTo"]
        assert back.startswith(callback + "?")
        query = parse_qs(urlsplit(back).query)
        assert query["state"] == [state]
        token = session.fetch_token(
            metadata["token_endpoint"], authorization_response=back, code_verifier=verifier
        )
    sent = send_echo(conformance_server, token["access_token"], "signed in by a browser")
    assert sent.status_code == 200
    task = sent.json()["result"]
    assert task["artifacts"][0]["parts"] == [{"kind": "text", "text": "signed in by a browser"}]


async def test_a2a_sdk_auth_interceptor_uses_the_oauth2_scheme(
    conformance_server: MagisteriumServer,
) -> None:
    login = conformance_server.oauth_login("pro")
    credentials = InMemoryContextCredentialStore()
    await credentials.set_credentials("session-1", "oauth2", login.access_token)
    seen: list[str | None] = []

    async def record(request: httpx.Request) -> None:
        seen.append(request.headers.get("authorization"))

    async with httpx.AsyncClient(timeout=30, event_hooks={"request": [record]}) as http:
        card = await A2ACardResolver(http, conformance_server.base_url).get_agent_card()
        assert card.security_schemes is not None
        scheme = card.security_schemes["oauth2"].root
        assert scheme.type == "oauth2"
        assert scheme.flows.authorization_code is not None
        assert scheme.flows.authorization_code.token_url == login.metadata["token_endpoint"]
        client = ClientFactory(ClientConfig(httpx_client=http, streaming=False)).create(
            card, interceptors=[AuthInterceptor(credentials)]
        )
        try:
            outgoing = Message(
                role=Role.user,
                message_id="sdk-oauth",
                parts=[Part(root=TextPart(text="through the interceptor"))],
                metadata={"skillId": "echo"},
            )
            context = ClientCallContext(state={"sessionId": "session-1"})
            events = [e async for e in client.send_message(outgoing, context=context)]
        finally:
            await client.close()
    assert final_task(events).status.state.value == "completed"
    assert seen[-1] == f"Bearer {login.access_token}"


def test_plugin_helper_runs_the_whole_flow(conformance_server: MagisteriumServer) -> None:
    login = conformance_server.oauth_login("enterprise")
    assert login.access_token.startswith("mat_") and login.refresh_token.startswith("mrt_")
    assert login.scope == "a2a"
    assert send_echo(conformance_server, login.access_token, "plugin").status_code == 200
    free = conformance_server.oauth_login("free")
    refused = send_echo(conformance_server, free.access_token, "free")
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == -32005
    with pytest.raises(RuntimeError, match="access_denied"):
        oauth_login(conformance_server.base_url, "mag_not-a-token")


def test_mcp_sdk_oauth_client_finds_its_way_from_a_401(
    conformance_server: MagisteriumServer,
) -> None:
    python = python_env(MCP_SDK)
    plan = {
        "endpoint": conformance_server.endpoint_url,
        "apiToken": conformance_server.issue_token("pro", "mcp-oauth"),
        "redirectUri": "http://127.0.0.1:33418/callback",
        "text": "from an MCP-style client",
    }
    report = run_probe([str(python), str(PROBES / "mcp_oauth.py")], plan)
    # The 401's resource_metadata, then RFC 8414, RFC 7591, the token, and the call again.
    assert report["requests"][:5] == [
        "POST /api/v1/a2a",
        "GET /.well-known/oauth-protected-resource/api/v1/a2a",
        "GET /.well-known/oauth-authorization-server",
        "POST /oauth/register",
        "POST /oauth/token",
    ], report["requests"]
    assert report["requests"][5:] == ["POST /api/v1/a2a"]
    assert report["authorizeStatus"] == 302
    assert "code_challenge" in report["authorizeParams"]
    assert report["resource"] == conformance_server.endpoint_url
    assert report["clientId"].startswith("mcl_")
    assert report["accessToken"].startswith("mat_") and report["refreshToken"]
    assert report["status"] == 200
    assert report["state"] == "completed"
    assert report["texts"] == ["from an MCP-style client"]
