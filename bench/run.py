"""Throughput and latency of this server against the stack's floors and the
official A2A SDK server, in one sitting, interleaved.

    .venv/bin/python -m bench.run [--rounds 3] [--duration 10] [--out bench/RESULTS.md]

Each server runs as one uvicorn worker (uvloop + httptools) pinned to CPU 0,
all of them started first and kept up; wrk (1 thread) runs on CPU 1 beside
Redis. For every round and concurrency, every configuration is measured in
turn (warm-up first, the order rotating by round), so the configurations a
ratio compares are measured seconds apart, not minutes: this VM's speed drifts
by half over minutes. The table reports medians over rounds, the server's CPU
time per request, and the ratios the hot-path issue sets as goals. A second
part compares ``--workers 2`` with one worker, unpinned.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from redis import Redis

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
TICKS = os.sysconf("SC_CLK_TCK")
UVICORN = ["-m", "uvicorn", "--loop", "uvloop", "--http", "httptools", "--log-level", "warning"]


@dataclass
class Target:
    name: str
    label: str
    command: list[str]
    env: dict[str, str] = field(default_factory=dict)
    body: str = ""
    needs_token: bool = False


@dataclass
class Sample:
    rps: float
    p50_ms: float
    p99_ms: float
    cpu_us: float
    redis_us: float | None = None
    """Redis's CPU per request, when its process is on this machine."""


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process and its children (uvicorn workers)."""
    total = 0.0
    pids = [pid]
    with contextlib.suppress(FileNotFoundError):
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        pids += [int(child) for child in children]
    for one in pids:
        with contextlib.suppress(FileNotFoundError):
            fields = Path(f"/proc/{one}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / TICKS
    return total


def local_redis(redis_url: str) -> int | None:
    """The process id of the Redis server at ``redis_url`` when it runs on this
    machine (a loopback address or a Unix socket, and a redis process of that id
    here), else None: its CPU time and its CPU can then be read and set."""
    with Redis.from_url(redis_url) as client:
        options = client.connection_pool.connection_kwargs
        if "path" not in options and options.get("host") not in ("127.0.0.1", "localhost", "::1"):
            return None
        pid = int(client.info("server")["process_id"])
    try:
        name = Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return None
    return pid if name.startswith("redis") else None


@contextlib.contextmanager
def pinned(pid: int | None, cpus: set[int]) -> Iterator[str | None]:
    """Every thread of process ``pid`` on ``cpus`` for the block, each thread's
    affinity restored after. Yields None when done, or why it could not be."""
    if pid is None:
        yield "not on this machine"
        return
    if len(os.sched_getaffinity(0)) < 2:
        yield "one CPU"
        return
    try:
        threads = [int(t.name) for t in Path(f"/proc/{pid}/task").iterdir()]
    except FileNotFoundError:
        yield "no such process"
        return
    before: dict[int, set[int]] = {}
    try:
        for thread in threads:
            before[thread] = os.sched_getaffinity(thread)
            os.sched_setaffinity(thread, cpus)
    except OSError as exc:  # another user's process, or a thread that ended
        _restore(before)
        yield f"could not be moved ({exc.strerror})"
        return
    try:
        yield None
    finally:
        _restore(before)


def _restore(affinities: dict[int, set[int]]) -> None:
    """Each thread's CPUs as they were (a thread that has ended is skipped)."""
    for thread, mask in affinities.items():
        with contextlib.suppress(OSError):
            os.sched_setaffinity(thread, mask)


@contextlib.contextmanager
def serving(target: Target, port: int, cpus: str | None) -> Iterator[subprocess.Popen[bytes]]:
    command = [a.replace("{port}", str(port)) for a in target.command]
    if cpus is not None:
        command = ["taskset", "-c", cpus, *command]
    # A target may bring its own source tree (bench.ab) ahead of this one.
    paths = [target.env["PYTHONPATH"]] if target.env.get("PYTHONPATH") else []
    env = {**os.environ, **target.env, "PYTHONPATH": os.pathsep.join([*paths, str(ROOT)])}
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.post(f"http://127.0.0.1:{port}/api/v1/a2a", content=b"{}", timeout=1)
                break
            except httpx.HTTPError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"{target.name} did not start") from None
                time.sleep(0.1)
        yield process
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


