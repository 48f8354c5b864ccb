"""The storage package: keys, the Lua scripts as shipped files with named
KEYS/ARGV, their verdicts on the real Redis and fakeredis, and loading them
again when the server forgot them."""

from __future__ import annotations

import asyncio
import re
import tomllib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from fnmatch import fnmatch

import fakeredis
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from redis.asyncio import Redis
from redis.asyncio.connection import Connection
from redis.crc import key_slot
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import DataError

from magisterium_a2a.server.config import Settings
from magisterium_a2a.server.storage import (
    AdmitArgs,
    AdmitKeys,
    Keys,
    ListArgs,
    ListKeys,
    Pipe,
    SaveArgs,
    SaveKeys,
    Scripts,
    Status,
    connect,
    hot_pipe,
)
from magisterium_a2a.server.storage.batching import MAX_BATCH
from magisterium_a2a.server.storage.connection import HiredisPacking
from magisterium_a2a.server.storage.scripts import LUA, source
from tests.support import ROOT

NOW = 1_800_000_000_000


@dataclass
class Store:
    redis: Redis
    keys: Keys
    pipe: Pipe | None = None

    def scripts(self) -> Scripts:
        """The scripts as the server runs them on this store."""
        return Scripts(self.redis, self.pipe)

    def save_keys(self, task_id: str, state: str = "completed", ctx: str = "ctx") -> SaveKeys:
        k = self.keys
        return SaveKeys(
            k.task("ada", task_id),
            k.context("ada", ctx),
            k.tasks("ada"),
            k.tasks_in_state("ada", state),
            k.tasks_in_context("ada", ctx),
        )

    def claim(
        self, user: str = "ada", token: str = "tok", limit: int = 2, now: int = NOW, n: int = 0
    ) -> tuple[AdmitKeys, AdmitArgs]:
        keys = AdmitKeys(self.keys.bucket(user, "default"), self.keys.revoked(user, token))
        return keys, AdmitArgs(now, 60_000, limit, f"{now}-{n}", 60_000)


