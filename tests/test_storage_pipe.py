"""The hot path's pipelined connection (storage/pipe.py): replies reach their own
callers in order, errors are redis-py's, and a lost, silent or unreachable
server fails the waiting commands cleanly and the next command connects again."""

from __future__ import annotations

import asyncio
import socket
import uuid
from collections.abc import AsyncIterator, Callable

import pytest
import redis as redis_sync
from redis.exceptions import (
    AuthenticationError,
    ConnectionError,
    NoScriptError,
    RedisError,
    ResponseError,
    TimeoutError,
)

from magisterium_a2a.server.config import Settings
from magisterium_a2a.server.storage import Pipe, Polling, hot_pipe


@pytest.fixture
async def pipe(real_redis: str) -> AsyncIterator[Pipe]:
    made = Pipe.for_url(real_redis, timeout=10.0)
    assert made is not None
    yield made
    await made.aclose()


@pytest.fixture
def key() -> str:
    return f"test-pipe-{uuid.uuid4().hex[:12]}"


@pytest.mark.redis
async def test_concurrent_callers_share_one_connection_and_each_gets_its_own_reply(
    pipe: Pipe, key: str
) -> None:
    await pipe.call("SET", key, "0", "EX", 60)
    replies = await asyncio.gather(*(pipe.call("INCR", key) for _ in range(300)))
    assert replies == list(range(1, 301))  # in the order they were made, none lost
    ids = await asyncio.gather(*(pipe.call("CLIENT", "ID") for _ in range(20)))
    assert len(set(ids)) == 1
    got = await pipe.calls(("SET", f"{key}:b", b"\x00\xff", "EX", 60), ("GET", f"{key}:b"))
    assert got == [b"OK", b"\x00\xff"]


@pytest.mark.redis
async def test_the_url_chooses_the_database(real_redis: str, key: str) -> None:
    other = Pipe.for_url(real_redis.rsplit("/", 1)[0] + "/11", timeout=10.0)
    assert other is not None
    try:
        await other.call("SET", key, "in eleven", "EX", 60)
    finally:
        await other.aclose()
    eleven = redis_sync.Redis.from_url(real_redis.rsplit("/", 1)[0] + "/11")
    try:
        assert eleven.get(key) == b"in eleven"
        assert redis_sync.Redis.from_url(real_redis).get(key) is None
    finally:
        eleven.delete(key)


@pytest.mark.redis
async def test_an_error_reply_is_redis_pys_exception_and_the_stream_stays_in_step(
    pipe: Pipe, key: str
) -> None:
    with pytest.raises(NoScriptError):
        await pipe.call("EVALSHA", "0" * 40, 0)
    await pipe.call("SET", key, "text", "EX", 60)
    results = await asyncio.gather(
        pipe.call("INCR", key), pipe.call("GET", key), return_exceptions=True
    )
    assert isinstance(results[0], ResponseError) and results[1] == b"text"


@pytest.mark.redis
async def test_a_script_the_server_forgot_is_loaded_again(pipe: Pipe, key: str) -> None:
    text = "return redis.call('INCR', KEYS[1])"
    sha = (await pipe.call("SCRIPT", "LOAD", text)).decode()
    assert await pipe.evalsha(sha, text, 1, key) == 1
    await pipe.call("SCRIPT", "FLUSH")
    assert await pipe.evalsha(sha, text, 1, key) == 2
    await pipe.call("DEL", key)


@pytest.mark.redis
async def test_a_cancelled_caller_leaves_the_others_their_own_replies(pipe: Pipe, key: str) -> None:
    await pipe.calls(*(("SET", f"{key}:{n}", str(n), "EX", 60) for n in range(3)))
    calls = [asyncio.ensure_future(pipe.call("GET", f"{key}:{n}")) for n in range(3)]
    await asyncio.sleep(0)  # every command is written
    calls[0].cancel()
    results = await asyncio.gather(*calls, return_exceptions=True)
    assert isinstance(results[0], asyncio.CancelledError)
    assert results[1:] == [b"1", b"2"]
    assert await pipe.call("GET", f"{key}:0") == b"0"  # its reply was consumed, not shifted


