"""The Lua scripts (``lua/*.lua``), each behind a small typed wrapper.

A script's KEYS and ARGV are declared once, here, as the fields of named
tuples: the wrapper passes them in field order and the script sees them as Lua
locals of the same names (a prelude generated from the same fields), so no
position is agreed in a comment. Each script is bound once per client and run
by EVALSHA, loading its text when the server does not know it yet (after a
restart or SCRIPT FLUSH), which is what redis-py's ``register_script`` does;
this does it without the per-call import and list copies of that helper, on the
hot path of every cheap ``message/send``. On a plain ``redis://`` server the calls
go down the hot path's pipelined connection (``pipe.py``); on any other, through
redis-py, one turn of the event loop's calls as one pipeline (``batching.py``).
The scripts run unchanged on fakeredis.
"""

from __future__ import annotations

from enum import IntEnum
from functools import cache
from hashlib import sha1
from importlib.resources import files
from typing import Any, NamedTuple, Protocol

from redis.asyncio import Redis

from magisterium_a2a.server.storage.batching import ScriptBatcher
from magisterium_a2a.server.storage.connection import text

LUA = files("magisterium_a2a.server.storage") / "lua"


class AdmitKeys(NamedTuple):
    """The keys of an admission, both in the user's hash slot."""

    bucket: str
    revoked: str


class AdmitArgs(NamedTuple):
    """The arguments of an admission."""

    now_ms: int
    window_ms: int
    limit: int
    member: str
    """A unique sorted-set member for this request."""
    bucket_ttl_ms: int


class SaveKeys(NamedTuple):
    """Where a finished task goes, in the same hash slot as its user's bucket."""

    task: str
    context: str
    tasks: str
    """The user's tasks (index.lua), and those of the task's state and context:"""
    by_state: str
    by_context: str


class SaveArgs(NamedTuple):
    record: bytes
    ttl_seconds: int
    task_id: str
    context_cap: int
    """How many task ids the context list keeps (the newest)."""
    written_ms: int
    """When the task is written: its score in the indexes."""


class ListKeys(NamedTuple):
    """The index to read, and one the tasks must also be in (the same when one filter)."""

    walk: str
    within: str
    revoked: str
    """Exists once the caller's token was revoked: then nothing is read."""


class ListArgs(NamedTuple):
    floor_ms: int
    """The oldest write time that counts."""
    after_ms: int
    after_id: str
    """The last entry of the previous page ('' for the first page)."""
    limit: int


class Page(NamedTuple):
    """One page of task ids, newest first, with their write times (ms)."""

    total: int
    """Every entry that matches, on this page or any other; -1 when the token was revoked."""
    entries: list[tuple[str, int]]
    more: bool


class Status(IntEnum):
    REVOKED = -1
    LIMITED = 0
    ADMITTED = 1


_STATUS = {status.value: status for status in Status}


class Verdict(NamedTuple):
    """What an admission script decided (a tuple: built on every request)."""

    status: Status
    remaining: int
    """Requests left in the window after this one (0 unless admitted)."""
    reset_ms: int
    """Milliseconds until the oldest counted request leaves the window."""

    @classmethod
    def of(cls, reply: list[int]) -> Verdict:
        status, remaining, reset_ms = reply
        return cls(_STATUS[status], remaining, reset_ms)


@cache
def source(
    name: str, keys: tuple[str, ...], args: tuple[str, ...], libraries: tuple[str, ...] = ()
) -> str:
    """A script's text: locals naming its KEYS and ARGV, the libraries it uses, its body."""
    prelude = [
        f"local {', '.join(names)} = {', '.join(f'{table}[{i}]' for i in range(1, len(names) + 1))}"
        for table, names in (("KEYS", keys), ("ARGV", args))
        if names
    ]
    parts = [*prelude, *((LUA / f"{lib}.lua").read_text() for lib in libraries)]
    return "\n".join([*parts, (LUA / f"{name}.lua").read_text()])


class Runner(Protocol):
    """What runs a script by its digest: ``Pipe``, ``ScriptBatcher``, or any caller
    that sends ``EVALSHA`` and loads the text on ``NOSCRIPT``."""

    async def evalsha(self, sha: str, text: str, *args: Any) -> Any:
        """``EVALSHA sha *args``, loading ``text`` first when the server lacks it."""


class _Script:
    """One script on one client, run by EVALSHA through the client's runner,
    which loads its text first when the server lacks it."""

    def __init__(
        self,
        batcher: Runner,
        name: str,
        keys: tuple[str, ...],
        args: tuple[str, ...],
        libraries: tuple[str, ...] = (),
    ):
        self._batcher = batcher
        self._text = source(name, keys, args, libraries)
        self._sha = sha1(self._text.encode(), usedforsecurity=False).hexdigest()
        self._key_count = len(keys)

    async def __call__(self, *values: str | bytes | int) -> Any:
        """Run with the keys' values, then the arguments' (in their declared order)."""
        return await self._batcher.evalsha(self._sha, self._text, self._key_count, *values)


class Scripts:
    """The scripts, bound to one client; each call is one round trip, through
    ``runner`` (the hot path's ``Pipe``) or by default ``ScriptBatcher`` on ``redis``."""

    def __init__(self, redis: Redis, runner: Runner | None = None) -> None:
        batcher: Runner = runner if runner is not None else ScriptBatcher(redis)
        self._admit = _Script(
            batcher, "admit", AdmitKeys._fields, AdmitArgs._fields, ("admission",)
        )
        self._admit_and_save = _Script(
            batcher,
            "admit_and_save",
            AdmitKeys._fields + SaveKeys._fields,
            AdmitArgs._fields + SaveArgs._fields,
            ("admission", "index"),
        )
        self._save = _Script(
            batcher, "save", (*SaveKeys._fields, "earlier_state"), SaveArgs._fields, ("index",)
        )
        self._list = _Script(batcher, "list", ListKeys._fields, ListArgs._fields)

    async def admit(self, keys: AdmitKeys, args: AdmitArgs) -> Verdict:
        """Take one request from the bucket, unless full or the token is revoked."""
        return Verdict.of(await self._admit(*keys, *args))

    async def admit_and_save(
        self, keys: AdmitKeys, args: AdmitArgs, save_keys: SaveKeys, save_args: SaveArgs
    ) -> Verdict:
        """Admit as ``admit`` and, only if admitted, store the task, extend its context
        and index it."""
        return Verdict.of(await self._admit_and_save(*keys, *save_keys, *args, *save_args))

    async def save(self, keys: SaveKeys, args: SaveArgs, earlier_state: str) -> None:
        """Store the task, extend its context and index it; ``earlier_state`` is the
        state set it leaves (``keys.by_state`` for a new task)."""
        await self._save(*keys, earlier_state, *args)

    async def list(self, keys: ListKeys, args: ListArgs) -> Page:
        """One page of the index ``keys.walk`` (also in ``keys.within``), newest first."""
        total, more, *flat = await self._list(*keys, *args)
        entries = [(text(flat[i]), int(float(flat[i + 1]))) for i in range(0, len(flat), 2)]
        return Page(int(total), entries, bool(more))