def wrk_script(body: str, token: str | None, directory: Path) -> Path:
    script = directory / f"{uuid.uuid4().hex}.lua"
    headers = ['wrk.headers["Content-Type"] = "application/json"']
    if token:
        headers.append(f'wrk.headers["Authorization"] = "Bearer {token}"')
    script.write_text(
        'wrk.method = "POST"\n' + "\n".join(headers) + f"\nwrk.body = [==[{body}]==]\n"
    )
    return script


def run_wrk(url: str, script: Path, connections: int, seconds: float, cpus: str | None) -> str:
    command = [
        "wrk",
        "-t1",
        f"-c{connections}",
        f"-d{max(1, round(seconds))}s",
        "--latency",
        "-s",
        str(script),
        url,
    ]
    if cpus is not None:
        command = ["taskset", "-c", cpus, *command]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


def parse_wrk(output: str) -> tuple[float, float, float, int, int]:
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))  # type: ignore[union-attr]

    def percentile(p: str) -> float:
        match = re.search(rf"\s{p}%\s+([\d.]+)(us|ms|s)\b", output)
        assert match is not None, output
        value, unit = float(match.group(1)), match.group(2)
        return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value

    total = int(re.search(r"(\d+) requests in", output).group(1))  # type: ignore[union-attr]
    non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    return rps, percentile("50"), percentile("99"), total, int(non2xx.group(1)) if non2xx else 0


@dataclass
class Running:
    """A target's server, up for the whole run, and the wrk script it is sent."""

    target: Target
    process: subprocess.Popen[bytes]
    url: str
    script: Path


def start(
    target: Target,
    token: str | None,
    directory: Path,
    cpus: str | None,
    stack: contextlib.ExitStack,
) -> Running:
    port = free_port()
    url = f"http://127.0.0.1:{port}/api/v1/a2a"
    process = stack.enter_context(serving(target, port, cpus))
    body = target.body
    if "{task_id}" in body:
        created = httpx.post(
            url,
            content=SEND_BODY,
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        ).json()
        body = body.replace("{task_id}", created["result"]["id"])
    script = wrk_script(body, token if target.needs_token else None, directory)
    return Running(target, process, url, script)


def point(
    running: Running,
    connections: int,
    warmup: float,
    duration: float,
    client_cpus: str | None,
    redis_pid: int | None = None,
) -> Sample:
    """One measurement of one running server at one concurrency, after a warm-up;
    with ``redis_pid``, Redis's CPU per request too (only this server is sending)."""
    run_wrk(running.url, running.script, connections, warmup, client_cpus)
    before = cpu_seconds(running.process.pid)
    redis_before = cpu_seconds(redis_pid) if redis_pid is not None else 0.0
    output = run_wrk(running.url, running.script, connections, duration, client_cpus)
    used = cpu_seconds(running.process.pid) - before
    redis_used = cpu_seconds(redis_pid) - redis_before if redis_pid is not None else None
    rps, p50, p99, total, non2xx = parse_wrk(output)
    if non2xx:
        raise RuntimeError(f"{running.target.name} c={connections}: {non2xx} non-2xx answers")
    per = max(total, 1)
    return Sample(
        rps, p50, p99, used / per * 1e6, None if redis_used is None else redis_used / per * 1e6
    )


def measure(
    target: Target,
    token: str | None,
    concurrencies: list[int],
    warmup: float,
    duration: float,
    directory: Path,
    server_cpus: str | None,
    client_cpus: str | None,
    redis_pid: int | None = None,
) -> dict[int, Sample]:
    """One target on its own: started, measured at each concurrency, stopped."""
    with contextlib.ExitStack() as stack:
        running = start(target, token, directory, server_cpus, stack)
        return {
            c: point(running, c, warmup, duration, client_cpus, redis_pid) for c in concurrencies
        }


SEND_BODY = ""


