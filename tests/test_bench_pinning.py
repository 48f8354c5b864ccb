"""bench.run puts the local Redis on CPU 1 beside wrk, as its report says, reads
Redis's CPU per request, and says so when it could not pin it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.run import Sample, _client_side, _redis_cell, local_redis, pinned, sample_line

# A process with a second thread, both idle: pinning must move every thread.
TWO_THREADS = (
    "import threading, time; threading.Thread(target=time.sleep, args=(60,)).start(); "
    "print('up', flush=True); time.sleep(60)"
)


def affinities(pid: int) -> dict[int, set[int]]:
    return {
        int(thread.name): os.sched_getaffinity(int(thread.name))
        for thread in Path(f"/proc/{pid}/task").iterdir()
    }


def test_every_thread_is_pinned_for_the_block_and_restored_after() -> None:
    if len(os.sched_getaffinity(0)) < 2 or 1 not in os.sched_getaffinity(0):
        pytest.skip("needs CPUs 0 and 1")
    process = subprocess.Popen([sys.executable, "-c", TWO_THREADS], stdout=subprocess.PIPE)
    try:
        assert process.stdout is not None and process.stdout.readline() == b"up\n"
        before = affinities(process.pid)
        assert len(before) == 2 and all(mask != {1} for mask in before.values())
        with pinned(process.pid, {1}) as unpinned:
            assert unpinned is None
            assert all(mask == {1} for mask in affinities(process.pid).values())
        assert affinities(process.pid) == before
    finally:
        process.kill()
        process.wait()


def test_what_cannot_be_pinned_is_said() -> None:
    with pinned(None, {1}) as unpinned:
        assert unpinned == "not on this machine"
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()  # reaped: /proc has no such process
    with pinned(ended.pid, {1}) as unpinned:
        assert unpinned in ("no such process", "one CPU")
    intro = _client_side("could not be moved (Operation not permitted)")
    assert "Redis where the kernel put it (not pinned: could not be moved" in intro
    assert _client_side(None) == "wrk 4.1 (1 thread) and Redis on CPU 1"


def test_the_local_redis_is_found_and_a_remote_one_is_not(real_redis: str) -> None:
    pid = local_redis(real_redis)
    assert pid is not None
    assert Path(f"/proc/{pid}/comm").read_text().startswith("redis")
    assert local_redis("redis://192.0.2.1:6379/0") is None  # TEST-NET-1: never this machine


def test_redis_cpu_per_request_is_reported_where_it_was_measured() -> None:
    measured = Sample(1000.0, 1.0, 2.0, 300.0, 95.4)
    unmeasured = Sample(1000.0, 1.0, 2.0, 300.0)
    assert sample_line(measured).endswith("cpu    300 us/req redis    95 us/req")
    assert "redis" not in sample_line(unmeasured)
    assert _redis_cell({1: measured, 16: Sample(3000.0, 4.0, 8.0, 250.0, 120.2)}) == "95 / 120"
    assert _redis_cell({1: unmeasured, 16: unmeasured}) == ""
