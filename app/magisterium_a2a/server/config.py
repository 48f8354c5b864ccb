"""The one configuration object, read from ``A2A_*`` environment variables.

It is built once (by the CLI or the app factory) and passed to whatever needs
it; nothing below reads ``os.environ`` itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from platformdirs import user_data_dir
from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from magisterium_a2a.server.identity import PLANS

CommaList = Annotated[list[str], NoDecode]


def _split(value: object) -> object:
    if isinstance(value, str):
        return [item.strip() for item in value.split(",") if item.strip()]
    return value


class Settings(BaseSettings):
    """Server settings; every field maps to ``A2A_<FIELD>``."""

    model_config = SettingsConfigDict(
        env_prefix="A2A_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    redis_url: str = Field("", description="Redis URL; empty means the embedded in-process store")
    key_prefix: str = Field("a2a", description="Prefix of every Redis key this server writes")
    redis_timeout_seconds: float = Field(2.0, gt=0, description="Redis connect/command timeout")
    redis_spin_microseconds: int = Field(
        250,
        ge=0,
        le=10_000,
        description="Longest the event loop is kept polling, instead of sleeping, while a "
        "reply from Redis is due on the hot path (lower latency at low load for that much "
        "CPU at most; 0: sleep at once)",
    )
    redis_max_connections: int = Field(
        100, ge=1, description="Size of each process' Redis connection pool"
    )
    token_cache_seconds: float = Field(
        10.0, ge=0, description="Seconds a server caches a token (revocation stays immediate)"
    )
    public_url: str = Field(
        "http://127.0.0.1:8000",
        description="Public base URL; the card's url is this + /api/v1/a2a ('serve' defaults it "
        "to the address it listens on)",
    )
    task_ttl_seconds: int = Field(86400, ge=1, description="How long tasks are kept")
    max_body_bytes: int = Field(1_048_576, ge=1024, description="Largest accepted request body")
    max_batch: int = Field(20, ge=1, description="Largest accepted JSON-RPC batch")
    max_message_bytes: int = Field(
        65_536,
        ge=1024,
        description="Largest message/send message (its JSON) kept with a task; larger is -32602",
    )
    read_timeout_seconds: float = Field(
        30.0,
        gt=0,
        le=3600,
        description="Longest wait for a request's headers, and for its whole body",
    )
    max_connections: int | None = Field(
        None,
        ge=16,
        description="Most client connections a process keeps open; beyond, the one waiting "
        "longest without a complete request is closed (default: the file-descriptor limit "
        "less a reserve)",
    )
    forwarded_allow_ips: CommaList = Field(
        default_factory=list,
        description="Addresses or networks of the proxies whose X-Forwarded-For and "
        "X-Forwarded-Proto are believed, comma-separated; empty: none (the peer is the client)",
    )
    metrics_token: SecretStr | None = Field(
        None,
        description="Bearer token /metrics asks for; unset means /metrics answers loopback "
        "clients only",
    )
    cors_origins: CommaList = Field(
        default_factory=lambda: ["*"], description="Allowed CORS origins, comma-separated, or *"
    )
    cors_max_age_seconds: int = Field(600, ge=0, description="Access-Control-Max-Age of preflights")
    dev_mode: bool = Field(False, description="Seed well-known demo tokens (never in production)")
    playground: bool | None = Field(
        None,
        description="Serve the playground page at / (default: on in development and test mode, "
        "off otherwise)",
    )
    limit_default_per_minute: int = Field(15, ge=1, description="Default bucket, pro/organization")
    limit_expensive_per_minute: int = Field(2, ge=1, description="Expensive bucket, pro/org")
    default_skill: str = Field(
        "catholic_qa", description="Skill used when message.metadata.skillId is absent"
    )
    skill_timeout_seconds: float = Field(120.0, gt=0, description="A skill running longer fails")
    max_answer_bytes: int = Field(
        4_194_304,
        ge=65_536,
        description="Largest task (its JSON) a skill's answer may make; larger is a failed task",
    )
    data_dir: Path = Field(
        default_factory=lambda: Path(user_data_dir("magisterium-a2a")),
        description="Where content, indexes and the embedded token file live",
    )
    extra_skills: CommaList = Field(
        default_factory=list,
        description="Extra skill factories ('module:attribute', comma-separated)",
    )
    disabled_skills: CommaList = Field(
        default_factory=list, description="Skill ids not to serve, comma-separated"
    )
    agent_name: str = Field("Magisterium AI", description="The card's name")
    agent_description: str = Field(
        "Answers questions on Catholic teaching with citations, searches and fetches Church "
        "documents, and gives the Mass readings and the saints of any day.",
        description="The card's description",
    )
    log_level: str = Field("info", description="Log level of the server")
    log_format: Literal["json", "text"] = Field(
        "json", description="Log lines as JSON objects, or as plain text"
    )

    # --- OIDC / JWT bearer tokens (beside the opaque ones) ---
    jwt_issuer: str = Field("", description="Expected 'iss'; setting it turns JWT bearer tokens on")
    jwt_audience: str = Field("", description="Expected 'aud'")
    jwt_jwks_url: str = Field("", description="URL of the provider's JWKS")
    jwt_jwks_file: Path | None = Field(None, description="A local JWKS file instead of the URL")
    jwt_algorithms: CommaList = Field(
        default_factory=lambda: ["RS256", "ES256", "EdDSA"],
        description="Accepted signature algorithms (asymmetric only)",
    )
    jwt_plan_claim: str = Field("plan", description="Claim holding the plan (dotted path)")
    jwt_plan_values: CommaList = Field(
        default_factory=list, description="Claim values to plans, 'value=plan', comma-separated"
    )
    jwt_leeway_seconds: float = Field(30.0, ge=0, description="Leeway of exp and nbf")

    # --- OAuth 2.0: the built-in authorization server, or the operator's provider ---
    oauth_server: bool | None = Field(
        None,
        description="Serve the built-in OAuth authorization server (default: on in development "
        "and test mode, off otherwise; always off when delegating)",
    )
    oauth_issuer: str = Field(
        "",
        description="Issuer URL of the operator's identity provider; its metadata and keys are "
        "read at start-up and the built-in server stays off",
    )
    oauth_access_token_seconds: int = Field(
        900, ge=30, le=86_400, description="Lifetime of built-in access tokens"
    )
    oauth_refresh_token_seconds: int = Field(
        2_592_000,
        ge=300,
        description=(
            "Lifetime of built-in refresh tokens; a registered client that has obtained a token "
            "is also kept this long after its latest one (one that never has: "
            "A2A_OAUTH_UNUSED_CLIENT_SECONDS)"
        ),
    )
    oauth_code_seconds: int = Field(60, ge=5, le=600, description="Lifetime of authorization codes")
    oauth_registrations_per_hour_per_address: int = Field(
        20, ge=1, description="Client registrations one address may make per hour"
    )
    oauth_registrations_per_hour: int = Field(
        1000, ge=1, description="Client registrations the server accepts per hour in all"
    )
    oauth_unused_client_seconds: int = Field(
        3600,
        ge=60,
        description="How long a registered client that never obtained a token is kept",
    )
    oauth_approvals_per_minute: int = Field(
        10, ge=1, description="Authorization codes one account may obtain per minute"
    )
    oauth_approvals_per_minute_per_address: int = Field(
        30, ge=1, description="Authorization codes one address may obtain per minute"
    )
    oauth_sign_in_failures_per_address: int = Field(
        10,
        ge=1,
        description="Failed sign-ins on the login page one address may make per 10 minutes",
    )

    # --- integration-test target ---
    test_mode: bool = Field(False, description="Serve the /_test/ scenario API (needs admin_token)")
    admin_token: str = Field("", description="Bearer token of the /_test/ API")
    deterministic: bool = Field(
        False, description="Ids from a seeded sequence and a fixed clock, for snapshot tests"
    )
    deterministic_seed: int = Field(0, description="Seed of the deterministic id sequence")
    deterministic_start: float = Field(
        1_767_225_600.0, description="Epoch seconds of the fixed clock (default 2026-01-01Z)"
    )
    record_dir: Path | None = Field(
        None, description="Write each request/response pair as JSON into this directory"
    )

    @field_validator(
        "cors_origins",
        "forwarded_allow_ips",
        "extra_skills",
        "disabled_skills",
        "jwt_algorithms",
        "jwt_plan_values",
        mode="before",
    )
    @classmethod
    def _comma_list(cls, value: object) -> object:
        return _split(value)

    @property
    def endpoint_url(self) -> str:
        return f"{self.public_url.rstrip('/')}/api/v1/a2a"

    @property
    def embedded(self) -> bool:
        return not self.redis_url

    @property
    def jwt_enabled(self) -> bool:
        return bool(self.jwt_issuer or self.oauth_issuer)

    @property
    def oauth_delegated(self) -> bool:
        """An external provider issues the tokens (``A2A_OAUTH_ISSUER`` or ``A2A_JWT_*``)."""
        return self.jwt_enabled

    @property
    def oauth_builtin(self) -> bool:
        if self.oauth_delegated:
            return False
        return (
            self.oauth_server
            if self.oauth_server is not None
            else (self.dev_mode or self.test_mode)
        )

    @property
    def playground_enabled(self) -> bool:
        if self.playground is not None:
            return self.playground
        return self.dev_mode or self.test_mode

    @model_validator(mode="after")
    def _consistent(self) -> Settings:
        if self.test_mode and len(self.admin_token) < 16:
            raise ValueError("A2A_TEST_MODE needs A2A_ADMIN_TOKEN of at least 16 characters")
        if self.jwt_issuer and not (
            self.jwt_audience and (self.jwt_jwks_url or self.jwt_jwks_file)
        ):
            raise ValueError(
                "A2A_JWT_ISSUER needs A2A_JWT_AUDIENCE and A2A_JWT_JWKS_URL or A2A_JWT_JWKS_FILE"
            )
        if self.oauth_server and self.oauth_delegated:
            raise ValueError(
                "A2A_OAUTH_SERVER cannot be on while A2A_OAUTH_ISSUER or A2A_JWT_ISSUER "
                "delegates to another provider"
            )
        for item in self.jwt_plan_values:
            value, _, plan = item.partition("=")
            if not value or plan not in PLANS:
                raise ValueError(f"A2A_JWT_PLAN_VALUES: {item!r} is not 'value=<plan>'")
        return self