@pytest.mark.redis
async def test_a_killed_connection_fails_its_commands_and_the_next_one_connects_again(
    pipe: Pipe, real_redis: str
) -> None:
    first = await pipe.call("CLIENT", "ID")
    waiting = asyncio.ensure_future(pipe.call("BLPOP", f"test-pipe-never-{first}", 30))
    await asyncio.sleep(0)
    redis_sync.Redis.from_url(real_redis).client_kill_filter(_id=first)
    with pytest.raises(ConnectionError):
        await asyncio.wait_for(waiting, 10)
    assert await pipe.call("CLIENT", "ID") != first


class FakeServer:
    """A TCP server that answers each connection as ``reply`` says (None: silence),
    once ``release`` is set (it is, unless a test clears it to hold the replies)."""

    def __init__(self, reply: Callable[[int, bytes], bytes | None]) -> None:
        self._reply = reply
        self.release = asyncio.Event()
        self.release.set()
        self.connections = 0
        self._server: asyncio.Server | None = None
        self.port = 0

    async def __aenter__(self) -> FakeServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        number = self.connections
        while data := await reader.read(65536):
            await self.release.wait()
            answer = self._reply(number, data)
            if answer is None:
                continue
            if answer == b"":
                writer.close()
                return
            writer.write(answer)


async def test_a_server_that_closes_fails_the_waiting_command_only() -> None:
    # The first connection is closed on its first command; the second answers.
    async with FakeServer(lambda n, _: b"" if n == 1 else b"+PONG\r\n") as server:
        pipe = Pipe("127.0.0.1", server.port, timeout=10.0)
        with pytest.raises(ConnectionError):
            await pipe.call("PING")
        assert await pipe.call("PING") == b"PONG"
        assert server.connections == 2
        await pipe.aclose()


async def test_callers_arriving_together_share_one_connect() -> None:
    async with FakeServer(lambda n, data: b"+PONG\r\n" * data.count(b"PING")) as server:
        pipe = Pipe("127.0.0.1", server.port, timeout=10.0)
        replies = await asyncio.gather(*(pipe.call("PING") for _ in range(20)))
        assert replies == [b"PONG"] * 20
        assert server.connections == 1
        await pipe.aclose()


async def test_a_silent_server_times_out_and_the_connection_is_dropped() -> None:
    async with FakeServer(lambda n, _: None if n == 1 else b"+PONG\r\n") as server:
        pipe = Pipe("127.0.0.1", server.port, timeout=0.05)
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(pipe.call("PING"), 10)
        assert await pipe.call("PING") == b"PONG"
        await pipe.aclose()


async def test_a_reply_nobody_asked_for_drops_the_connection() -> None:
    twice = b"+PONG\r\n+EXTRA\r\n"
    async with FakeServer(lambda n, _: twice if n == 1 else b"+PONG\r\n") as server:
        pipe = Pipe("127.0.0.1", server.port, timeout=10.0)
        assert await pipe.call("PING") == b"PONG"
        assert await pipe.call("PING") == b"PONG"  # on a new connection
        assert server.connections == 2
        await pipe.aclose()


async def test_garbage_from_the_server_is_a_connection_error() -> None:
    async with FakeServer(lambda n, _: b"?what\r\n") as server:
        pipe = Pipe("127.0.0.1", server.port, timeout=10.0)
        with pytest.raises(ConnectionError):
            await pipe.call("PING")
        await pipe.aclose()


async def test_nothing_listening_is_a_connection_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    pipe = Pipe("127.0.0.1", port, timeout=10.0)
    with pytest.raises(ConnectionError, match="cannot reach Redis"):
        await pipe.call("PING")
    await pipe.aclose()
    with pytest.raises(ConnectionError, match="closed"):
        await pipe.call("PING")


@pytest.mark.redis
async def test_a_refused_password_is_the_callers_error(real_redis: str) -> None:
    host = real_redis.split("//", 1)[1].split("/", 1)[0]
    pipe = Pipe.for_url(f"redis://nobody:wrong@{host}/9", timeout=10.0)
    assert pipe is not None
    with pytest.raises((AuthenticationError, ResponseError)) as raised:
        await pipe.call("PING")
    assert isinstance(raised.value, RedisError)
    await pipe.aclose()


