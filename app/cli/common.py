"""What every command shares: the settings loader and the error console."""

from __future__ import annotations

import typer
from pydantic import ValidationError
from rich.console import Console

from app.config import Settings

err = Console(stderr=True)


def load_settings() -> Settings:
    """Settings from the environment, or a readable error and exit code 2."""
    try:
        return Settings()
    except ValidationError as exc:
        err.print(f"[red]Invalid configuration:[/red]\n{exc}")
        raise typer.Exit(2) from None
