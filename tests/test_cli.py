"""The operator commands: tokens create/list/revoke on both stores, and the
guards of serve."""

from __future__ import annotations

import asyncio
import os
import re

import pytest
from click.testing import Result
from typer.testing import CliRunner

from magisterium_a2a.server.cli import cli
from magisterium_a2a.server.cli.serve import _listening_at
from magisterium_a2a.server.config import Settings
from tests.support import harness

runner = CliRunner()


def env_of(settings: Settings) -> dict[str, str]:
    env = {"A2A_DATA_DIR": str(settings.data_dir), "A2A_KEY_PREFIX": settings.key_prefix}
    if settings.redis_url:
        env["A2A_REDIS_URL"] = settings.redis_url
    return env


async def invoke(settings: Settings, *args: str, env: dict[str, str] | None = None) -> Result:
    """The command in a thread: it runs its own event loop, as it does from a shell."""
    return await asyncio.to_thread(runner.invoke, cli, list(args), env=env or env_of(settings))


async def create(settings: Settings, *args: str) -> str:
    result = await invoke(settings, "tokens", "create", *args)
    assert result.exit_code == 0, result.output
    token = result.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"mag_[A-Za-z0-9_-]{43}", token)
    return token


@pytest.mark.parametrize("store", ["embedded", "redis"])
async def test_token_lifecycle_against_a_running_server(
    store: str, settings: Settings, request: pytest.FixtureRequest
) -> None:
    if store == "redis":
        settings = request.getfixturevalue("redis_settings")
    token = await create(settings, "--user", "lena", "--plan", "pro")
    async with harness(settings) as h:
        assert (await h.send(token)).status_code == 200
        listed = await invoke(settings, "tokens", "list")
        assert listed.exit_code == 0
        assert "lena" in listed.stdout
        assert token not in listed.stdout
        revoked = await invoke(settings, "tokens", "revoke", token)
        assert revoked.exit_code == 0, revoked.output
        assert (await h.send(token)).status_code == 401
    again = await invoke(settings, "tokens", "revoke", token)
    assert again.exit_code == 1


async def test_revoke_by_listed_id(settings: Settings) -> None:
    token = await create(settings, "--user", "mia", "--plan", "organization")
    listed = (await invoke(settings, "tokens", "list")).stdout
    token_id = re.search(r"\b([0-9a-f]{12})\b", listed)
    assert token_id is not None
    assert (await invoke(settings, "tokens", "revoke", token_id.group(1))).exit_code == 0
    async with harness(settings) as h:
        assert (await h.send(token)).status_code == 401


async def test_enterprise_limits_and_expiry_from_the_cli(settings: Settings) -> None:
    token = await create(
        settings,
        "--user",
        "ned",
        "--plan",
        "enterprise",
        "--per-minute",
        "1",
        "--expires-in",
        "3600",
    )
    async with harness(settings) as h:
        assert (await h.send(token)).status_code == 200
        assert (await h.send(token)).status_code == 429
    listed = (await invoke(settings, "tokens", "list")).stdout
    assert "1 / -" in listed


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--user", "x", "--plan", "gold"], "Unknown plan"),
        (["--user", "x", "--plan", "pro", "--per-minute", "5"], "enterprise plan only"),
        (["--user", " ", "--plan", "pro"], "must not be empty"),
        (["--user", "x", "--plan", "pro", "--expires-in", "0"], "greater than or equal to 1"),
    ],
)
def test_create_rejects_bad_input(settings: Settings, args: list[str], message: str) -> None:
    result = runner.invoke(cli, ["tokens", "create", *args], env=env_of(settings))
    assert result.exit_code == 2
    assert message in result.output


def test_unreachable_redis_is_a_clear_error(settings: Settings) -> None:
    env = {
        **env_of(settings),
        "A2A_REDIS_URL": "redis://127.0.0.1:1/0",
        "A2A_REDIS_TIMEOUT_SECONDS": "0.5",
    }
    result = runner.invoke(cli, ["tokens", "list"], env=env)
    assert result.exit_code == 1
    assert "Cannot reach the token store" in result.output


def test_invalid_configuration_is_a_clear_error(settings: Settings) -> None:
    result = runner.invoke(cli, ["tokens", "list"], env={"A2A_TASK_TTL_SECONDS": "soon"})
    assert result.exit_code == 2
    assert "Invalid configuration" in result.output
    assert "task_ttl_seconds" in result.output


def test_serve_refuses_workers_without_redis(settings: Settings) -> None:
    result = runner.invoke(cli, ["serve", "--workers", "2"], env=env_of(settings))
    assert result.exit_code == 2
    assert "needs a shared store" in result.output


@pytest.mark.parametrize(
    ("host", "public_url"),
    [
        ("127.0.0.1", "http://127.0.0.1:8100"),
        ("0.0.0.0", "http://127.0.0.1:8100"),
        ("::1", "http://[::1]:8100"),
        ("localhost", "http://localhost:8100"),
    ],
)
def test_serve_names_where_it_listens_unless_told(
    monkeypatch: pytest.MonkeyPatch, host: str, public_url: str
) -> None:
    """`serve --port 8100` puts port 8100 in its card and OAuth documents (and in the
    environment its worker processes read); A2A_PUBLIC_URL, when set, wins."""
    monkeypatch.delenv("A2A_PUBLIC_URL", raising=False)
    chosen = _listening_at(Settings(_env_file=None), host, 8100)  # type: ignore[call-arg]
    assert chosen.public_url == public_url
    assert chosen.endpoint_url == f"{public_url}/api/v1/a2a"
    assert os.environ["A2A_PUBLIC_URL"] == public_url
    monkeypatch.setenv("A2A_PUBLIC_URL", "https://a2a.example.org")
    told = _listening_at(Settings(_env_file=None), host, 8100)  # type: ignore[call-arg]
    assert told.public_url == "https://a2a.example.org"
