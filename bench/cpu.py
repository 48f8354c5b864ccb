"""CPU per request on the hot path, in process, A against B: does a change cost?

    .venv/bin/python -m bench.cpu --a main --b . [--rounds 6] [--requests 3000]

``--a``/``--b`` are source trees as in ``bench.ab`` (a git revision or a
directory). Each round runs one worker process per tree, the order alternating,
with that tree first on its PYTHONPATH. A worker drives the app's ASGI callable
directly (no socket, no HTTP parser, no load generator), one request after the
other, against a Redis server of its own that this script starts, and reports:

- the worker's CPU time per request (``time.process_time``), for the hosted
  dialect's ``message/send`` (cheap skill: admission and task write in one
  script) and ``tasks/get``;
- Redis's own time per request (``INFO commandstats``): a script's time for
  ``message/send`` (it includes the commands the script runs), the commands'
  for ``tasks/get``. That is where a change to a Lua script shows.

CPU time, unlike requests per second, barely moves when other work shares the
machine; the summary gives the medians over rounds and B against A.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from redis import Redis

from bench.ab import source_tree
from bench.asgi_client import SEND, Client
from bench.run import ROOT, free_port

WARMUP = 300
TOKEN = ("--user", "bench-cpu", "--plan", "pro")


async def drive(redis_url: str, token: str, requests: int) -> dict[str, Any]:
    """In a worker: the CPU per request of send and get, and Redis's time per call."""
    from asgi_lifespan import LifespanManager

    from magisterium_a2a.server.config import Settings
    from magisterium_a2a.server.main import create_app

    app = create_app(Settings(_env_file=None))
    client = Client(app, token)

    redis = Redis.from_url(redis_url)
    async with LifespanManager(app):
        for _ in range(WARMUP):
            await client.post(SEND)
        task_id = json.loads(client.body)["result"]["id"]
        get = b'{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"id":"%s"}}' % (
            task_id.encode()
        )
        for _ in range(WARMUP):
            await client.post(get)
        out: dict[str, Any] = {}
        for name, body in (("send", SEND), ("get", get)):
            redis.config_resetstat()
            started = time.process_time()
            for _ in range(requests):
                await client.post(body)
            out[f"{name}_cpu_us"] = (time.process_time() - started) / requests * 1e6
            assert b'"result"' in client.body, client.body
            stats = redis.info("commandstats")
            # Commands a script runs are counted under their own names too, and
            # inside the script's time: a script's time is all its request costs.
            scripted = "cmdstat_evalsha" in stats
            spent = sum(
                entry["usec"]
                for command, entry in stats.items()
                if command != "cmdstat_config" and (not scripted or command == "cmdstat_evalsha")
            )
            out[f"{name}_redis_us"] = spent / requests
    return out


def worker_main(args: argparse.Namespace) -> None:
    result = asyncio.run(drive(args.redis_url, args.token, args.requests))
    print(json.dumps(result))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", default="HEAD", help="git revision or directory (baseline)")
    parser.add_argument("--b", default=".", help="git revision or directory (candidate)")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--redis-url", help=argparse.SUPPRESS)
    parser.add_argument("--token", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker_main(args)
        return
    server = shutil.which("redis-server")
    if server is None:
        sys.exit("bench.cpu starts a redis-server of its own: none is installed")
    port = free_port()
    redis_process = subprocess.Popen(
        [server, "--port", str(port), "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    redis_url = f"redis://127.0.0.1:{port}/0"
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                Redis.from_url(redis_url).ping()
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        results = run_rounds(args, redis_url)
    finally:
        redis_process.terminate()
        redis_process.wait(timeout=10)
    print()
    for metric in ("send_cpu_us", "send_redis_us", "get_cpu_us", "get_redis_us"):
        a = statistics.median(r[metric] for r in results["A"])
        b = statistics.median(r[metric] for r in results["B"])
        print(f"{metric:14} A {a:8.1f}  B {b:8.1f}  B/A {b / a:5.3f}")


def run_rounds(args: argparse.Namespace, redis_url: str) -> dict[str, list[dict[str, float]]]:
    env = {
        **os.environ,
        "A2A_REDIS_URL": redis_url,
        "A2A_KEY_PREFIX": "bench",
        "A2A_LIMIT_DEFAULT_PER_MINUTE": "1000000000",
        "A2A_LIMIT_EXPENSIVE_PER_MINUTE": "1000000000",
        "A2A_LOG_LEVEL": "warning",
    }
    token = (
        subprocess.run(
            [sys.executable, "-m", "magisterium_a2a.server", "tokens", "create", *TOKEN],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        .stdout.strip()
        .splitlines()[-1]
    )
    results: dict[str, list[dict[str, float]]] = {"A": [], "B": []}
    with tempfile.TemporaryDirectory() as scratch:
        trees = {
            "A": source_tree(args.a, Path(scratch), "a"),
            "B": source_tree(args.b, Path(scratch), "b"),
        }
        for round_no in range(1, args.rounds + 1):
            for name in ("A", "B") if round_no % 2 else ("B", "A"):
                paths = os.pathsep.join([trees[name], str(ROOT)])
                worker = ["--worker", "--redis-url", redis_url, "--token", token]
                done = subprocess.run(
                    [sys.executable, "-m", "bench.cpu", *worker, "--requests", str(args.requests)],
                    env={**env, "PYTHONPATH": paths},
                    cwd=ROOT,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                result = json.loads(done.stdout.strip().splitlines()[-1])
                results[name].append(result)
                shown = "  ".join(f"{k} {v:7.1f}" for k, v in result.items())
                print(f"round {round_no} {name}  {shown}", flush=True)
    return results


if __name__ == "__main__":
    main()
