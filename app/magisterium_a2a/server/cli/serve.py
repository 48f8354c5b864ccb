"""``magisterium-a2a serve``: run the HTTP server."""

from __future__ import annotations

import os
import tempfile
from typing import Annotated, Any

import typer
import uvicorn
from rich.console import Console
from rich.panel import Panel

from magisterium_a2a.server import transport
from magisterium_a2a.server.cli.common import err, load_settings
from magisterium_a2a.server.config import Settings
from magisterium_a2a.server.main import create_app
from magisterium_a2a.server.observability import logging_config
from magisterium_a2a.server.tokens import DEMO_TOKENS


def serve(
    host: Annotated[str, typer.Option(help="Interface to bind")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port")] = 8000,
    workers: Annotated[int, typer.Option(min=1, help="Worker processes (needs Redis if > 1)")] = 1,
    dev: Annotated[bool, typer.Option("--dev", help="Development mode: demo tokens")] = False,
) -> None:
    """Run the HTTP server."""
    if dev:
        # Worker processes read their settings from the environment.
        os.environ["A2A_DEV_MODE"] = "1"
    settings = _listening_at(load_settings(), host, port)
    if workers > 1 and settings.embedded:
        err.print(
            "[red]--workers > 1 needs a shared store:[/red] set A2A_REDIS_URL "
            "(the embedded store lives inside one process)."
        )
        raise typer.Exit(2)
    if settings.dev_mode:
        _dev_banner(settings)
    options: dict[str, Any] = {
        "host": host,
        "port": port,
        "log_config": logging_config(settings.log_level, settings.log_format),
        "access_log": False,
        "timeout_graceful_shutdown": 30,
        "http": transport.configure(settings),
        # X-Forwarded-For is believed from the proxies named, and from no one else
        # (uvicorn's own default trusts 127.0.0.1: anyone beside the proxy).
        "proxy_headers": bool(settings.forwarded_allow_ips),
        "forwarded_allow_ips": ",".join(settings.forwarded_allow_ips) or "",
    }
    if workers == 1:
        uvicorn.run(create_app(settings), **options)
        return
    with tempfile.TemporaryDirectory(prefix="magisterium-metrics-") as metrics_dir:
        # Workers count into files here, so /metrics on any worker shows them all.
        os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", metrics_dir)
        uvicorn.run(
            "magisterium_a2a.server.main:app_from_env", factory=True, workers=workers, **options
        )


def _listening_at(settings: Settings, host: str, port: int) -> Settings:
    """Without ``A2A_PUBLIC_URL``, the public URL is where this server listens, so
    ``serve --port 8100`` names port 8100 in its card and OAuth documents."""
    if "public_url" in settings.model_fields_set:
        return settings
    shown = "127.0.0.1" if host in ("", "0.0.0.0", "::") else host
    if ":" in shown:
        shown = f"[{shown}]"
    public_url = f"http://{shown}:{port}"
    # Worker processes read their settings from the environment.
    os.environ["A2A_PUBLIC_URL"] = public_url
    return settings.model_copy(update={"public_url": public_url})


def _dev_banner(settings: Settings) -> None:
    base = settings.public_url.rstrip("/")
    lines = [
        "[bold]Development mode.[/bold] These well-known demo tokens are accepted:",
        "",
        *(f"  {plan:<13} [bold cyan]{token}[/bold cyan]" for token, plan in DEMO_TOKENS.items()),
        "",
        f"Playground: [bold]{base}/[/bold]" if settings.playground_enabled else "Playground: off",
        f"Agent card: {base}/.well-known/agent.json",
        f"Endpoint:   {base}/api/v1/a2a",
        f"Limits:     {settings.limit_default_per_minute}/min, "
        f"{settings.limit_expensive_per_minute}/min for catholic_qa (pro, organization; "
        "A2A_LIMIT_DEFAULT_PER_MINUTE, A2A_LIMIT_EXPENSIVE_PER_MINUTE)",
        "",
        "[bold red]Never run development mode where others can reach it.[/bold red]",
    ]
    Console().print(Panel("\n".join(lines), title="magisterium-a2a", border_style="yellow"))
