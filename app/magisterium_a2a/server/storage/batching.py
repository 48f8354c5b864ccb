"""One pipeline for the script calls that requests make in the same turn of the
event loop.

A redis-py call costs the server far more CPU than Redis spends on it (about
350 µs against a few µs here, bench/RESULTS.md), and most of that is paid per
round trip, not per command: sixteen ``EVALSHA`` calls sent as one pipeline cost
about a fifth of sixteen calls sent one by one. Under load, requests reach
their admission together: uvicorn reads several requests in one poll of the
event loop and their handlers run one after the other before any of them waits.
So the first caller of a turn waits one turn (``asyncio.sleep(0)``) for the others
to join, sends every call that joined as one pipeline, and hands each caller its
own reply. Alone, a caller sends its call directly, as before.

Each script still runs on its own and atomically in Redis, in the order the calls
joined: a rate limit admits exactly as many requests as before, and a refused
request still writes nothing. A pipeline is not a transaction (``MULTI``), so one
request's failure (a ``NOSCRIPT`` after a restart, say) is that request's alone.

On a Redis Cluster every call goes alone: redis-py's cluster pipelines refuse
scripts (their keys would have to be routed by slot), and one user's keys are
in one slot anyway.
"""

from __future__ import annotations

import asyncio
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import NoScriptError

MAX_BATCH = 64
"""The most calls one pipeline carries; a caller past it starts the next batch."""


class _Call:
    """One script call waiting in a batch, and where its reply goes."""

    __slots__ = ("args", "future", "sha", "text")

    def __init__(self, sha: str, text: str, args: tuple[Any, ...]) -> None:
        self.sha = sha
        self.text = text
        self.args = args
        self.future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()


class ScriptBatcher:
    """Runs ``EVALSHA`` calls for one client, a loop turn's calls as one pipeline."""

    def __init__(self, redis: Redis, max_batch: int = MAX_BATCH) -> None:
        self._redis = redis
        self._max = 1 if isinstance(redis, RedisCluster) else max_batch
        self._open: list[_Call] | None = None
        self._flights: set[asyncio.Task[None]] = set()

    async def evalsha(self, sha: str, text: str, *args: Any) -> Any:
        """``EVALSHA sha *args``, loading ``text`` first when the server lacks it."""
        call = _Call(sha, text, args)
        if self._max == 1:
            return await self._one(call)
        batch = self._open
        if batch is not None and len(batch) < self._max:
            batch.append(call)
            return await call.future
        batch = self._open = [call]
        try:
            # One turn of the loop: the requests read in the same poll join here.
            await asyncio.sleep(0)
        except BaseException:
            # This request was cancelled; the others that joined still go.
            self._close(batch)
            if len(batch) > 1:
                self._fly(batch[1:])
            raise
        self._close(batch)
        if len(batch) == 1:
            return await self._one(call)
        # The batch flies on its own task: the callers' replies never hang on
        # one of them being cancelled.
        self._fly(batch)
        return await call.future

    def _close(self, batch: list[_Call]) -> None:
        if self._open is batch:
            self._open = None

    def _fly(self, batch: list[_Call]) -> None:
        flight = asyncio.get_running_loop().create_task(self._send(batch))
        self._flights.add(flight)
        flight.add_done_callback(self._flights.discard)

    async def _send(self, batch: list[_Call]) -> None:
        replies = await self._pipeline(batch)
        for call, reply in zip(batch, replies, strict=True):
            if not call.future.done():
                if isinstance(reply, BaseException):
                    call.future.set_exception(reply)
                else:
                    call.future.set_result(reply)

    async def _one(self, call: _Call) -> Any:
        try:
            return await self._redis.evalsha(call.sha, *call.args)
        except NoScriptError:
            await self._redis.script_load(call.text)
            return await self._redis.evalsha(call.sha, *call.args)

    async def _pipeline(self, batch: list[_Call]) -> list[Any]:
        """Every call's reply or exception, in order; a failure of the round trip
        itself (the connection, a timeout) is every call's."""
        try:
            pipe = self._redis.pipeline(transaction=False)
            for call in batch:
                pipe.evalsha(call.sha, *call.args)
            replies: list[Any] = await pipe.execute(raise_on_error=False)
            missing = [i for i, reply in enumerate(replies) if isinstance(reply, NoScriptError)]
            if missing:
                # The server restarted or flushed its scripts: load them, run those again.
                for text in {batch[i].text for i in missing}:
                    await self._redis.script_load(text)
                retry = self._redis.pipeline(transaction=False)
                for i in missing:
                    retry.evalsha(batch[i].sha, *batch[i].args)
                again = await retry.execute(raise_on_error=False)
                for i, reply in zip(missing, again, strict=True):
                    replies[i] = reply
            return replies
        except Exception as exc:
            return [exc] * len(batch)
