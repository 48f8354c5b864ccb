"""``magisterium-a2a doctor``: check the configuration and what the server
depends on, the way the server itself would meet them at start-up."""

from __future__ import annotations

import asyncio
import time
from typing import Annotated
from urllib.parse import urlsplit, urlunsplit

import typer
from redis.exceptions import RedisError
from rich.console import Console

from magisterium_a2a.plugin import SkillEnvironment
from magisterium_a2a.server.cli.common import err, load_family, load_settings
from magisterium_a2a.server.cli.knowledge import knowledge_report
from magisterium_a2a.server.cli.remote import ask
from magisterium_a2a.server.clock import SystemClock
from magisterium_a2a.server.config import Settings
from magisterium_a2a.server.errors import RPCError
from magisterium_a2a.server.features import features, lines
from magisterium_a2a.server.oauth.delegation import DiscoveryError, discover
from magisterium_a2a.server.oauth.setup import DelegationError, delegated_jwt_settings
from magisterium_a2a.server.oidc import JWTVerifier
from magisterium_a2a.server.registry import SkillLoadError, SkillRegistry
from magisterium_a2a.server.runtime import token_store
from magisterium_a2a.server.storage import Keys, connect
from magisterium_a2a.skills.knowledge.settings import KnowledgeSettings

out = Console(soft_wrap=True, highlight=False)


def doctor(
    url: Annotated[
        str | None,
        typer.Argument(help="A running server's base URL: ask it what it runs with"),
    ] = None,
    dev: Annotated[
        bool,
        typer.Option("--dev", help="Check as 'serve --dev' and 'make run' run: development mode"),
    ] = False,
) -> None:
    """Say what the server runs with (mode, features) and check the configuration, the store,
    the skills, the documents and the identity provider; or, given a URL, ask a running server."""
    if url is not None:
        _remote(url)
        return
    settings = load_settings()
    if dev:
        settings = settings.model_copy(update={"dev_mode": True})
    _rows(lines(features(settings)))
    out.print(f"[bold]data directory:[/bold] {settings.data_dir}")
    problems = (
        _store(settings) + _skills(settings) + knowledge_report(load_family(KnowledgeSettings))
    )
    problems += _identity(settings)
    _warnings(settings)
    if problems:
        err.print(f"[red]{problems} problem(s) found.[/red]")
        raise typer.Exit(1)
    out.print("[green]All checks passed.[/green]")


def _rows(rows: list[tuple[str, str]]) -> None:
    for label, value in rows:
        out.print(f"[bold]{label}:[/bold] {value}")


def _remote(url: str) -> None:
    found = ask(url)
    _rows(found.rows)
    for note in found.notes:
        out.print(f"[yellow]note:[/yellow] {note}")
    for problem in found.problems:
        err.print(f"[red]{problem}[/red]")
    if found.problems:
        raise typer.Exit(1)
    out.print("[green]The server answers.[/green]")


def redacted(url: str) -> str:
    """The URL without its password."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def _store(settings: Settings) -> int:
    async def check() -> tuple[float, int]:
        redis = connect(settings)
        try:
            started = time.monotonic()
            await redis.ping()
            elapsed = (time.monotonic() - started) * 1000
            tokens = await token_store(settings, redis, Keys(settings.key_prefix)).all()
            return elapsed, len(tokens)
        finally:
            await redis.aclose()

    try:
        elapsed, tokens = asyncio.run(check())
    except (OSError, RedisError, RuntimeError) as exc:
        err.print(f"[red]task store: {redacted(settings.redis_url)} does not answer:[/red] {exc}")
        return 1
    if settings.embedded:
        where = (
            "embedded (in-process; one server process only), "
            f"tokens in {settings.data_dir / 'tokens.json'}"
        )
    else:
        where = f"Redis at {redacted(settings.redis_url)}, answered in {elapsed:.1f} ms"
    out.print(f"[bold]task store:[/bold] {where}; {tokens} token(s)")
    return 0


def _skills(settings: Settings) -> int:
    env = SkillEnvironment(clock=SystemClock(), data_dir=settings.data_dir)
    try:
        registry = SkillRegistry.load(
            env, extra=settings.extra_skills, disabled=settings.disabled_skills
        )
    except SkillLoadError as exc:
        err.print(f"[red]skills:[/red] {exc}")
        return 1
    finally:
        asyncio.run(env.close())
    listed = ", ".join(f"{skill.id} ({skill.cost.value})" for skill in registry)
    out.print(f"[bold]skills:[/bold] {len(registry)}: {listed}")
    return 0 if settings.default_skill in registry else _missing_default(settings)


def _missing_default(settings: Settings) -> int:
    err.print(
        f"[red]skills:[/red] the default skill {settings.default_skill!r} is not registered; "
        "messages without metadata.skillId will answer -32002"
    )
    return 1


def _identity(settings: Settings) -> int:
    if not settings.jwt_enabled:
        oauth = "on" if settings.oauth_builtin else "off (A2A_OAUTH_SERVER)"
        out.print(
            "[bold]identity:[/bold] opaque tokens (no A2A_OAUTH_ISSUER or A2A_JWT_ISSUER); "
            f"the built-in OAuth server is {oauth}"
        )
        return 0
    provider = None
    if settings.oauth_issuer:
        try:
            provider = asyncio.run(
                discover(settings.oauth_issuer, settings.redis_timeout_seconds * 2)
            )
        except DiscoveryError as exc:
            err.print(f"[red]identity:[/red] {exc}")
            return 1
    try:
        settings = delegated_jwt_settings(settings, provider)
    except DelegationError as exc:
        err.print(f"[red]identity:[/red] {exc}")
        return 1
    verifier = JWTVerifier(settings, SystemClock())
    try:
        keys = asyncio.run(verifier.key_count())
    except RPCError:
        source = settings.jwt_jwks_url or settings.jwt_jwks_file
        err.print(f"[red]identity:[/red] the JWKS at {source} cannot be read")
        return 1
    out.print(
        f"[bold]identity:[/bold] opaque tokens and JWTs of {settings.jwt_issuer} "
        f"(audience {settings.jwt_audience!r}, plan claim {settings.jwt_plan_claim!r}); "
        f"the JWKS holds {keys} key(s)"
    )
    return 0


def _warnings(settings: Settings) -> None:
    if settings.dev_mode:
        out.print("[yellow]warning:[/yellow] development mode: the demo tokens are accepted")
    if settings.test_mode:
        out.print("[yellow]warning:[/yellow] test mode: the /_test/ API is mounted")
    if settings.record_dir is not None:
        out.print(f"[yellow]warning:[/yellow] every request is recorded in {settings.record_dir}")
    if "*" in settings.cors_origins:
        out.print("note: any browser origin may call the endpoint (A2A_CORS_ORIGINS=*)")
    if not (settings.dev_mode or settings.test_mode):
        out.print(
            "note: these are this environment's settings; 'make run' adds development mode "
            "('make doctor' or 'doctor --dev' checks that), and "
            "'magisterium-a2a doctor http://127.0.0.1:8000' asks a running server"
        )
