"""Real redis-server processes of the tests' own: single, cluster, sentinel."""

from __future__ import annotations

import contextlib
import random
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis as redis_sync

from magisterium_a2a.testing.pytest_plugin import free_port

REDIS_SERVER = shutil.which("redis-server")


def low_free_port() -> int:
    """A free port whose +10000 (a cluster node's bus port) is free too."""
    rng = random.Random()
    for _ in range(200):
        port = rng.randrange(20000, 45000)
        try:
            for candidate in (port, port + 10000):
                with socket.socket() as sock:
                    sock.bind(("127.0.0.1", candidate))
        except OSError:
            continue
        return port
    raise RuntimeError("no free port pair")


def need_redis_server() -> str:
    if REDIS_SERVER is None:
        pytest.skip("redis-server is not installed")
    return REDIS_SERVER


@dataclass
class RedisProcess:
    port: int
    directory: Path
    args: list[str]
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        log = (self.directory / f"redis-{self.port}.log").open("ab")
        self.process = subprocess.Popen(
            [need_redis_server(), *self.args], stdout=log, stderr=log, cwd=self.directory
        )
        wait_for_ping(self.port)

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


def wait_for_ping(port: int, timeout: float = 10.0) -> None:
    client = redis_sync.Redis(port=port, socket_connect_timeout=0.2)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if client.ping():
                return
        except redis_sync.RedisError:
            time.sleep(0.02)
    raise RuntimeError(f"redis on port {port} did not answer")


@contextlib.contextmanager
def redis_process(directory: Path, *extra: str, port: int | None = None) -> Iterator[RedisProcess]:
    port = port or low_free_port()
    directory.mkdir(parents=True, exist_ok=True)
    args = [
        "--port",
        str(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--dir",
        str(directory),
        *extra,
    ]
    server = RedisProcess(port, directory, args)
    server.start()
    try:
        yield server
    finally:
        server.kill()


@contextlib.contextmanager
def redis_cluster(directory: Path, masters: int = 3) -> Iterator[list[RedisProcess]]:
    with contextlib.ExitStack() as stack:
        nodes = [
            stack.enter_context(
                redis_process(
                    directory / f"node-{i}",
                    "--cluster-enabled",
                    "yes",
                    "--cluster-config-file",
                    "nodes.conf",
                    "--appendonly",
                    "no",
                )
            )
            for i in range(masters)
        ]
        subprocess.run(
            [
                "redis-cli",
                "--cluster",
                "create",
                *[f"127.0.0.1:{n.port}" for n in nodes],
                "--cluster-yes",
            ],
            check=True,
            capture_output=True,
            timeout=30,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            states = [redis_sync.Redis(port=n.port).execute_command("CLUSTER INFO") for n in nodes]
            if all(state.get("cluster_state") == "ok" for state in states):
                break
            time.sleep(0.05)
        else:
            raise RuntimeError("the cluster did not become ready")
        yield nodes


@contextlib.contextmanager
def redis_sentinel(
    directory: Path, service: str = "mymaster"
) -> Iterator[tuple[RedisProcess, int]]:
    with redis_process(directory / "master") as master:
        port = free_port()
        conf = directory / "sentinel.conf"
        conf.write_text(
            f"port {port}\nbind 127.0.0.1\nsentinel monitor {service} 127.0.0.1 {master.port} 1\n"
        )
        log = (directory / "sentinel.log").open("ab")
        process = subprocess.Popen(
            [need_redis_server(), str(conf), "--sentinel"], stdout=log, stderr=log
        )
        try:
            wait_for_ping(port)
            yield master, port
        finally:
            process.kill()
            process.wait()
