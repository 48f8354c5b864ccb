"""``magisterium-a2a test``: drive a server's test mode (its /_test/ API)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import httpx
import typer

from magisterium_a2a.server.cli.common import err, load_settings
from magisterium_a2a.testing.admin_client import AdminClient, AdminError

T = TypeVar("T")

test_cli = typer.Typer(
    help="Scenarios, clock and reset of a server started with A2A_TEST_MODE=1.",
    no_args_is_help=True,
)

Url = Annotated[str | None, typer.Option(help="Server base URL (default: A2A_PUBLIC_URL)")]
Admin = Annotated[str | None, typer.Option(help="Admin token (default: A2A_ADMIN_TOKEN)")]


def _run(url: str | None, admin_token: str | None, action: Callable[[AdminClient], T]) -> T:
    settings = load_settings()
    client = AdminClient(url or settings.public_url, admin_token or settings.admin_token)
    try:
        return action(client)
    except AdminError as exc:
        err.print(f"[red]{exc}[/red]")
        raise typer.Exit(1) from None
    except httpx.HTTPError as exc:
        err.print(f"[red]Cannot reach the server:[/red] {exc}")
        raise typer.Exit(1) from None
    finally:
        client.close()


def _show(value: Any) -> None:
    typer.echo(json.dumps(value, indent=2))


@test_cli.command("token")
def token(
    plan: Annotated[str, typer.Option(help="free, pro, organization or enterprise")],
    user: Annotated[str | None, typer.Option(help="User id (default: a new one)")] = None,
    url: Url = None,
    admin_token: Admin = None,
) -> None:
    """Issue a token through the test API; printed alone on the last line."""
    typer.echo(_run(url, admin_token, lambda c: c.issue_token(plan, user)))


@test_cli.command("scenario")
def scenario(
    token: Annotated[str, typer.Option(help="The bearer token it applies to")],
    kind: Annotated[str, typer.Option(help="error, fail or latency")],
    code: Annotated[int | None, typer.Option(help="error: JSON-RPC code")] = None,
    a2a_version: Annotated[
        str, typer.Option("--a2a-version", help="error: the A2A version of the code: 0.3 or 1.0")
    ] = "0.3",
    count: Annotated[int, typer.Option(help="How many calls")] = 1,
    method: Annotated[str | None, typer.Option(help="Only this JSON-RPC method")] = None,
    skill: Annotated[str | None, typer.Option(help="Only this skill")] = None,
    retry_after: Annotated[
        int | None, typer.Option(help="error -32003 (0.3) / -31429 (1.0): retryAfter")
    ] = None,
    message: Annotated[str | None, typer.Option(help="error message / failure text")] = None,
    latency_ms: Annotated[int | None, typer.Option(help="latency: milliseconds")] = None,
    url: Url = None,
    admin_token: Admin = None,
) -> None:
    """Add a scenario for the next COUNT calls of a token."""
    spec = {
        "token": token,
        "kind": kind,
        "code": code,
        "version": a2a_version,
        "count": count,
        "method": method,
        "skill": skill,
        "retryAfter": retry_after,
        "message": message,
        "latencyMs": latency_ms,
    }
    typer.echo(_run(url, admin_token, lambda c: c.add_scenario(**spec)))


@test_cli.command("scenarios")
def scenarios(
    token: Annotated[str, typer.Option(help="The bearer token")],
    url: Url = None,
    admin_token: Admin = None,
) -> None:
    """List a token's pending scenarios."""
    _show(_run(url, admin_token, lambda c: c.scenarios(token)))


@test_cli.command("clock")
def clock(
    set_to: Annotated[
        str | None, typer.Option("--set", help="New time: ISO 8601 or epoch seconds")
    ] = None,
    advance: Annotated[float | None, typer.Option(help="Seconds to move the clock")] = None,
    url: Url = None,
    admin_token: Admin = None,
) -> None:
    """Show, set or advance the server's clock."""
    if set_to is not None and advance is not None:
        err.print("[red]Give --set or --advance, not both.[/red]")
        raise typer.Exit(2)
    if set_to is not None:
        target: float | str = float(set_to) if set_to.replace(".", "", 1).isdigit() else set_to
        _show(_run(url, admin_token, lambda c: c.set_clock(target)))
    elif advance is not None:
        _show(_run(url, admin_token, lambda c: c.advance_clock(advance)))
    else:
        _show(_run(url, admin_token, lambda c: c.clock()))


@test_cli.command("expire")
def expire(
    task_id: Annotated[str, typer.Argument(help="The task id")],
    token: Annotated[str, typer.Option(help="The token of the task's owner")],
    url: Url = None,
    admin_token: Admin = None,
) -> None:
    """Expire a task now."""
    _run(url, admin_token, lambda c: c.expire_task(token, task_id))
    typer.echo(f"Expired {task_id}.")


@test_cli.command("reset")
def reset(url: Url = None, admin_token: Admin = None) -> None:
    """Forget tasks, buckets, scenarios and the clock (tokens stay)."""
    deleted = _run(url, admin_token, lambda c: c.reset())
    typer.echo(f"Reset ({deleted} keys).")
