"""Fixtures: isolated settings, the test skill package registered by entry
point, the in-process harness, and the real Redis on 127.0.0.1:6379."""

from __future__ import annotations

import importlib
import os
import sys
import threading
import tomllib
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis as redis_sync
import romcal

from magisterium_a2a.server.config import Settings
from tests.support import ROOT, AllSettings, Harness, a2a_schema, harness

REDIS_URL = "redis://127.0.0.1:6379/9"
PLUGIN_SRC = ROOT / "tests" / "plugins"


# `make test` runs the suite on pytest-xdist's workers with `--dist loadscope`: each module
# is one unit of work (one worker runs all of it, so its module fixtures are built once),
# except the golden set (tests/test_answers.py), whose skills are one unit each, as are
# its checks over every skill at once and its held-out sets (see _Units). The units go out
# in the order below, longest first, so that none of the long ones starts last and runs on
# alone; `--no-loadscope-reorder` keeps xdist from putting the modules with the most tests
# first instead. The order of the tests within a unit is kept.
SLOW_FIRST = (
    "tests/test_deploy.py",
    "tests/conformance/test_tck.py",
    "tests/test_processes.py",
    "tests/conformance/test_card_resolvers.py",
    "tests/conformance/test_oauth_clients.py",
    "tests/test_testmode_cli.py",
    "tests/test_knowledge_semantic.py",
    "tests/conformance/test_playground.py",
    "tests/test_read_deadline.py",
    "tests/test_fuzz.py",
    "tests/test_language.py",
)
GOLDEN = "tests/test_answers.py"
GOLDEN_UNITS = (
    "test_each_skill_is_above_the_floor",  # one unit per skill
    "test_overall_and_every_language_above_the_floor",
    "test_the_held_out_sets_are_above_the_same_floors",
)


def unit_of(nodeid: str) -> str | None:
    """The golden set's unit of a test, None for a test of loadscope's own units."""
    module, _, rest = nodeid.partition("::")
    name, _, param = rest.partition("[")
    if module != GOLDEN or name not in GOLDEN_UNITS:
        return None
    return f"{module}::{param.rstrip(']')}" if name == GOLDEN_UNITS[0] else f"{module}::{name}"


def _rank(item: pytest.Item) -> tuple[int, int]:
    module = item.nodeid.partition("::")[0]
    if module in SLOW_FIRST:
        return (0, SLOW_FIRST.index(module))
    if unit_of(item.nodeid) is not None:
        return (1, 0)  # the golden set's units, right after the slowest modules
    return (2, 0)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=_rank)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """loadscope's scheduler, with the golden set's units of its own."""
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class _Units(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return unit_of(nodeid) or super()._split_scope(nodeid)

    return _Units(config, log)


class _SharedRomcal:
    """One romcal calendar of one configuration, shared by every app a test process
    builds, with the years it has computed.

    The in-process harness builds the whole app, and with it the liturgy engine, for
    each test: two calendars of two romcal objects each, and each of their years, the
    same every time (about 0.3 s of CPU per app). romcal's objects hold only their
    configuration and the calendars they return are read, never changed, so a test
    process builds each configuration and each year once; what the app does with them
    is unchanged. (A server process builds its engine once; this is for the tests.)"""

    def __init__(self, inner: romcal.Romcal) -> None:
        self._inner = inner
        self._years: dict[int, Any] = {}
        self._lock = threading.Lock()

    def liturgical_calendar(self, year: int) -> Any:
        with self._lock:
            if year not in self._years:
                self._years[year] = self._inner.liturgical_calendar(year)
            return self._years[year]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


@pytest.fixture(scope="session", autouse=True)
def _shared_romcal() -> Iterator[None]:
    real = romcal.Romcal
    built: dict[tuple[Any, ...], tuple[_SharedRomcal, list[Any]]] = {}
    lock = threading.Lock()

    def shared(**options: Any) -> _SharedRomcal:
        # The definitions and resources are romcal's bundled objects, read once per
        # process; the key names them by identity and the entry keeps them alive.
        definitions = list(options.get("calendar_definitions") or ())
        resources = list(options.get("resources") or ())
        plain = {k: v for k, v in options.items() if k not in {"calendar_definitions", "resources"}}
        key = (*sorted(plain.items()), tuple(map(id, definitions)), tuple(map(id, resources)))
        held = [*definitions, *resources]
        with lock:
            if key not in built:
                built[key] = (_SharedRomcal(real(**options)), held)
            return built[key][0]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(romcal, "Romcal", shared)
        yield


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
