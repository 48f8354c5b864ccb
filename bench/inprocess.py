"""What one ``message/send`` costs inside the process, without HTTP and wrk.

    .venv/bin/python -m bench.inprocess [--requests 3000] [--rounds 5] [--stub store]

Calls the ASGI app directly, one request after another (c=1), against real
Redis, pinned to CPU 0, and reports the wall and CPU time per request of each
round and their medians. Without wrk, uvicorn and the socket to the client, the
figures vary by a few percent where the HTTP benchmarks vary by half on this
VM, so this is the tool to find where send's time at c=1 goes: each ``--stub``
takes one part away and the difference is what that part costs.

- ``--stub store``: the admission-and-save script's round trip answers at once
  with an admitted verdict (the task's record is still built).
- ``--stub echo``: that round trip goes instead to a trivial TCP echo server
  (a subprocess on CPU 1) that answers every write with ``+OK``: what any one
  blocking loopback round trip costs this process, whatever is at the other end.
- ``--stub skill``: the skill answers every request with its first answer.
- ``--floor``: the Redis floor app (``bench.apps.redis_floor``) instead, in the
  same harness.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

from redis import Redis

from bench.asgi_client import SEND, Client
from bench.run import ROOT, free_port, issue_token


async def rounds(
    client: Client, body: bytes, requests: int, count: int
) -> list[tuple[float, float]]:
    """(wall µs, CPU µs) per request of each round; every answer must be a 200."""
    results = []
    for number in range(count):
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(requests):
            await client.post(body)
            if client.status != 200:
                raise RuntimeError(f"round {number + 1}: a {client.status}: {client.body!r}")
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        results.append((wall / requests * 1e6, cpu / requests * 1e6))
        wall_us, cpu_us = results[-1]
        print(f"round {number + 1}: wall {wall_us:6.1f} µs  CPU {cpu_us:6.1f} µs per request")
    return results


def echo_server(port: int) -> None:
    """Answer every read with ``+OK`` (a RESP simple string), one client at a time."""
    if (os.cpu_count() or 1) > 1:
        os.sched_setaffinity(0, {1})
    listener = socket.create_server(("127.0.0.1", port))
    while True:
        client, _ = listener.accept()
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with client:
            while client.recv(1 << 16):
                client.sendall(b"+OK\r\n")


def stub_store(stack: contextlib.ExitStack, stub: str) -> None:
    """Replace the admission-and-save script's round trip (see the module's doc)."""
    from magisterium_a2a.server.storage import scripts

    admitted = scripts.Verdict(scripts.Status.ADMITTED, 1_000_000, 60_000)
    original = scripts.Scripts.admit_and_save
    stack.callback(setattr, scripts.Scripts, "admit_and_save", original)

    if stub == "store":

        async def at_once(self: scripts.Scripts, *args: Any) -> scripts.Verdict:
            return admitted

        scripts.Scripts.admit_and_save = at_once  # type: ignore[method-assign, assignment]
        return

    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "bench.inprocess", "--echo-server", str(port)], cwd=ROOT
    )
    stack.callback(server.kill)
    for _ in range(100):
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port)):
            break
        time.sleep(0.05)
    connection: list[asyncio.Transport] = []
    waiting: list[asyncio.Future[scripts.Verdict]] = []

    class Reply(asyncio.Protocol):
        def data_received(self, data: bytes) -> None:
            waiting.pop().set_result(admitted)

    async def round_trip(self: scripts.Scripts, *args: Any) -> scripts.Verdict:
        loop = asyncio.get_running_loop()
        if not connection:
            transport, _ = await loop.create_connection(Reply, "127.0.0.1", port)
            connection.append(transport)
        reply: asyncio.Future[scripts.Verdict] = loop.create_future()
        waiting.append(reply)
        connection[0].write(b"*1\r\n$4\r\nPING\r\n")
        return await reply

    scripts.Scripts.admit_and_save = round_trip  # type: ignore[method-assign, assignment]


def stub_skill(app: Any) -> None:
    """The skill answers every request with its first answer."""
    registry = app.state.runtime.registry
    skill = registry.get("document_fetch")
    first: list[Sequence[object]] = []

    async def cached(message: Any, context: Any) -> Sequence[object]:
        if not first:
            first.append(list(await skill.handle(message, context)))
        return first[0]

    stubbed = dataclasses.replace(skill, handler=cached)
    lookup = registry.get
    registry.get = lambda skill_id: stubbed if skill_id == skill.id else lookup(skill_id)


async def ours(args: argparse.Namespace, token: str) -> list[tuple[float, float]]:
    from asgi_lifespan import LifespanManager

    from magisterium_a2a.server.config import Settings
    from magisterium_a2a.server.main import create_app

    with contextlib.ExitStack() as stack:
        if args.stub in ("store", "echo"):
            stub_store(stack, args.stub)
        app = create_app(Settings(_env_file=None))
        async with LifespanManager(app):
            if args.stub == "skill":
                stub_skill(app)
            return await rounds(Client(app, token), SEND, args.requests, args.rounds)


async def floor(args: argparse.Namespace) -> list[tuple[float, float]]:
    from bench.apps.redis_floor import app

    return await rounds(Client(app), b"{}", args.requests, args.rounds)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=3000, help="per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--stub", choices=["store", "echo", "skill"])
    parser.add_argument("--floor", action="store_true")
    parser.add_argument(
        "--redis-url", default="redis://127.0.0.1:6379/8", help="a database the run may empty"
    )
    parser.add_argument("--echo-server", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.echo_server:
        echo_server(args.echo_server)
        return
    if (os.cpu_count() or 1) > 1:
        os.sched_setaffinity(0, {0})
    Redis.from_url(args.redis_url).flushdb(asynchronous=True)
    os.environ.update(
        {
            "A2A_REDIS_URL": args.redis_url,
            "A2A_KEY_PREFIX": "bench",
            "A2A_LIMIT_DEFAULT_PER_MINUTE": "1000000000",
            "A2A_LIMIT_EXPENSIVE_PER_MINUTE": "1000000000",
            "A2A_LOG_LEVEL": "warning",
            "BENCH_REDIS_URL": args.redis_url,
        }
    )
    import uvloop

    if args.floor:
        results = uvloop.run(floor(args))
    else:
        results = uvloop.run(ours(args, issue_token(args.redis_url)))
    walls, cpus = zip(*results, strict=True)
    wall, cpu = statistics.median(walls), statistics.median(cpus)
    print(f"median: wall {wall:.1f} µs  CPU {cpu:.1f} µs per request")


if __name__ == "__main__":
    main()
