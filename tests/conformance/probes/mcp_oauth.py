"""The MCP Python SDK's OAuth client (``OAuthClientProvider``, an httpx2 auth
flow) calling the A2A endpoint, as an MCP-style agent written for the hosted
service does: the first call gets 401, the client follows the challenge's
``resource_metadata`` to the protected-resource document, then the
authorization server's metadata, registers itself, runs the authorization
code flow with PKCE (the redirect answered by the test mode's ``login_hint``),
gets a token and repeats the call with it.

Reads a plan (JSON) on stdin: endpoint, apiToken, redirectUri, text.
Prints a report (JSON) on the last line of stdout.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import httpx2
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken


class Memory:
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


async def main() -> dict[str, Any]:
    plan = json.loads(sys.stdin.read())
    memory = Memory()
    seen: dict[str, Any] = {"requests": []}

    async def redirect(url: str) -> None:
        seen["authorizeParams"] = sorted(parse_qs(urlsplit(url).query))
        seen["resource"] = parse_qs(urlsplit(url).query).get("resource", [None])[0]
        async with httpx2.AsyncClient(timeout=30) as http:
            answer = await http.get(f"{url}&login_hint={quote(plan['apiToken'])}")
        seen["authorizeStatus"] = answer.status_code
        seen["location"] = answer.headers.get("location", "")

    async def callback() -> AuthorizationCodeResult:
        query = parse_qs(urlsplit(seen["location"]).query)
        return AuthorizationCodeResult(code=query["code"][0], state=query["state"][0])

    async def log(request: httpx2.Request) -> None:
        seen["requests"].append(f"{request.method} {request.url.path}")

    provider = OAuthClientProvider(
        server_url=plan["endpoint"],
        client_metadata=OAuthClientMetadata(
            client_name="MCP SDK probe",
            redirect_uris=[plan["redirectUri"]],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=memory,
        redirect_handler=redirect,
        callback_handler=callback,
    )
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "message/send",
        "params": {
            "message": {
                "role": "user",
                "kind": "message",
                "messageId": "mcp-oauth",
                "parts": [{"kind": "text", "text": plan["text"]}],
                "metadata": {"skillId": "echo"},
            }
        },
    }
    async with httpx2.AsyncClient(
        auth=provider, timeout=30, event_hooks={"request": [log]}
    ) as http:
        answer = await http.post(plan["endpoint"], json=body)
    result = answer.json().get("result", {})
    return {
        **seen,
        "status": answer.status_code,
        "state": result.get("status", {}).get("state"),
        "texts": [p.get("text") for a in result.get("artifacts", []) for p in a["parts"]],
        "accessToken": memory.tokens.access_token if memory.tokens else None,
        "refreshToken": bool(memory.tokens and memory.tokens.refresh_token),
        "clientId": memory.client.client_id if memory.client else None,
    }


print(json.dumps(asyncio.run(main())))
