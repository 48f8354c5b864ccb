"""How OAuth is wired for one server, from its settings: the built-in
authorization server, delegation to the operator's provider, or neither."""

from __future__ import annotations

from dataclasses import dataclass

from redis.asyncio import Redis

from magisterium_a2a.server.agent_card import OAuthEndpoints
from magisterium_a2a.server.clock import Clock
from magisterium_a2a.server.config import Settings
from magisterium_a2a.server.oauth.accounts import OperatorAccounts
from magisterium_a2a.server.oauth.delegation import Provider
from magisterium_a2a.server.oauth.discovery import (
    AS_METADATA_PATH,
    AUTHORIZE_PATH,
    SCOPES,
    TOKEN_PATH,
    OAuthConfig,
    protected_resource_metadata,
    resource_metadata_path,
    www_authenticate,
)
from magisterium_a2a.server.oauth.routes import OAuthSurface
from magisterium_a2a.server.oauth.service import OAuthService
from magisterium_a2a.server.oauth.store import OAuthStore
from magisterium_a2a.server.storage.keys import OAuthKeys
from magisterium_a2a.server.tokens import TokenStore


class DelegationError(ValueError):
    """The provider's metadata lacks what delegation needs."""


@dataclass(frozen=True)
class OAuthSetup:
    service: OAuthService | None
    surface: OAuthSurface
    card: OAuthEndpoints | None
    challenge: str
    jwt_settings: Settings | None


def delegated_jwt_settings(settings: Settings, provider: Provider | None) -> Settings:
    """The JWT verifier's settings: the ``A2A_JWT_*`` given, completed from the
    provider (issuer, keys) and with this endpoint as the default audience."""
    update: dict[str, object] = {
        "jwt_issuer": settings.jwt_issuer or settings.oauth_issuer,
        "jwt_audience": settings.jwt_audience or settings.endpoint_url,
    }
    if provider is not None and not (settings.jwt_jwks_url or settings.jwt_jwks_file):
        if not provider.metadata.jwks_uri:
            raise DelegationError(f"{provider.url} names no jwks_uri")
        update["jwt_jwks_url"] = provider.metadata.jwks_uri
    return settings.model_copy(update=update)


def build_oauth(
    settings: Settings,
    redis: Redis,
    clock: Clock,
    tokens: TokenStore,
    provider: Provider | None,
) -> OAuthSetup:
    issuer = settings.public_url.rstrip("/")
    resource = settings.endpoint_url
    service = None
    card = None
    jwt_settings = None
    issuers: list[str] = []
    scopes: list[str] | None = None
    if settings.oauth_builtin:
        config = OAuthConfig(
            issuer=issuer,
            resource=resource,
            access_token_seconds=settings.oauth_access_token_seconds,
            refresh_token_seconds=settings.oauth_refresh_token_seconds,
            code_seconds=settings.oauth_code_seconds,
            registrations_per_hour_per_address=settings.oauth_registrations_per_hour_per_address,
            registrations_per_hour=settings.oauth_registrations_per_hour,
            demo_plans=settings.dev_mode,
            login_hint=settings.test_mode,
            unused_client_seconds=settings.oauth_unused_client_seconds,
            approvals_per_minute=settings.oauth_approvals_per_minute,
            approvals_per_minute_per_address=settings.oauth_approvals_per_minute_per_address,
            sign_in_failures_per_address=settings.oauth_sign_in_failures_per_address,
        )
        accounts = OperatorAccounts(tokens, clock, demo=settings.dev_mode)
        service = OAuthService(
            OAuthStore(redis, OAuthKeys(settings.key_prefix)), config, clock, accounts
        )
        issuers, scopes = [issuer], list(SCOPES)
        card = OAuthEndpoints(
            authorization_url=config.url(AUTHORIZE_PATH),
            token_url=config.url(TOKEN_PATH),
            metadata_url=config.url(AS_METADATA_PATH),
            scopes=dict(SCOPES),
            description="OAuth 2.0 authorization code with PKCE (S256); sign in with your "
            "API token. Clients may register themselves (RFC 7591).",
        )
    elif settings.jwt_enabled:
        jwt_settings = delegated_jwt_settings(settings, provider)
        jwt_issuer = jwt_settings.jwt_issuer
        issuers = [jwt_issuer]
        if provider is not None:
            meta = provider.metadata
            scopes = meta.scopes_supported
            if meta.authorization_endpoint and meta.token_endpoint:
                card = OAuthEndpoints(
                    authorization_url=meta.authorization_endpoint,
                    token_url=meta.token_endpoint,
                    metadata_url=provider.url,
                    scopes={s: s for s in meta.scopes_supported or []},
                    description=f"OAuth 2.0 with the operator's identity provider {jwt_issuer}.",
                )
    document = protected_resource_metadata(resource, issuers, scopes, settings.agent_name)
    surface = OAuthSurface(
        resource_metadata=document.model_dump_json(exclude_none=True).encode(),
        resource_metadata_path=resource_metadata_path(resource),
        server=service,
    )
    return OAuthSetup(
        service=service,
        surface=surface,
        card=card,
        challenge=www_authenticate(settings.public_url, resource),
        jwt_settings=jwt_settings,
    )
