"""The operator's command line: ``serve`` and ``tokens``."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Annotated, TypeVar

import typer
import uvicorn
from pydantic import ValidationError
from rich.console import Console
from rich.panel import Panel
from rich.table import Table

from app.auth import DEMO_TOKENS, TokenRecord, TokenStore, hash_token, new_token
from app.config import PLANS, Settings
from app.main import create_app, token_store
from app.storage import Keys, connect

T = TypeVar("T")

cli = typer.Typer(help="Self-hostable Magisterium AI A2A server.", no_args_is_help=True)
tokens_cli = typer.Typer(help="Issue, list and revoke API tokens.", no_args_is_help=True)
cli.add_typer(tokens_cli, name="tokens")
err = Console(stderr=True)


def load_settings() -> Settings:
    try:
        return Settings()
    except ValidationError as exc:
        err.print(f"[red]Invalid configuration:[/red]\n{exc}")
        raise typer.Exit(2) from None


@cli.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to bind")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port")] = 8000,
    workers: Annotated[int, typer.Option(min=1, help="Worker processes (needs Redis if > 1)")] = 1,
    dev: Annotated[bool, typer.Option("--dev", help="Development mode: demo tokens")] = False,
) -> None:
    """Run the HTTP server."""
    if dev:
        os.environ["A2A_DEV_MODE"] = "1"
    settings = load_settings()
    if workers > 1 and settings.embedded:
        err.print(
            "[red]--workers > 1 needs a shared store:[/red] set A2A_REDIS_URL "
            "(the embedded store lives inside one process)."
        )
        raise typer.Exit(2)
    if settings.dev_mode:
        _dev_banner(host, port)
    common = {
        "host": host,
        "port": port,
        "log_level": settings.log_level,
        "timeout_graceful_shutdown": 30,
    }
    if workers == 1:
        uvicorn.run(create_app(settings), **common)  # type: ignore[arg-type]
    else:
        uvicorn.run("app.main:app_from_env", factory=True, workers=workers, **common)  # type: ignore[arg-type]


def _dev_banner(host: str, port: int) -> None:
    lines = [
        "[bold]Development mode.[/bold] These well-known demo tokens are accepted:",
        "",
        *(f"  {plan:<13} [bold cyan]{token}[/bold cyan]" for token, plan in DEMO_TOKENS.items()),
        "",
        "Try:",
        f"  curl -s http://{host}:{port}/api/v1/a2a -H 'Authorization: Bearer demo-pro' \\",
        '    -H \'Content-Type: application/json\' -d \'{"jsonrpc":"2.0","id":1,'
        '"method":"tasks/get","params":{"id":"x"}}\'',
        "",
        "[bold red]Never run development mode where others can reach it.[/bold red]",
    ]
    Console().print(Panel("\n".join(lines), title="magisterium-a2a", border_style="yellow"))


def _with_tokens(settings: Settings, action: Callable[[TokenStore], Awaitable[T]]) -> T:
    async def run() -> T:
        redis = connect(settings)
        try:
            return await action(token_store(settings, redis, Keys(settings.key_prefix)))
        finally:
            await redis.aclose()

    try:
        return asyncio.run(run())
    except (OSError, ConnectionError) as exc:
        err.print(f"[red]Cannot reach the token store:[/red] {type(exc).__name__}")
        raise typer.Exit(1) from None


@tokens_cli.command("create")
def tokens_create(
    user: Annotated[str, typer.Option(help="User id the token acts for")],
    plan: Annotated[str, typer.Option(help="free, pro, organization or enterprise")],
    expires_in: Annotated[
        int | None, typer.Option(min=1, help="Seconds until the token expires")
    ] = None,
    per_minute: Annotated[
        int | None, typer.Option(min=1, help="Enterprise: default-bucket requests per minute")
    ] = None,
    qa_per_minute: Annotated[
        int | None, typer.Option(min=1, help="Enterprise: expensive-bucket requests per minute")
    ] = None,
) -> None:
    """Issue a token; it is printed once, alone, on the last line."""
    if plan not in PLANS:
        err.print(f"[red]Unknown plan {plan!r};[/red] choose one of {', '.join(PLANS)}.")
        raise typer.Exit(2)
    if plan != "enterprise" and (per_minute or qa_per_minute):
        err.print("[red]Per-user limits apply to the enterprise plan only.[/red]")
        raise typer.Exit(2)
    if not user.strip():
        err.print("[red]--user must not be empty.[/red]")
        raise typer.Exit(2)
    settings = load_settings()
    now = time.time()
    record = TokenRecord(
        user_id=user,
        plan=plan,
        created_at=now,
        expires_at=now + expires_in if expires_in else None,
        per_minute=per_minute,
        qa_per_minute=qa_per_minute,
    )
    token = new_token()
    _with_tokens(settings, lambda store: store.put(hash_token(token), record))
    expiry = _when(record.expires_at) if record.expires_at else "never"
    token_id = hash_token(token)[:12]
    typer.echo(f"Token for user {user!r}, plan {plan}, expires {expiry}, id {token_id}.")
    typer.echo("Store it now: it is not shown again.")
    typer.echo(token)


@tokens_cli.command("revoke")
def tokens_revoke(
    token: Annotated[str, typer.Argument(help="The token, or its id from 'tokens list'")],
) -> None:
    """Revoke a token at once."""
    settings = load_settings()

    async def revoke(store: TokenStore) -> str | None:
        exact = hash_token(token)
        if await store.delete(exact):
            return exact
        matches = [h for h in await store.all() if len(token) >= 8 and h.startswith(token)]
        if len(matches) > 1:
            err.print(f"[red]{token!r} matches {len(matches)} tokens; give more of the id.[/red]")
            raise typer.Exit(1)
        if matches and await store.delete(matches[0]):
            return matches[0]
        return None

    revoked = _with_tokens(settings, revoke)
    if revoked is None:
        err.print("[red]No such token.[/red]")
        raise typer.Exit(1)
    typer.echo(f"Revoked token {revoked[:12]}.")


@tokens_cli.command("list")
def tokens_list() -> None:
    """List tokens (their ids, never the tokens themselves)."""
    settings = load_settings()
    records = _with_tokens(settings, lambda store: store.all())
    table = Table("id", "user", "plan", "created", "expires", "limits/min")
    now = time.time()
    for token_hash, record in sorted(records.items(), key=lambda item: item[1].created_at):
        expires = _when(record.expires_at) if record.expires_at else "never"
        if record.expires_at and record.expires_at <= now:
            expires += " (expired)"
        limits = (
            f"{record.per_minute or '-'} / {record.qa_per_minute or '-'}"
            if record.plan == "enterprise"
            else ""
        )
        table.add_row(
            token_hash[:12], record.user_id, record.plan, _when(record.created_at), expires, limits
        )
    Console().print(table)


def _when(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d %H:%M:%SZ")


def main() -> None:
    try:
        cli()
    except KeyboardInterrupt:
        sys.exit(130)