def test_only_plain_redis_urls_get_a_pipe(settings: Settings) -> None:
    assert Pipe.for_url("rediss://h:1/0", 1.0) is None
    assert Pipe.for_url("unix:///tmp/redis.sock", 1.0) is None
    assert Pipe.for_url("redis+sentinel://h:26379/main", 1.0) is None
    parsed = Pipe.for_url("redis://ada:s3cret@cache.example:6380/4", 1.5)
    assert parsed is not None
    assert (parsed._host, parsed._port, parsed._db) == ("cache.example", 6380, 4)
    assert (parsed._username, parsed._password, parsed._timeout) == ("ada", "s3cret", 1.5)
    assert hot_pipe(settings.model_copy(update={"redis_url": ""})) is None
    alone = lambda: True  # noqa: E731
    spun = hot_pipe(settings.model_copy(update={"redis_url": "redis://h:1/0"}), alone)
    bound = settings.redis_spin_microseconds / 1e6
    assert spun is not None and spun._polling == Polling(bound, alone)
    still = settings.model_copy(update={"redis_url": "redis://h:1/0", "redis_spin_microseconds": 0})
    assert hot_pipe(still, alone)._polling is None  # type: ignore[union-attr]


def held_pongs() -> FakeServer:
    """A server that answers each PING with PONG only once the test lets it."""
    server = FakeServer(lambda n, data: b"+PONG\r\n" * data.count(b"PING"))
    server.release.clear()
    return server


async def turns(n: int) -> None:
    """Let the loop run ``n`` times round its ready callbacks."""
    for _ in range(n):
        await asyncio.sleep(0)


async def test_the_loop_keeps_polling_while_a_reply_is_due_until_the_bound() -> None:
    clock = [100.0]
    async with held_pongs() as server:
        polling = Polling(0.001, now=lambda: clock[0])
        pipe = Pipe("127.0.0.1", server.port, timeout=10.0, polling=polling)
        waiting = asyncio.ensure_future(pipe.call("PING"))
        await turns(50)
        assert not waiting.done()
        assert pipe.polling  # many turns later, still scheduled: the loop never slept
        clock[0] += 0.0011  # past the bound: the next turn lets the loop sleep
        await turns(2)
        assert not pipe.polling
        assert not waiting.done()
        server.release.set()
        assert await waiting == b"PONG"  # the reply still comes, to a sleeping loop
        await pipe.aclose()


async def test_polling_ends_with_the_last_reply_and_starts_again_with_the_next_command() -> None:
    clock = [100.0]
    async with held_pongs() as server:
        server.release.set()
        polling = Polling(0.001, now=lambda: clock[0])
        pipe = Pipe("127.0.0.1", server.port, timeout=10.0, polling=polling)
        assert await pipe.call("PING") == b"PONG"
        await turns(2)
        assert not pipe.polling  # nothing waits: no CPU spent, though time is left
        server.release.clear()
        clock[0] += 1.0
        waiting = asyncio.ensure_future(pipe.call("PING"))
        await turns(5)
        assert pipe.polling  # a new bound from the new command
        server.release.set()
        assert await waiting == b"PONG"
        await turns(2)
        assert not pipe.polling
        await pipe.aclose()


async def test_without_polling_the_loop_is_never_kept_polling() -> None:
    async with held_pongs() as server:
        pipe = Pipe("127.0.0.1", server.port, timeout=10.0, polling=None)
        waiting = asyncio.ensure_future(pipe.call("PING"))
        await turns(5)
        assert not pipe.polling
        server.release.set()
        assert await waiting == b"PONG"
        await pipe.aclose()


async def test_polling_waits_for_the_server_to_answer_one_request_alone() -> None:
    clock, alone = [100.0], [False]
    async with held_pongs() as server:
        polling = Polling(0.001, worth_it=lambda: alone[0], now=lambda: clock[0])
        pipe = Pipe("127.0.0.1", server.port, timeout=10.0, polling=polling)
        first = asyncio.ensure_future(pipe.call("PING"))
        await turns(5)
        assert not pipe.polling  # other requests in progress: the loop may sleep
        alone[0] = True
        second = asyncio.ensure_future(pipe.call("PING"))
        await turns(5)
        assert pipe.polling
        alone[0] = False  # another request came in: polling gives way to it
        await turns(2)
        assert not pipe.polling
        server.release.set()
        assert await asyncio.gather(first, second) == [b"PONG", b"PONG"]
        await pipe.aclose()
