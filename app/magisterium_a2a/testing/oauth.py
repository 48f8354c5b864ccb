"""Sign in through the server's OAuth flow from a test, headless.

In test mode the authorization endpoint takes ``login_hint=<API token>`` as
the user's sign-in and approves at once, so the whole flow — discovery
(RFC 9728, then RFC 8414), dynamic registration (RFC 7591), authorization
code with PKCE S256, token — runs without a browser. The OAuth client is
authlib's; this module imports nothing of the server.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import httpx
from authlib.common.security import generate_token

if TYPE_CHECKING:
    from authlib.integrations.httpx_client import OAuth2Client

DEFAULT_REDIRECT_URI = "http://127.0.0.1/callback"


class OAuthFlowError(RuntimeError):
    """A step of the flow did not answer as it should."""


@dataclass(frozen=True)
class OAuthLogin:
    """What the flow gave: the client registered and its tokens."""

    client_id: str
    access_token: str
    refresh_token: str
    expires_in: int
    scope: str
    metadata: dict[str, Any]

    @property
    def authorization(self) -> str:
        return f"Bearer {self.access_token}"


def discover(http: httpx.Client, base_url: str) -> dict[str, Any]:
    """The authorization server's metadata, found from the protected resource's."""
    resource = http.get(f"{base_url}/.well-known/oauth-protected-resource")
    resource.raise_for_status()
    servers = resource.json().get("authorization_servers") or []
    if not servers:
        raise OAuthFlowError("the server names no authorization server")
    issuer = servers[0].rstrip("/")
    parts = urlsplit(issuer)
    url = f"{parts.scheme}://{parts.netloc}/.well-known/oauth-authorization-server{parts.path}"
    answer = http.get(url)
    answer.raise_for_status()
    metadata: dict[str, Any] = answer.json()
    if metadata.get("issuer", "").rstrip("/") != issuer:
        raise OAuthFlowError(f"{url} names issuer {metadata.get('issuer')!r}, not {issuer!r}")
    return metadata


def _client_class() -> type[OAuth2Client]:
    """authlib's httpx client, imported when first used: authlib 1.9 warns on importing
    it with httpx (rather than its successor), which must not break a test suite that
    turns warnings into errors just by loading this plugin."""
    from authlib.deprecate import AuthlibDeprecationWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AuthlibDeprecationWarning)
        from authlib.integrations.httpx_client import OAuth2Client

    return OAuth2Client  # type: ignore[no-any-return]


def oauth_login(
    base_url: str,
    api_token: str,
    *,
    redirect_uri: str = DEFAULT_REDIRECT_URI,
    client_name: str = "magisterium-a2a test client",
    timeout: float = 30.0,
) -> OAuthLogin:
    """Register a public client and sign in as the holder of ``api_token``."""
    base_url = base_url.rstrip("/")
    with httpx.Client(timeout=timeout) as http:
        metadata = discover(http, base_url)
        registered = http.post(
            metadata["registration_endpoint"],
            json={
                "client_name": client_name,
                "redirect_uris": [redirect_uri],
                "token_endpoint_auth_method": "none",
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
            },
        )
        if registered.status_code != 201:
            raise OAuthFlowError(f"registration: HTTP {registered.status_code} {registered.text}")
        client_id = registered.json()["client_id"]
        with _client_class()(
            client_id=client_id,
            redirect_uri=redirect_uri,
            scope=" ".join(metadata.get("scopes_supported") or []) or None,
            code_challenge_method="S256",
            token_endpoint_auth_method="none",
            timeout=timeout,
        ) as session:
            verifier = generate_token(48)
            url, _state = session.create_authorization_url(
                metadata["authorization_endpoint"], code_verifier=verifier, login_hint=api_token
            )
            answer = http.get(url, follow_redirects=False)
            location = answer.headers.get("location", "")
            if answer.status_code != 302 or "code=" not in location:
                raise OAuthFlowError(
                    f"authorization: HTTP {answer.status_code} {location or answer.text[:200]}"
                )
            token = session.fetch_token(
                metadata["token_endpoint"], authorization_response=location, code_verifier=verifier
            )
    return OAuthLogin(
        client_id=client_id,
        access_token=token["access_token"],
        refresh_token=token["refresh_token"],
        expires_in=int(token["expires_in"]),
        scope=str(token.get("scope", "")),
        metadata=metadata,
    )
