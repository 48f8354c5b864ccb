"""``magisterium-a2a tokens``: issue, list and revoke opaque API tokens."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Annotated, TypeVar

import typer
from redis.exceptions import RedisError
from rich.console import Console
from rich.table import Table

from magisterium_a2a.server.cli.common import err, load_settings
from magisterium_a2a.server.config import Settings
from magisterium_a2a.server.identity import PLANS, hash_token
from magisterium_a2a.server.runtime import token_store
from magisterium_a2a.server.storage import Keys, connect
from magisterium_a2a.server.tokens import TokenRecord, TokenStore, new_token

T = TypeVar("T")

tokens_cli = typer.Typer(help="Issue, list and revoke API tokens.", no_args_is_help=True)


def _with_tokens(settings: Settings, action: Callable[[TokenStore], Awaitable[T]]) -> T:
    async def run() -> T:
        redis = connect(settings)
        try:
            return await action(token_store(settings, redis, Keys(settings.key_prefix)))
        finally:
            await redis.aclose()

    try:
        return asyncio.run(run())
    except (OSError, RedisError) as exc:
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
