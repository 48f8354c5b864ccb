"""Fixtures: isolated settings, the test skill package registered by entry
point, the in-process harness, and the real Redis on 127.0.0.1:6379."""

from __future__ import annotations

import importlib
import os
import sys
import tomllib
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis as redis_sync

from magisterium_a2a.server.config import Settings
from tests.support import ROOT, AllSettings, Harness, a2a_schema, harness

REDIS_URL = "redis://127.0.0.1:6379/9"
PLUGIN_SRC = ROOT / "tests" / "plugins"


# The modules whose fixtures take longest (a fresh virtual environment, a corpus
# embedded by the model, real server processes) are collected first, so that under
# `make test`'s parallel workers none of them starts last and runs on alone. The
# order of the tests within a module is kept.
SLOW_FIRST = (
    "tests/test_deploy.py",
    "tests/test_knowledge_semantic.py",
    "tests/test_processes.py",
    "tests/test_hot_path.py",
    "tests/conformance/test_playground.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.partition("::")[0], len(SLOW_FIRST)))


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests never see the developer's own A2A_* settings."""
    for name in list(os.environ):
        if name.startswith("A2A_"):
            monkeypatch.delenv(name)


@pytest.fixture(scope="session")
def plugin_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Registers the test-only skill package through its entry point.

    The package's own pyproject declares the entry point; a dist-info written
    from it onto sys.path is exactly what an installed package leaves behind.
    """
    project = tomllib.loads((PLUGIN_SRC / "pyproject.toml").read_text())["project"]
    site = tmp_path_factory.mktemp("site")
    dist = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n"
    )
    lines = []
    for group, entries in project["entry-points"].items():
        lines.append(f"[{group}]")
        lines.extend(f"{name} = {value}" for name, value in entries.items())
    (dist / "entry_points.txt").write_text("\n".join(lines) + "\n")
    sys.path[:0] = [str(site), str(PLUGIN_SRC)]
    importlib.invalidate_caches()
    yield site
    for entry in (str(site), str(PLUGIN_SRC)):
        sys.path.remove(entry)


@pytest.fixture
def settings(tmp_path: Path, plugin_site: Path) -> Settings:
    return AllSettings(_env_file=None, data_dir=tmp_path / "data")  # type: ignore[call-arg]


@pytest.fixture
async def h(settings: Settings) -> AsyncIterator[Harness]:
    async with harness(settings) as running:
        yield running


def redis_reachable() -> bool:
    try:
        return bool(redis_sync.Redis.from_url(REDIS_URL, socket_connect_timeout=0.5).ping())
    except redis_sync.RedisError:
        return False


@pytest.fixture(scope="session")
def real_redis() -> str:
    if not redis_reachable():
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true but no Redis answers on 127.0.0.1:6379")
        pytest.skip("no Redis on 127.0.0.1:6379 (start redis-server, or run in CI)")
    return REDIS_URL


@pytest.fixture
def redis_settings(settings: Settings, real_redis: str) -> Iterator[Settings]:
    """Settings on the real Redis, under a key prefix of this test's own."""
    prefix = f"test-{uuid.uuid4().hex[:12]}"
    # A generous timeout: `make test` runs several test processes on a machine that may
    # be busy, and a connection that takes 2 s to open must not turn into a -32603 in a
    # test about something else (the tests of timeouts set their own).
    update = {"redis_url": real_redis, "key_prefix": prefix, "redis_timeout_seconds": 10.0}
    yield settings.model_copy(update=update)
    client = redis_sync.Redis.from_url(real_redis)
    keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
    if keys:
        client.delete(*keys)


@pytest.fixture
def redis_client(real_redis: str) -> Iterator[redis_sync.Redis]:
    client = redis_sync.Redis.from_url(real_redis)
    yield client
    client.close()


@pytest.fixture(scope="session")
def schema() -> dict[str, Any]:
    loaded = a2a_schema()
    if loaded is None:
        pytest.skip("../shared/refdata/a2a-v0.3/a2a.json is absent")
    return loaded