def targets(redis_url: str, skill: str, part: str, workers: int = 1) -> list[Target]:
    global SEND_BODY
    SEND_BODY = (
        '{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user",'
        '"kind":"message","messageId":"bench-1","parts":[' + part + "],"
        '"metadata":{"skillId":"' + skill + '"}}}}'
    )
    ours_env = {
        "A2A_REDIS_URL": redis_url,
        "A2A_KEY_PREFIX": "bench",
        "A2A_LIMIT_DEFAULT_PER_MINUTE": "1000000000",
        "A2A_LIMIT_EXPENSIVE_PER_MINUTE": "1000000000",
        "A2A_LOG_LEVEL": "warning",
    }
    ours = [
        PYTHON,
        "-m",
        "magisterium_a2a.server",
        "serve",
        "--port",
        "{port}",
        "--workers",
        str(workers),
    ]
    uvicorn = [PYTHON, *UVICORN, "--port", "{port}"]
    return [
        Target("floor", "(1) bare FastAPI route", [*uvicorn, "bench.apps.floor:app"], body="{}"),
        Target(
            "sdk",
            "(2) official a2a-sdk 0.3 server",
            [*uvicorn, "bench.apps.sdk_server:app"],
            body=SEND_BODY.replace(',"metadata":{"skillId":"' + skill + '"}', ""),
        ),
        Target(
            "send",
            f"(3) this server, message/send on {skill}",
            ours,
            ours_env,
            SEND_BODY,
            needs_token=True,
        ),
        Target(
            "get",
            "(3) this server, tasks/get",
            ours,
            ours_env,
            '{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"id":"{task_id}"}}',
            needs_token=True,
        ),
        Target(
            "redis-floor",
            "(4) bare route + one Redis SET EX",
            [*uvicorn, "bench.apps.redis_floor:app"],
            {"BENCH_REDIS_URL": redis_url},
            "{}",
        ),
        Target(
            "script-floor",
            "(5) bare route + this server's admission-and-save script",
            [*uvicorn, "bench.apps.script_floor:app"],
            {"BENCH_REDIS_URL": redis_url},
            "{}",
        ),
    ]


