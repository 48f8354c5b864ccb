"""What every command shares: the settings loader and the error console."""

from __future__ import annotations

from typing import TypeVar

import typer
from pydantic import ValidationError
from rich.console import Console

from magisterium_a2a.plugin import PluginSettings
from magisterium_a2a.server.config import Settings

err = Console(stderr=True)
S = TypeVar("S", bound=PluginSettings)


def load_settings() -> Settings:
    """Settings from the environment, or a readable error and exit code 2."""
    try:
        return Settings()
    except ValidationError as exc:
        err.print(f"[red]Invalid configuration:[/red]\n{exc}")
        raise typer.Exit(2) from None


def load_family(kind: type[S]) -> S:
    """A skill family's settings from the environment, or a readable error and exit code 2."""
    try:
        return kind()
    except ValidationError as exc:
        err.print(f"[red]Invalid configuration:[/red]\n{exc}")
        raise typer.Exit(2) from None
