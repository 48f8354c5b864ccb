"""The operator's command line, ``magisterium-a2a``: one module per command group."""

from __future__ import annotations

import sys

import typer

from magisterium_a2a.server.cli.ask import ask_cli
from magisterium_a2a.server.cli.content import content_cli
from magisterium_a2a.server.cli.doctor import doctor
from magisterium_a2a.server.cli.knowledge import knowledge_cli
from magisterium_a2a.server.cli.serve import serve
from magisterium_a2a.server.cli.tokens import tokens_cli
from magisterium_a2a.server.testmode.cli import test_cli

cli = typer.Typer(help="Self-hostable Magisterium AI A2A server.", no_args_is_help=True)
cli.command()(serve)
cli.command()(doctor)
cli.add_typer(tokens_cli, name="tokens")
cli.add_typer(test_cli, name="test")
cli.add_typer(content_cli, name="content")
cli.add_typer(knowledge_cli)
cli.add_typer(ask_cli)


def main() -> None:
    try:
        cli()
    except KeyboardInterrupt:
        sys.exit(130)