def issue_token(redis_url: str) -> str:
    env = {**os.environ, "A2A_REDIS_URL": redis_url, "A2A_KEY_PREFIX": "bench"}
    out = subprocess.run(
        [
            PYTHON,
            "-m",
            "magisterium_a2a.server",
            "tokens",
            "create",
            "--user",
            f"bench-{uuid.uuid4().hex[:8]}",
            "--plan",
            "pro",
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return out.strip().splitlines()[-1]


def median(samples: list[Sample]) -> Sample:
    redis = [s.redis_us for s in samples if s.redis_us is not None]
    return Sample(
        statistics.median(s.rps for s in samples),
        statistics.median(s.p50_ms for s in samples),
        statistics.median(s.p99_ms for s in samples),
        statistics.median(s.cpu_us for s in samples),
        statistics.median(redis) if redis else None,
    )


def sample_line(s: Sample) -> str:
    """A measurement's figures, as the per-round lines print them."""
    line = (
        f"{s.rps:8.0f} req/s p50 {s.p50_ms:6.2f} ms p99 {s.p99_ms:7.2f} ms "
        f"cpu {s.cpu_us:6.0f} us/req"
    )
    return line if s.redis_us is None else f"{line} redis {s.redis_us:5.0f} us/req"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--concurrency", default="1,16,64")
    parser.add_argument(
        "--redis-url", default="redis://127.0.0.1:6379/8", help="a database the run may empty"
    )
    parser.add_argument("--skill", default="document_fetch")
    parser.add_argument("--part", default='{"kind":"data","data":{"id":"lumen-gentium"}}')
    parser.add_argument("--only", default="", help="comma-separated target names")
    parser.add_argument("--skip-workers", action="store_true")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "RESULTS.md")
    parser.add_argument("--note", default="", help="a line for the report (the machine's load)")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed (Debian: apt-get install wrk)")
    concurrencies = [int(c) for c in args.concurrency.split(",")]
    # The runs fill their Redis database with tasks and buckets; start from empty.
    # ASYNC: emptying millions of keys in place outlasts the client's timeout.
    Redis.from_url(args.redis_url).flushdb(asynchronous=True)
    token = issue_token(args.redis_url)
    chosen = [
        t
        for t in targets(args.redis_url, args.skill, args.part)
        if not args.only or t.name in args.only.split(",")
    ]
    collected: dict[str, dict[int, list[Sample]]] = {
        t.name: {c: [] for c in concurrencies} for t in chosen
    }
    redis_pid = local_redis(args.redis_url)
    with tempfile.TemporaryDirectory() as scratch, contextlib.ExitStack() as stack:
        # Redis beside wrk, away from the servers, as the report says.
        unpinned = stack.enter_context(pinned(redis_pid, {1}))
        # Every server is up for the whole run, idle but for its turn, and the
        # configurations are compared point by point: at each concurrency every
        # target in turn (the order rotating each round), a few seconds apart, so
        # that what this shared VM is doing at the time touches them alike.
        running = [start(t, token, Path(scratch), "0", stack) for t in chosen]
        for round_no in range(1, args.rounds + 1):
            for c in concurrencies:
                shift = (round_no - 1) % len(running)
                for server in running[shift:] + running[:shift]:
                    sample = point(server, c, args.warmup, args.duration, "1", redis_pid)
                    collected[server.target.name][c].append(sample)
                    print(
                        f"round {round_no} {server.target.name:12} c={c:<3} {sample_line(sample)}",
                        flush=True,
                    )
        stack.close()
        workers: dict[int, list[float]] = {1: [], 2: []}
        if not args.skip_workers:
            for round_no in range(1, args.rounds + 1):
                for count in (1, 2):
                    target = targets(args.redis_url, args.skill, args.part, count)[2]
                    result = measure(
                        target, token, [64], args.warmup, args.duration, Path(scratch), None, None
                    )
                    workers[count].append(result[64].rps)
                    print(
                        f"round {round_no} workers={count} c=64 {result[64].rps:8.0f} req/s",
                        flush=True,
                    )
    write_report(args, chosen, collected, concurrencies, workers, unpinned)


def write_report(
    args: argparse.Namespace,
    chosen: list[Target],
    collected: dict[str, dict[int, list[Sample]]],
    concurrencies: list[int],
    workers: dict[int, list[float]],
    redis_unpinned: str | None = None,
) -> None:
    """The run's section of the report; ``redis_unpinned`` is why Redis was not
    pinned to CPU 1 (None when it was)."""
    medians = {
        name: {c: median(s) for c, s in by_c.items() if s} for name, by_c in collected.items()
    }
    lines = [
        f"## {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
        "",
        *([args.note, ""] if args.note else []),
        f"`python -m bench.run --rounds {args.rounds} --duration {args.duration:g}` "
        f"on {os.cpu_count()} CPUs: "
        "each server one uvicorn worker (uvloop, httptools) pinned to CPU 0 and up for "
        f"the whole run, {_client_side(redis_unpinned)}; at each concurrency "
        "every server in turn (the order rotating each round), "
        f"{args.warmup:g} s warm-up and {args.duration:g} s measured per point; "
        f"medians of {args.rounds} interleaved rounds. `message/send` goes to "
        f"`{args.skill}` with auth, rate limiting (limits raised) and Redis on.",
        "",
        "| configuration | "
        + " | ".join(f"req/s c={c}" for c in concurrencies)
        + " | p50 / p99 ms c=16 | server CPU µs/req c=16 | Redis CPU µs/req c=1 / 16 |",
        "| --- | " + " | ".join("---:" for _ in concurrencies) + " | ---: | ---: | ---: |",
    ]
    for target in chosen:
        m = medians[target.name]
        c16 = m.get(16)
        lines.append(
            f"| {target.label} | "
            + " | ".join(f"{m[c].rps:,.0f}" for c in concurrencies)
            + (f" | {c16.p50_ms:.1f} / {c16.p99_ms:.1f} | {c16.cpu_us:,.0f} |" if c16 else " | | |")
            + f" {_redis_cell(m)} |"
        )
    lines += ["", "Ratios (median req/s, same concurrency):", ""]
    for ours in ("send", "get"):
        if ours not in medians:
            continue
        for base, what in (
            ("floor", "floor (1)"),
            ("sdk", "SDK server (2)"),
            ("redis-floor", "Redis floor (4)"),
            ("script-floor", "script floor (5)"),
        ):
            if base in medians:
                ratios = ", ".join(
                    f"c={c}: {medians[ours][c].rps / medians[base][c].rps:.2f}"
                    for c in concurrencies
                )
                lines.append(f"- `{ours}` / {what}: {ratios}")
    lines += [
        "",
        "Every measurement, in the order taken (the spread is this VM's noise):",
        "",
        "```",
    ]
    for target in chosen:
        for c in concurrencies:
            for number, s in enumerate(collected[target.name][c], 1):
                lines.append(f"round {number} {target.name:12} c={c:<3} {sample_line(s)}")
    for count in (1, 2):
        lines += [
            f"workers={count} c=64 round {n}: {rps:,.0f} req/s"
            for n, rps in enumerate(workers[count], 1)
        ]
    lines.append("```")
    if workers[1] and workers[2]:
        one, two = statistics.median(workers[1]), statistics.median(workers[2])
        lines += [
            "",
            f"`--workers 2` against one worker (unpinned, c=64, message/send): "
            f"{two:,.0f} / {one:,.0f} req/s = {two / one:.2f} times.",
        ]
    goals = _goals(medians)
    if goals:
        at = lines.index("Ratios (median req/s, same concurrency):")
        lines[at:at] = [*goals, ""]
    section = "\n".join(lines) + "\n"
    args.out.write_text(_with_earlier_runs(args.out, section))
    print(section)


def _client_side(redis_unpinned: str | None) -> str:
    """Where wrk and Redis ran, as the report's intro says it."""
    if redis_unpinned is None:
        return "wrk 4.1 (1 thread) and Redis on CPU 1"
    return (
        f"wrk 4.1 (1 thread) on CPU 1, Redis where the kernel put it (not pinned: {redis_unpinned})"
    )


def _redis_cell(by_c: dict[int, Sample]) -> str:
    """Redis's CPU per request at c=1 and c=16, where both were measured."""
    figures = [f for c in (1, 16) if c in by_c and (f := by_c[c].redis_us) is not None]
    return " / ".join(f"{f:,.0f}" for f in figures) if len(figures) == 2 else ""


TITLE = "# Benchmark results"
INTRO = "Newest run first; each section is one run, every round listed."


def _with_earlier_runs(path: Path, section: str) -> str:
    """The report with the new run first and every earlier run kept below it.

    The title and the intro line are written once, at the top: they are taken
    off the earlier text before it goes below the new section, or every run
    would leave another copy of the intro between two sections.
    """
    earlier = path.read_text() if path.exists() else ""
    for opening in (TITLE, INTRO):
        if earlier.startswith(opening):
            earlier = earlier[len(opening) :].lstrip("\n")
    return f"{TITLE}\n\n{INTRO}\n\n" + section + ("\n" + earlier if earlier else "")


def _goals(medians: dict[str, dict[int, Sample]]) -> list[str]:
    """The hot-path issue's goals for message/send, as measured in this run."""
    send, floor, sdk = medians.get("send"), medians.get("redis-floor"), medians.get("sdk")
    if not send:
        return []
    lines = ["Goals for `message/send` (issue 22: the hot path at the Redis floor):", ""]
    if floor:
        ratios = ", ".join(
            f"c={c}: {send[c].rps / floor[c].rps:.2f}" for c in sorted(send) if c in floor
        )
        lines.append(f"- send / Redis floor, goal >= 0.9 (moonshot 1.0): {ratios}")
    if sdk and 16 in send and 16 in sdk:
        lines.append(f"- send / SDK server at c=16, goal >= 3: {send[16].rps / sdk[16].rps:.2f}")
    if floor and 16 in send and 16 in floor:
        lines.append(
            f"- send p99 at c=16 against the Redis floor's, goal <= 1.5: "
            f"{send[16].p99_ms:.1f} / {floor[16].p99_ms:.1f} ms = "
            f"{send[16].p99_ms / floor[16].p99_ms:.2f}"
        )
    return lines


if __name__ == "__main__":
    main()
