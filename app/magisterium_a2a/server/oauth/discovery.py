"""The discovery documents: authorization-server metadata (RFC 8414) and
protected-resource metadata (RFC 9728), and where each is served."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict

AS_METADATA_PATH = "/.well-known/oauth-authorization-server"
PR_METADATA_PATH = "/.well-known/oauth-protected-resource"
AUTHORIZE_PATH = "/oauth/authorize"
TOKEN_PATH = "/oauth/token"
REGISTER_PATH = "/oauth/register"
REVOKE_PATH = "/oauth/revoke"
SCOPE = "a2a"
SCOPES = {SCOPE: "Call the A2A endpoint as the signed-in user, on their plan."}
CLIENT_AUTH_METHODS = ["none", "client_secret_basic", "client_secret_post"]
GRANT_TYPES = ["authorization_code", "refresh_token"]


@dataclass(frozen=True)
class OAuthConfig:
    """What the authorization server needs to know, from the server's settings."""

    issuer: str
    resource: str
    access_token_seconds: int
    refresh_token_seconds: int
    code_seconds: int
    registrations_per_hour_per_address: int
    registrations_per_hour: int
    demo_plans: bool
    login_hint: bool
    unused_client_seconds: int = 3600
    approvals_per_minute: int = 10
    approvals_per_minute_per_address: int = 30
    sign_in_failures_per_address: int = 10

    def url(self, path: str) -> str:
        return self.issuer.rstrip("/") + path


class AuthorizationServerMetadata(BaseModel):
    """RFC 8414 section 2 (the fields this server has)."""

    model_config = ConfigDict(extra="forbid")

    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    registration_endpoint: str
    revocation_endpoint: str
    scopes_supported: list[str]
    response_types_supported: list[str]
    response_modes_supported: list[str]
    grant_types_supported: list[str]
    token_endpoint_auth_methods_supported: list[str]
    revocation_endpoint_auth_methods_supported: list[str]
    code_challenge_methods_supported: list[str]
    service_documentation: str | None = None


class ProtectedResourceMetadata(BaseModel):
    """RFC 9728 section 2 (the fields this server has)."""

    model_config = ConfigDict(extra="forbid")

    resource: str
    authorization_servers: list[str] | None = None
    bearer_methods_supported: list[str]
    scopes_supported: list[str] | None = None
    resource_name: str | None = None


def authorization_server_metadata(config: OAuthConfig) -> AuthorizationServerMetadata:
    return AuthorizationServerMetadata(
        issuer=config.issuer,
        authorization_endpoint=config.url(AUTHORIZE_PATH),
        token_endpoint=config.url(TOKEN_PATH),
        registration_endpoint=config.url(REGISTER_PATH),
        revocation_endpoint=config.url(REVOKE_PATH),
        scopes_supported=list(SCOPES),
        response_types_supported=["code"],
        response_modes_supported=["query"],
        grant_types_supported=list(GRANT_TYPES),
        token_endpoint_auth_methods_supported=list(CLIENT_AUTH_METHODS),
        revocation_endpoint_auth_methods_supported=list(CLIENT_AUTH_METHODS),
        code_challenge_methods_supported=["S256"],
    )


def protected_resource_metadata(
    resource: str, issuers: list[str], scopes: list[str] | None, name: str
) -> ProtectedResourceMetadata:
    return ProtectedResourceMetadata(
        resource=resource,
        authorization_servers=issuers or None,
        bearer_methods_supported=["header"],
        scopes_supported=scopes,
        resource_name=name,
    )


def resource_metadata_path(resource: str) -> str:
    """RFC 9728 section 3.1: the well-known segment goes before the resource's path."""
    path = urlsplit(resource).path.rstrip("/")
    return PR_METADATA_PATH + path


def www_authenticate(public_url: str, resource: str) -> str:
    """The 401 challenge: RFC 6750's scheme plus RFC 9728's ``resource_metadata``."""
    url = public_url.rstrip("/") + resource_metadata_path(resource)
    return f'Bearer resource_metadata="{url}"'
