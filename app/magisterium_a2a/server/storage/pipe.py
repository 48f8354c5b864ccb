"""One pipelined connection for the commands on the hot path, on hiredis.

redis-py's asyncio client spends about 100 µs of the server's CPU on every
command (a pool checkout and return, a retry wrapper, event dispatch, metrics
recorders, two ``wait_for`` timeouts), against a few µs that Redis spends on
it. At one request at a time a cheap ``message/send`` is bound by the server's
CPU, so that overhead is most of the gap to the Redis floor. Measured per
``SET`` on this machine class (bench/RESULTS.md): redis-py 8.1 96 to 130 µs,
coredis 6.9 about 290 µs, valkey-glide 2.6 79 to 94 µs, this connection 21 to 30 µs.

hiredis (the maintained C client redis-py itself uses) packs every command
and parses every reply; what this module adds is the part no library offers
for asyncio without the overhead above: it writes each command at once on
one connection and hands each reply to the caller whose command it answers
(Redis answers in the order commands arrive). Concurrent requests so share
the connection as one pipeline without waiting a loop turn to gather, and
each script still runs alone and atomically in Redis, in the order sent.

Only plain ``redis://`` URLs take this way; TLS, Unix sockets, Sentinel,
Cluster and the embedded store keep redis-py's client (``batching.py``).

While a reply is due, the connection can keep the event loop polling for a
bounded time instead of letting it sleep (``Polling``, ``A2A_REDIS_SPIN_MICROSECONDS``).
Redis answers a cheap command within tens of microseconds, but a process whose
loop sleeps in ``epoll_wait`` meanwhile must be woken by an interrupt, and on a
virtual machine that halts an idle vCPU (this machine class) the wake-up costs
more than the command: in process, one request at a time, a ``message/send``
waited 105 to 151 µs for its one round trip against the Redis floor's 40, of
which Redis's own extra work explains 37; polling took its wall time from 309
to 199 µs a request for no more CPU (bench/RESULTS.md, 2026-12-04). Polling is
one cheap callback that keeps itself scheduled while a command waits, so the
loop looks at its sockets without blocking and every other ready callback still
runs in turn; it ends when no command waits or the bound has passed, whichever
comes first, and the server polls only while it answers one request alone
(``Polling.worth_it``): beside others the loop has their work to do, and polling there
cost throughput. So it burns at most the bound per burst of commands, in time
the process would have spent asleep with an answer due. Go's scheduler spins a
thread the same way before parking it.

Failures are redis-py's exceptions, so callers handle one family: a reply
error is the exception redis-py would raise for it (``NoScriptError`` and
so on); a lost connection is ``ConnectionError`` for every command waiting
on it, and the next command connects again; a reply that does not come
within the timeout (noticed within one to two timeouts) closes the
connection with ``TimeoutError``. A command is never sent twice: after a
failure nobody can know whether a script ran, so none is retried.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import urlsplit

import hiredis
from redis._parsers.base import BaseParser
from redis.asyncio.connection import parse_url
from redis.exceptions import ConnectionError, NoScriptError, RedisError
from redis.exceptions import TimeoutError as RedisTimeout

Arg = str | bytes | int


def _always() -> bool:
    return True


@dataclass(frozen=True, slots=True)
class Polling:
    """How the loop is kept polling for a due reply (the module's docstring)."""

    bound: float
    """The longest it polls after a command, in seconds."""
    worth_it: Callable[[], bool] = _always
    """Whether polling is worth it now (the server's: it answers one request alone,
    ``server/inflight.py``); asked before each turn."""
    now: Callable[[], float] = time.monotonic
    """The monotonic clock the bound is measured on."""


class _Replies(asyncio.Protocol):
    """The connection's protocol: each reply goes to the oldest waiting command."""

    def __init__(self, polling: Polling | None = None) -> None:
        self._reader = hiredis.Reader()
        self.waiting: deque[asyncio.Future[Any]] = deque()
        self.transport: asyncio.Transport | None = None
        self.answered = 0
        """Replies received so far: the watchdog's sign of progress."""
        self._polling = polling
        self._poll_until = 0.0
        self.polling = False
        """True while the loop is kept polling for a due reply (the module's docstring)."""
        # Created by the loop's connection factory, so inside the running loop.
        self._loop = asyncio.get_running_loop()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports implement asyncio.Transport without subclassing it.
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        reader = self._reader
        reader.feed(data)
        waiting = self.waiting
        while True:
            try:
                reply = reader.gets()
            except hiredis.ProtocolError as exc:
                self.fail(ConnectionError(f"Redis protocol error: {exc}"))
                return
            if reply is False:
                return
            self.answered += 1
            if not waiting:
                # A reply nobody asked for: the stream cannot be trusted any more.
                self.fail(ConnectionError("Redis sent a reply to no command"))
                return
            future = waiting.popleft()
            if future.done():  # its caller was cancelled; the reply is still consumed
                continue
            if isinstance(reply, hiredis.ReplyError):
                # redis-py's own mapping of an error reply to its exception class.
                error = BaseParser.parse_error(str(reply))  # type: ignore[no-untyped-call]
                future.set_exception(error)
            else:
                future.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        self._drop(ConnectionError("Redis closed the connection"))

    def fail(self, error: RedisError) -> None:
        """Close the connection, failing every waiting command with ``error``."""
        transport, self.transport = self.transport, None
        self._drop(error)
        if transport is not None:
            transport.abort()

    def _drop(self, error: RedisError) -> None:
        waiting = self.waiting
        while waiting:
            future = waiting.popleft()
            if not future.done():
                future.set_exception(error)

    def send(self, commands: tuple[tuple[Arg, ...], ...]) -> list[asyncio.Future[Any]]:
        """Write the commands in one write; a future for each one's reply."""
        transport = self.transport
        assert transport is not None
        loop = self._loop
        futures = [loop.create_future() for _ in commands]
        self.waiting.extend(futures)
        if len(commands) == 1:
            transport.write(hiredis.pack_command(commands[0]))  # type: ignore[arg-type]
        else:
            transport.write(b"".join(hiredis.pack_command(c) for c in commands))  # type: ignore[arg-type]
        polling = self._polling
        if polling is not None and not self.polling and polling.worth_it():
            self.polling = True
            self._poll_until = polling.now() + polling.bound
            loop.call_soon(self._poll, polling)
        return futures

    def _poll(self, polling: Polling) -> None:
        """One turn of polling: stay scheduled while a reply is due, time is left and
        it is still worth it, so the loop looks at its sockets again without sleeping."""
        if self.waiting and polling.now() < self._poll_until and polling.worth_it():
            self._loop.call_soon(self._poll, polling)
        else:
            self.polling = False


class Pipe:
    """One connection to one Redis server, shared by every caller as a pipeline."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        timeout: float,
        db: int = 0,
        username: str | None = None,
        password: str | None = None,
        polling: Polling | None = None,
    ) -> None:
        """``polling``: how the loop is kept polling for a due reply; None: the loop
        may sleep at once."""
        self._host = host
        self._port = port
        self._timeout = timeout
        self._polling = polling
        self._db = db
        self._username = username
        self._password = password
        self._replies: _Replies | None = None
        self._connecting: asyncio.Task[_Replies] | None = None
        self._watchdog: asyncio.TimerHandle | None = None
        self._closed = False

    @classmethod
    def for_url(cls, url: str, timeout: float, polling: Polling | None = None) -> Pipe | None:
        """A pipe for a plain ``redis://host:port/db`` URL; None for any other kind."""
        if urlsplit(url).scheme != "redis":
            return None
        options = parse_url(url)
        return cls(
            options.get("host") or "localhost",
            int(options.get("port") or 6379),
            timeout=timeout,
            db=int(options.get("db") or 0),
            username=options.get("username"),
            password=options.get("password"),
            polling=polling,
        )

    async def call(self, *command: Arg) -> Any:
        """One command's reply (or the exception redis-py raises for it)."""
        replies = self._replies
        if replies is None or replies.transport is None:
            replies = await self._connect()
        (future,) = replies.send((command,))
        self._watch(replies)
        return await future

    async def calls(self, *commands: tuple[Arg, ...]) -> list[Any]:
        """Several commands written at once; their replies in order. Each command
        runs on its own (this is a pipeline, not a transaction)."""
        replies = self._replies
        if replies is None or replies.transport is None:
            replies = await self._connect()
        futures = replies.send(commands)
        self._watch(replies)
        return [await future for future in futures]

    async def evalsha(self, sha: str, text: str, *args: Arg) -> Any:
        """``EVALSHA sha *args``, loading ``text`` first when the server lacks it
        (after a restart or ``SCRIPT FLUSH``)."""
        try:
            return await self.call("EVALSHA", sha, *args)
        except NoScriptError:
            await self.call("SCRIPT", "LOAD", text)
            return await self.call("EVALSHA", sha, *args)

    async def aclose(self) -> None:
        self._closed = True
        if self._connecting is not None:
            self._connecting.cancel()
        if self._replies is not None:
            self._replies.fail(ConnectionError("the pipe was closed"))
        if self._watchdog is not None:
            self._watchdog.cancel()

    def _watch(self, replies: _Replies) -> None:
        """Arm the watchdog while commands wait: costs nothing per command."""
        if self._watchdog is None:
            loop = asyncio.get_running_loop()
            self._watchdog = loop.call_later(self._timeout, self._check, replies, replies.answered)

    def _check(self, replies: _Replies, answered: int) -> None:
        """A command waited through a whole timeout if nothing was answered since
        the last check while something was waiting all along."""
        self._watchdog = None
        if not replies.waiting:
            return
        if replies.answered == answered:
            replies.fail(RedisTimeout(f"Redis did not answer within {self._timeout:g} s"))
            return
        self._watch(replies)

    async def _connect(self) -> _Replies:
        if self._closed:
            raise ConnectionError("the pipe was closed")
        if self._connecting is None:
            self._connecting = asyncio.get_running_loop().create_task(self._open())
        connecting = self._connecting
        try:
            # Shielded: one caller's cancellation must not fail the others' connect.
            return await asyncio.shield(connecting)
        finally:
            if connecting.done() and self._connecting is connecting:
                self._connecting = None

    async def _open(self) -> _Replies:
        loop = asyncio.get_running_loop()
        replies: _Replies | None = None
        try:
            async with asyncio.timeout(self._timeout):
                _, replies = await loop.create_connection(
                    lambda: _Replies(self._polling), self._host, self._port
                )
                hello: list[tuple[Arg, ...]] = []
                if self._password is not None:
                    user = () if self._username is None else (self._username,)
                    hello.append(("AUTH", *user, self._password))
                if self._db:
                    hello.append(("SELECT", self._db))
                for future in replies.send(tuple(hello)) if hello else ():
                    await future
        except BaseException as exc:
            if replies is not None:
                replies.fail(ConnectionError("the connection's set-up failed"))
            if isinstance(exc, TimeoutError):
                raise RedisTimeout(f"Redis at {self._host}:{self._port} did not answer") from exc
            if isinstance(exc, OSError):
                where = f"{self._host}:{self._port}"
                raise ConnectionError(f"cannot reach Redis at {where}: {exc}") from exc
            raise
        self._replies = replies
        return replies

    @property
    def polling(self) -> bool:
        """Whether the loop is being kept polling for a due reply now."""
        return self._replies is not None and self._replies.polling
