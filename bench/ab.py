"""Interleaved A/B of two source trees on the hot path: does a change pay?

    .venv/bin/python -m bench.ab --a main --b . [--rounds 6] [--concurrency 1,16]

``--a``/``--b`` name a git revision (exported to a scratch directory) or a
directory holding ``app/`` and ``skills/`` (``.`` is this working tree). Each
round starts both servers in turn, the order alternating, pinned as in
``bench.run`` (server on CPU 0; wrk and Redis on CPU 1), and measures the same
request at every concurrency; the summary gives medians of req/s, p99, the
server's CPU per request and (a Redis on this machine) Redis's, and B against A.
On a shared machine trust the CPU per request and the paired ratios more than
single req/s figures.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tarfile
import tempfile
from dataclasses import replace
from io import BytesIO
from pathlib import Path

from redis import Redis

from bench.run import ROOT, Sample, issue_token, local_redis, measure, pinned, sample_line, targets


def source_tree(spec: str, scratch: Path, name: str) -> str:
    """A PYTHONPATH for ``spec``: a directory as it is, or a git revision exported."""
    directory = Path(spec)
    if (directory / "app").is_dir() and (directory / "skills").is_dir():
        root = directory.resolve()
    else:
        archive = subprocess.run(
            ["git", "archive", spec, "app", "skills"], cwd=ROOT, capture_output=True, check=True
        ).stdout
        root = scratch / name
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(root, filter="data")
    return f"{root / 'app'}:{root / 'skills'}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", default="HEAD", help="git revision or directory (baseline)")
    parser.add_argument("--b", default=".", help="git revision or directory (candidate)")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--concurrency", default="1,16")
    parser.add_argument("--target", default="send", choices=["send", "get"])
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/8")
    parser.add_argument("--skill", default="document_fetch")
    parser.add_argument("--part", default='{"kind":"data","data":{"id":"lumen-gentium"}}')
    args = parser.parse_args()
    concurrencies = [int(c) for c in args.concurrency.split(",")]
    Redis.from_url(args.redis_url).flushdb(asynchronous=True)
    token = issue_token(args.redis_url)
    base = next(t for t in targets(args.redis_url, args.skill, args.part) if t.name == args.target)
    samples: dict[str, dict[int, list[Sample]]] = {
        "A": {c: [] for c in concurrencies},
        "B": {c: [] for c in concurrencies},
    }
    redis_pid = local_redis(args.redis_url)
    with tempfile.TemporaryDirectory() as scratch, pinned(redis_pid, {1}) as unpinned:
        if unpinned is not None:
            print(f"Redis is not pinned to CPU 1: {unpinned}", flush=True)
        variants = {
            "A": replace(
                base, env={**base.env, "PYTHONPATH": source_tree(args.a, Path(scratch), "a")}
            ),
            "B": replace(
                base, env={**base.env, "PYTHONPATH": source_tree(args.b, Path(scratch), "b")}
            ),
        }
        for round_no in range(1, args.rounds + 1):
            for name in ("A", "B") if round_no % 2 else ("B", "A"):
                results = measure(
                    variants[name],
                    token,
                    concurrencies,
                    args.warmup,
                    args.duration,
                    Path(scratch),
                    "0",
                    "1",
                    redis_pid,
                )
                for c, s in results.items():
                    samples[name][c].append(s)
                    print(f"round {round_no} {name} c={c:<3} {sample_line(s)}", flush=True)
    print(f"A = {args.a}, B = {args.b}, {args.target}, {args.rounds} rounds, medians:")
    for c in concurrencies:
        a, b = samples["A"][c], samples["B"][c]
        rps_a, rps_b = statistics.median(s.rps for s in a), statistics.median(s.rps for s in b)
        cpu_a, cpu_b = (
            statistics.median(s.cpu_us for s in a),
            statistics.median(s.cpu_us for s in b),
        )
        p99_a, p99_b = (
            statistics.median(s.p99_ms for s in a),
            statistics.median(s.p99_ms for s in b),
        )
        paired = statistics.median(y.rps / x.rps for x, y in zip(a, b, strict=True))
        redis = ""
        if redis_pid is not None:
            redis_a = statistics.median(s.redis_us or 0.0 for s in a)
            redis_b = statistics.median(s.redis_us or 0.0 for s in b)
            redis = f" | redis us/req A {redis_a:5.0f} B {redis_b:5.0f} ({redis_b - redis_a:+.0f})"
        print(
            f"c={c:<3} req/s A {rps_a:7.0f} B {rps_b:7.0f} (B/A {rps_b / rps_a:.2f}, paired "
            f"{paired:.2f}) | cpu us/req A {cpu_a:5.0f} B {cpu_b:5.0f} ({cpu_b - cpu_a:+.0f}) "
            f"| p99 ms A {p99_a:.1f} B {p99_b:.1f}{redis}"
        )


if __name__ == "__main__":
    main()