@pytest.fixture(params=["fakeredis", "redis", "pipe"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    """fakeredis, or the real Redis under a key prefix of this test's own, through
    redis-py or, as the server runs its scripts on a plain redis:// URL, the pipe."""
    pipe = None
    if request.param == "fakeredis":
        redis: Redis = fakeredis.FakeAsyncRedis()
        prefix = "t"
    else:
        settings: Settings = request.getfixturevalue("redis_settings")
        redis, prefix = connect(settings), settings.key_prefix
        if request.param == "pipe":
            pipe = hot_pipe(settings)
            assert pipe is not None
    yield Store(redis, Keys(prefix), pipe)
    if pipe is not None:
        await pipe.aclose()
    await redis.aclose()


def test_every_script_names_its_keys_and_arguments_instead_of_positions() -> None:
    shipped = sorted(path.name for path in LUA.iterdir() if path.name.endswith(".lua"))
    assert shipped == [
        "admission.lua",
        "admit.lua",
        "admit_and_save.lua",
        "index.lua",
        "list.lua",
        "save.lua",
    ]
    for name in shipped:
        assert not re.search(r"\b(KEYS|ARGV)\s*\[", (LUA / name).read_text()), name
    text = source("admit_and_save", ("bucket", "task"), ("now_ms", "record"), ("admission",))
    assert text.startswith("local bucket, task = KEYS[1], KEYS[2]\n")
    assert "local now_ms, record = ARGV[1], ARGV[2]\n" in text
    assert text.index("local function admit()") < text.index("local verdict = admit()")


def test_the_wheel_ships_every_script() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = pyproject["tool"]["setuptools"]["package-data"]["magisterium_a2a.server.storage"]
    package = ROOT / "app" / "magisterium_a2a" / "server" / "storage"
    for path in package.rglob("*.lua"):
        relative = path.relative_to(package).as_posix()
        assert any(fnmatch(relative, pattern) for pattern in globs), relative


def test_one_users_keys_share_a_cluster_slot() -> None:
    keys = Keys("t")
    user = "u/1:{x}"
    names = [
        keys.task(user, "t1"),
        keys.context(user, "c1"),
        keys.tasks(user),
        keys.tasks_in_state(user, "completed"),
        keys.tasks_in_context(user, "c1"),
        keys.bucket(user, "default"),
        keys.bucket(user, "expensive"),
        keys.revoked(user, "tok"),
    ]
    assert len({key_slot(key.encode()) for key in names}) == 1
    assert keys.test_scenarios("h") != keys.test_counts("h")
    assert key_slot(keys.test_scenarios("h").encode()) == key_slot(keys.test_counts("h").encode())
    assert keys.is_credential_key(keys.token("abc")) and keys.is_credential_key(keys.token_index)
    assert not keys.is_credential_key(keys.task("token", "x"))


async def test_admit_gives_verdicts(store: Store) -> None:
    scripts, client, claim = store.scripts(), store.redis, store.claim
    first = await scripts.admit(*claim(n=1))
    assert (first.status, first.remaining, first.reset_ms) == (Status.ADMITTED, 1, 60_000)
    second = await scripts.admit(*claim(now=NOW + 1000, n=2))
    assert (second.status, second.remaining, second.reset_ms) == (Status.ADMITTED, 0, 59_000)
    full = await scripts.admit(*claim(now=NOW + 2000, n=3))
    assert (full.status, full.remaining, full.reset_ms) == (Status.LIMITED, 0, 58_000)
    later = await scripts.admit(*claim(now=NOW + 60_000, n=4))
    assert later.status is Status.ADMITTED
    await client.set(store.keys.revoked("ada", "tok"), b"1")
    revoked = await scripts.admit(*claim(now=NOW + 120_000, n=5))
    assert (revoked.status, revoked.remaining, revoked.reset_ms) == (Status.REVOKED, 0, 0)
    assert (await scripts.admit(*claim(token="other", now=NOW + 120_000, n=6))).status == (
        Status.ADMITTED
    )


async def test_admit_and_save_writes_only_when_admitted(store: Store) -> None:
    scripts, client, claim = store.scripts(), store.redis, store.claim

    def save(task_id: str) -> tuple[SaveKeys, SaveArgs]:
        return store.save_keys(task_id), SaveArgs(
            b"record " + task_id.encode(), 30, task_id, 2, NOW
        )

    for n, task_id in enumerate(["a", "b"]):
        verdict = await scripts.admit_and_save(*claim(n=n), *save(task_id))
        assert verdict.status is Status.ADMITTED
    refused = await scripts.admit_and_save(*claim(n=9), *save("c"))
    assert refused.status is Status.LIMITED
    assert await client.get(store.keys.task("ada", "a")) == b"record a"
    assert 0 < await client.ttl(store.keys.task("ada", "a")) <= 30
    assert await client.exists(store.keys.task("ada", "c")) == 0
    assert await client.lrange(store.keys.context("ada", "ctx"), 0, -1) == [b"a", b"b"]
    roomy = claim(limit=10, n=10)
    assert (await scripts.admit_and_save(*roomy, *save("d"))).status is Status.ADMITTED
    assert await client.lrange(store.keys.context("ada", "ctx"), 0, -1) == [b"b", b"d"]
    for index in (
        store.keys.tasks("ada"),
        store.keys.tasks_in_state("ada", "completed"),
        store.keys.tasks_in_context("ada", "ctx"),
    ):
        assert await client.zrange(index, 0, -1) == [b"a", b"b", b"d"], index
        assert 0 < await client.ttl(index) <= 30


@pytest.mark.parametrize("store", ["redis", "pipe"], indirect=True)
async def test_a_server_that_forgot_the_scripts_gets_them_again(store: Store) -> None:
    scripts, client, claim = store.scripts(), store.redis, store.claim
    assert (await scripts.admit(*claim(n=1))).status is Status.ADMITTED
    await client.script_flush()
    assert (await scripts.admit(*claim(n=2))).status is Status.ADMITTED
    assert (await scripts.admit(*claim(n=3))).status is Status.LIMITED


async def test_each_write_indexes_the_task_and_retires_what_the_ttl_ended(store: Store) -> None:
    scripts, client, keys = store.scripts(), store.redis, store.keys
    ttl = 60

    async def write(task_id: str, at: int, state: str = "completed", ctx: str = "ctx") -> None:
        args = SaveArgs(b"r", ttl, task_id, 50, at)
        await scripts.save(
            store.save_keys(task_id, state, ctx), args, keys.tasks_in_state("ada", state)
        )

    await write("old", NOW)
    await write("new", NOW + ttl * 1000, ctx="other")
    # "old" was written one TTL before "new": its task is gone, and so is its entry.
    assert await client.zrange(keys.tasks("ada"), 0, -1, withscores=True) == [
        (b"new", float(NOW + ttl * 1000))
    ]
    assert await client.zrange(keys.tasks_in_state("ada", "completed"), 0, -1) == [b"new"]
    # A set nobody writes to again keeps its entries only until its own TTL.
    assert await client.zrange(keys.tasks_in_context("ada", "ctx"), 0, -1) == [b"old"]
    assert 0 < await client.ttl(keys.tasks_in_context("ada", "ctx")) <= ttl
    # A task that changes state leaves its old state's set.
    moved = SaveArgs(b"r", ttl, "new", 50, NOW + ttl * 1000 + 5)
    await scripts.save(
        store.save_keys("new", "canceled", "other"), moved, keys.tasks_in_state("ada", "completed")
    )
    assert await client.zrange(keys.tasks_in_state("ada", "completed"), 0, -1) == []
    assert await client.zrange(keys.tasks_in_state("ada", "canceled"), 0, -1) == [b"new"]
    assert await client.zscore(keys.tasks("ada"), "new") == NOW + ttl * 1000 + 5


async def test_list_pages_through_an_index_newest_first(store: Store) -> None:
    scripts, keys = store.scripts(), store.keys
    # Five tasks, two of them written in the same millisecond.
    for n, at in enumerate([NOW, NOW + 1, NOW + 2, NOW + 2, NOW + 3]):
        state = "failed" if n == 1 else "completed"
        ctx = "even" if n % 2 == 0 else "odd"
        args = SaveArgs(b"r", 600, f"t{n}", 50, at)
        await scripts.save(
            store.save_keys(f"t{n}", state, ctx), args, keys.tasks_in_state("ada", state)
        )
    revoked = keys.revoked("ada", "tok")
    everything = ListKeys(keys.tasks("ada"), keys.tasks("ada"), revoked)

    async def pages(index: ListKeys, floor: int = NOW, size: int = 2) -> list[list[str]]:
        """Every page in turn; each counts all the matching tasks, not its own."""
        seen: list[list[str]] = []
        totals: set[int] = set()
        after = (0, "")
        while True:
            page = await scripts.list(index, ListArgs(floor, *after, size))
            seen.append([task_id for task_id, _ in page.entries])
            totals.add(page.total)
            if not page.more:
                assert totals == {sum(map(len, seen))}
                return seen
            after = (page.entries[-1][1], page.entries[-1][0])

    assert await pages(everything) == [["t4", "t3"], ["t2", "t1"], ["t0"]]
    assert (await scripts.list(everything, ListArgs(NOW, 0, "", 10))).total == 5
    # A lower bound on the write time counts from there.
    late = await scripts.list(everything, ListArgs(NOW + 2, 0, "", 10))
    assert (late.total, [i for i, _ in late.entries], late.more) == (3, ["t4", "t3", "t2"], False)
    assert late.entries[0] == ("t4", NOW + 3)
    # One filter reads its own index; two read one and check the other.
    completed = keys.tasks_in_state("ada", "completed")
    assert await pages(ListKeys(completed, completed, revoked)) == [["t4", "t3"], ["t2", "t0"]]
    even = keys.tasks_in_context("ada", "even")
    assert await pages(ListKeys(even, completed, revoked), size=1) == [["t4"], ["t2"], ["t0"]]
    odd = keys.tasks_in_context("ada", "odd")
    both = await scripts.list(ListKeys(odd, completed, revoked), ListArgs(NOW, 0, "", 10))
    assert (both.total, [i for i, _ in both.entries]) == (1, ["t3"])
    # A page whose last task has gone since resumes after that task's time.
    await store.redis.zrem(keys.tasks("ada"), "t3")
    resumed = await scripts.list(everything, ListArgs(NOW, NOW + 2, "t3", 10))
    assert [i for i, _ in resumed.entries] == ["t1", "t0"]
    nothing = await scripts.list(
        ListKeys(keys.tasks("bob"), keys.tasks("bob"), revoked), ListArgs(0, 0, "", 5)
    )
    assert (nothing.total, nothing.entries, nothing.more) == (0, [], False)
    await store.redis.set(revoked, b"1")
    assert (await scripts.list(everything, ListArgs(NOW, 0, "", 10))).total == -1


class CountingPipelines:
    """Counts the round trips a client makes: its pipelines and its direct EVALSHAs."""

    def __init__(self, redis: Redis) -> None:
        self.pipelines: list[int] = []
        self.direct = 0
        pipeline, evalsha = redis.pipeline, redis.evalsha

        def counted_pipeline(*args: object, **kwargs: object) -> object:
            pipe = pipeline(*args, **kwargs)  # type: ignore[arg-type]
            execute = pipe.execute

            async def counted_execute(*a: object, **k: object) -> object:
                self.pipelines.append(len(pipe.command_stack))
                return await execute(*a, **k)  # type: ignore[arg-type]

            pipe.execute = counted_execute  # type: ignore[method-assign]
            return pipe

        async def counted_evalsha(*args: object) -> object:
            self.direct += 1
            return await evalsha(*args)  # type: ignore[arg-type]

        redis.pipeline = counted_pipeline  # type: ignore[method-assign,assignment]
        redis.evalsha = counted_evalsha  # type: ignore[method-assign,assignment]


@pytest.mark.parametrize("store", ["fakeredis", "redis"], indirect=True)
async def test_the_calls_of_one_loop_turn_share_one_pipeline_and_stay_exact(store: Store) -> None:
    scripts, claim = store.scripts(), store.claim
    await scripts.admit(*claim(user="warm", n=-1))  # the server knows the script now
    rounds = CountingPipelines(store.redis)
    verdicts = await asyncio.gather(*(scripts.admit(*claim(limit=15, n=n)) for n in range(40)))
    # Forty requests against a bucket of fifteen: exactly fifteen admitted, in the
    # order they were made, in one round trip.
    assert [v.status for v in verdicts] == [Status.ADMITTED] * 15 + [Status.LIMITED] * 25
    assert [v.remaining for v in verdicts[:15]] == list(range(14, -1, -1))
    assert (rounds.pipelines, rounds.direct) == ([40], 0)
    # Alone, a call is sent as it is.
    assert (await scripts.admit(*claim(user="bob", n=99))).status is Status.ADMITTED
    assert (rounds.pipelines, rounds.direct) == ([40], 1)


@pytest.mark.parametrize("store", ["pipe"], indirect=True)
async def test_concurrent_calls_down_the_pipe_stay_exact_and_in_order(store: Store) -> None:
    scripts, claim = store.scripts(), store.claim
    verdicts = await asyncio.gather(*(scripts.admit(*claim(limit=15, n=n)) for n in range(40)))
    assert [v.status for v in verdicts] == [Status.ADMITTED] * 15 + [Status.LIMITED] * 25
    assert [v.remaining for v in verdicts[:15]] == list(range(14, -1, -1))


async def test_a_batch_is_capped_and_the_rest_goes_in_the_next() -> None:
    redis = fakeredis.FakeAsyncRedis()
    store = Store(redis, Keys("t"))
    scripts = Scripts(redis)
    await scripts.admit(*store.claim(user="warm", n=-1))
    rounds = CountingPipelines(redis)
    verdicts = await asyncio.gather(
        *(scripts.admit(*store.claim(limit=1000, n=n)) for n in range(MAX_BATCH + 5))
    )
    assert all(v.status is Status.ADMITTED for v in verdicts)
    assert sorted(rounds.pipelines) == [5, MAX_BATCH]


@pytest.mark.parametrize("store", ["redis", "pipe"], indirect=True)
async def test_a_pipeline_after_the_server_forgot_the_scripts(store: Store) -> None:
    scripts, client, claim = store.scripts(), store.redis, store.claim
    assert (await scripts.admit(*claim(n=0))).status is Status.ADMITTED
    await client.script_flush()
    verdicts = await asyncio.gather(*(scripts.admit(*claim(limit=3, n=n)) for n in range(1, 5)))
    assert [v.status for v in verdicts] == [Status.ADMITTED] * 2 + [Status.LIMITED] * 2


async def test_a_failed_round_trip_is_every_callers_error() -> None:
    redis = fakeredis.FakeAsyncRedis()
    store = Store(redis, Keys("t"))
    scripts = Scripts(redis)

    async def broken(*args: object, **kwargs: object) -> object:
        raise RedisConnectionError("the store went away")

    pipeline = redis.pipeline

    def failing_pipeline(*args: object, **kwargs: object) -> object:
        pipe = pipeline(*args, **kwargs)  # type: ignore[arg-type]
        pipe.execute = broken  # type: ignore[method-assign]
        return pipe

    redis.pipeline = failing_pipeline  # type: ignore[method-assign,assignment]
    results = await asyncio.gather(
        *(scripts.admit(*store.claim(n=n)) for n in range(3)), return_exceptions=True
    )
    assert [type(r) for r in results] == [RedisConnectionError] * 3


async def test_a_cancelled_caller_leaves_the_others_their_replies() -> None:
    redis = fakeredis.FakeAsyncRedis()
    store = Store(redis, Keys("t"))
    scripts = Scripts(redis)
    calls = [asyncio.ensure_future(scripts.admit(*store.claim(limit=10, n=n))) for n in range(4)]
    await asyncio.sleep(0)  # every call has joined the first one's batch
    calls[0].cancel()  # the one that would send it
    results = await asyncio.gather(*calls, return_exceptions=True)
    assert isinstance(results[0], asyncio.CancelledError)
    assert [v.status for v in results[1:]] == [Status.ADMITTED] * 3  # type: ignore[union-attr]


_ARG = st.one_of(
    st.text(max_size=40),
    st.binary(max_size=40),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(["EVALSHA", "SET", "ZADD", "CONFIG GET", "é"]),
    args=st.lists(_ARG, max_size=20),
)
def test_hiredis_packing_writes_what_redis_py_writes(name: str, args: list[object]) -> None:
    """The connection every plain redis:// client uses packs commands in C; the
    bytes (or the refusal) are exactly redis-py's own."""
    ours, theirs = HiredisPacking(), Connection()
    try:
        expected = b"".join(theirs.pack_command(name, *args))  # type: ignore[arg-type]
    except DataError:
        with pytest.raises(DataError):
            ours.pack_command(name, *args)  # type: ignore[arg-type]
        return
    assert b"".join(ours.pack_command(name, *args)) == expected  # type: ignore[arg-type]


def test_plain_redis_urls_get_the_hiredis_connection(redis_settings: Settings) -> None:
    client = connect(redis_settings)
    assert client.connection_pool.connection_class is HiredisPacking
