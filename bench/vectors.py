"""Semantic search at a million passages: the approximate index (usearch HNSW,
``skills/.../knowledge/ann.py``) against exact search (issue 22).

    .venv/bin/python -m bench.vectors synthetic [--n 1000000] [--data clustered|uniform]
        [--dtype f16] [--connectivity 16] [--expansion-add 128] [--expansion-search 32,64,128]
    .venv/bin/python -m bench.vectors threshold          # exact against ANN, 5,000 to 50,000
    .venv/bin/python -m bench.vectors refdata [--data-dir bench/out/kb-refdata]
    .venv/bin/python -m bench.vectors fixture             # tests/data/refdata-vectors.npz
    .venv/bin/python -m bench.vectors sweep               # dtype, connectivity, expansions
    .venv/bin/python -m bench.vectors retrieval           # the evaluation set, exact and ANN

``synthetic``: ``--n`` vectors of 384 dimensions, made deterministically from a
seed. ``uniform``: every vector drawn uniformly on the sphere (normalised
Gaussian), the pessimal case for a graph index: no neighbourhood is closer
than another. ``clustered``: a two-level mixture like text embeddings (a
common direction, 2,000 topics of lognormal sizes, 10 subtopics each, and
Gaussian noise; cosines of about 0.6 within a subtopic, 0.1 across topics).
Queries are drawn the same way, apart from the stored vectors. Each vector
has a kind (ten kinds, from 40% down to 0.5% of them) and 20 vectors make a
document. The index is built on all cores and cached under bench/out/ (git
ignores it): a second run only searches. The search runs in a fresh process
that maps the file (so its resident memory is what a server's would be), on
one thread: 1,000+ queries, p50 and p99 in milliseconds (wall clock, and the
CPU time of the searching thread), recall@10 against exact search over the
float32 vectors on a sample, and the same for the kind filter. Exact search
at the same scale (the float32 matrix, one BLAS thread, as ``VectorIndex``)
is measured for comparison.

``refdata``: the real model's vectors of the refdata corpus (the store
bench/knowledge_quality.py builds; ``--data-dir`` may name it), the
evaluation set's questions embedded by the same model as queries, the index
forced on (threshold 0): recall@10 against exact, p50/p99 of both.
``fixture`` writes those vectors (int8 with a scale per row) and the
questions' (float16) for tests/test_knowledge_ann.py's quality floor.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from threadpoolctl import threadpool_limits

from magisterium_a2a.skills.knowledge import ann
from magisterium_a2a.skills.knowledge.embeddings import VectorIndex

OUT = Path(__file__).resolve().parent / "out"
FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "data" / "refdata-vectors.npz"
DIMS = 384
SEED = 22
KINDS = ["k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9"]
KIND_SHARES = np.array([0.40, 0.20, 0.12, 0.08, 0.06, 0.05, 0.04, 0.03, 0.015, 0.005])
PER_DOCUMENT = 20
TOPICS = 2000
SUBTOPICS = 10
Matrix = npt.NDArray[np.float32]


# -- data --------------------------------------------------------------------------------


class Mixture:
    """The clustered mixture: a common direction, topics, subtopics, noise."""

    def __init__(self, dims: int, seed: int = SEED) -> None:
        rng = np.random.default_rng(seed)
        self.dims = dims
        self.common = _unit(rng.standard_normal(dims).astype(np.float32))
        self.topics = _unit(rng.standard_normal((TOPICS, dims)).astype(np.float32))
        self.subtopics = _unit(rng.standard_normal((TOPICS, SUBTOPICS, dims)).astype(np.float32))
        sizes = rng.lognormal(0.0, 1.0, TOPICS)
        self.weights = sizes / sizes.sum()

    def draw(self, rng: np.random.Generator, n: int) -> Matrix:
        topic = rng.choice(TOPICS, size=n, p=self.weights)
        sub = rng.integers(0, SUBTOPICS, size=n)
        noise = rng.standard_normal((n, self.dims), dtype=np.float32) * (0.55 / np.sqrt(self.dims))
        mixed = 0.35 * self.common + 0.8 * self.topics[topic] + 0.6 * self.subtopics[topic, sub]
        return _unit(mixed + noise)


def _unit(matrix: Any) -> Any:
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return (matrix / norms).astype(np.float32)


def chunks(data: str, n: int, dims: int, seed: int, size: int = 50_000) -> Any:
    """The ``n`` vectors of a data set, ``size`` at a time, the same on every run."""
    mixture = Mixture(dims) if data == "clustered" else None
    for start in range(0, n, size):
        rng = np.random.default_rng([seed, start])
        count = min(size, n - start)
        if mixture is not None:
            yield start, mixture.draw(rng, count)
        else:
            yield start, _unit(rng.standard_normal((count, dims), dtype=np.float32))


def queries(data: str, count: int, dims: int) -> Matrix:
    rng = np.random.default_rng([SEED, 999_999_999])
    if data == "clustered":
        return np.asarray(Mixture(dims).draw(rng, count))
    return np.asarray(_unit(rng.standard_normal((count, dims), dtype=np.float32)))


def kinds_of(ids: npt.NDArray[np.int64]) -> list[str]:
    rng = np.random.default_rng([SEED, int(ids[0])])
    return [KINDS[i] for i in rng.choice(len(KINDS), size=ids.shape[0], p=KIND_SHARES)]


def batches(data: str, n: int, dims: int) -> Any:
    for start, matrix in chunks(data, n, dims, SEED):
        ids = np.arange(start + 1, start + 1 + matrix.shape[0], dtype=np.int64)
        yield ids, ids // PER_DOCUMENT, kinds_of(ids), matrix


# -- measures ----------------------------------------------------------------------------


def rss() -> dict[str, float]:
    """The process's resident memory, MB: all, file-backed (the mapped index), anonymous."""
    found: dict[str, float] = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "RssAnon", "RssFile", "VmHWM"):
            found[name] = int(value.split()[0]) / 1024
    return found


def percentiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return (
        ordered[len(ordered) // 2],
        ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))],
    )


def timed(search: Any, items: Matrix, **kwargs: Any) -> tuple[list[Any], list[float], list[float]]:
    """Each query searched once: results, wall ms, CPU ms of this thread."""
    results, wall, cpu = [], [], []
    for query in items:
        started, thread = time.perf_counter(), time.thread_time()
        results.append(search(query, **kwargs))
        cpu.append((time.thread_time() - thread) * 1000)
        wall.append((time.perf_counter() - started) * 1000)
    return results, wall, cpu


def recall(found: list[list[int]], truth: list[list[int]], k: int = 10) -> float:
    hit = sum(len(set(f[:k]) & set(t[:k])) for f, t in zip(found, truth, strict=True))
    return hit / sum(min(k, len(t)) for t in truth)


def exact_truth(
    data: str, n: int, dims: int, items: Matrix, kind: str | None = None, k: int = 10
) -> list[list[int]]:
    """The exact top ``k`` ids of each query over the float32 vectors (streamed)."""
    best_scores = np.full((items.shape[0], k), -np.inf, dtype=np.float32)
    best_ids = np.zeros((items.shape[0], k), dtype=np.int64)
    for ids, _, kinds, matrix in batches(data, n, dims):
        scores = items @ matrix.T
        if kind is not None:
            mask = np.array([x == kind for x in kinds])
            scores[:, ~mask] = -np.inf
        both = np.concatenate([best_scores, scores], axis=1)
        both_ids = np.concatenate([best_ids, np.broadcast_to(ids, scores.shape)], axis=1)
        top = np.argpartition(-both, k - 1, axis=1)[:, :k]
        best_scores = np.take_along_axis(both, top, axis=1)
        best_ids = np.take_along_axis(both_ids, top, axis=1)
    order = np.argsort(-best_scores, axis=1)
    return np.take_along_axis(best_ids, order, axis=1).tolist()  # type: ignore[no-any-return]


# -- synthetic ---------------------------------------------------------------------------


def file_for(args: argparse.Namespace) -> Path:
    return OUT / (
        f"{args.data}-{args.n}-{args.dims}-{args.dtype}-m{args.connectivity}"
        f"-ef{args.expansion_add}{ann.SUFFIX}"
    )


def synthetic(args: argparse.Namespace) -> None:
    OUT.mkdir(exist_ok=True)
    path = file_for(args)
    print(f"## {args.data}, {args.n:,} vectors of {args.dims} dimensions, {machine()}\n")
    if path.exists():
        print(f"index: cached {path.name} ({path.stat().st_size / 1e6:.0f} MB)")
    else:
        started, cpu = time.perf_counter(), time.process_time()
        ann.build_file(
            path,
            "synthetic",
            batches(args.data, args.n, args.dims),
            dtype=args.dtype,
            connectivity=args.connectivity,
            expansion_add=args.expansion_add,
        )
        wall = time.perf_counter() - started
        print(
            f"index: built {path.name} in {wall:.0f} s ({time.process_time() - cpu:.0f} s of CPU, "
            f"{os.cpu_count()} cores), {path.stat().st_size / 1e6:.0f} MB"
        )
        (path.with_suffix(".build.json")).write_text(
            json.dumps({"seconds": wall, "cpu": time.process_time() - cpu})
        )
    truth_path = OUT / f"truth-{args.data}-{args.n}-{args.dims}-{args.sample}.json"
    items = queries(args.data, args.queries, args.dims)
    if truth_path.exists():
        truth = json.loads(truth_path.read_text())
    else:
        sample = items[: args.sample]
        with threadpool_limits(None):
            truth = {
                "all": exact_truth(args.data, args.n, args.dims, sample),
                "k3": exact_truth(args.data, args.n, args.dims, sample, "k3"),
                "k9": exact_truth(args.data, args.n, args.dims, sample, "k9"),
            }
        truth_path.write_text(json.dumps(truth))
    np.save(OUT / "queries.npy", items)
    print(f"\n{args.queries} queries, one thread; recall@10 on the first {args.sample}\n")
    print("| expansion | filter | queries | p50 / p99 ms, two rounds (CPU ms) | recall@10 |")
    print("| --- | --- | ---: | --- | ---: |")
    for ef in args.expansion_search:
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "bench.vectors",
                "serve",
                str(path),
                str(OUT / "queries.npy"),
                str(truth_path),
                str(ef),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        print(result.stdout, end="")
    if args.exact:
        exact_at_scale(args, items)


def serve(path: Path, queries_path: Path, truth_path: Path, ef: int) -> None:
    """In a fresh process: map the file, search on one thread, say what it cost."""
    before = rss()
    started = time.perf_counter()
    file = ann.open_file(path)
    opened = (time.perf_counter() - started) * 1000
    file.expansion = ef
    vectors = ann.AnnVectors(file, np.zeros(0, dtype=np.int64))
    items = np.load(queries_path)
    truth = json.loads(truth_path.read_text())
    sample = len(truth["all"])
    timed(vectors.search, items[:100], limit=10)  # warm-up: the pages a search touches
    rows = []
    cases = (
        ("no filter", None, 10),
        ("no filter, 80 asked (as search_documents)", None, 80),
        ("kind k3 (8%)", "k3", 10),
        ("kind k9 (0.5%)", "k9", 10),
    )
    for label, kind, limit in cases:
        rounds = []
        for _ in range(2):
            found, wall, cpu = timed(vectors.search, items, limit=limit, kind=kind)
            rounds.append((percentiles(wall), percentiles(cpu)))
        ids = [[hit[0] for hit in hits] for hits in found[:sample]]
        # recall@10: the first ten found against exact search's ten.
        got = recall(ids, truth["all" if kind is None else kind])
        rows.append((label, rounds, got))
    after = rss()
    for label, rounds, got in rows:
        times = "; ".join(
            f"{w50:.2f} / {w99:.2f} (CPU {c50:.2f} / {c99:.2f})"
            for (w50, w99), (c50, c99) in rounds
        )
        print(
            f"| ef {ef} | {label} | {len(items)} | {times} | {got:.3f} |",
        )
    print(
        f"  (ef {ef}: opened and checked in {opened:.0f} ms; RSS {before['VmRSS']:.0f} MB before, "
        f"{after['VmRSS']:.0f} MB after ({after['RssFile']:.0f} MB of it the mapped file, "
        f"{after['RssAnon']:.0f} MB anonymous))"
    )


def exact_at_scale(args: argparse.Namespace, items: Matrix) -> None:
    """Exact search over the float32 matrix (what ``VectorIndex`` does) at --n."""
    matrix = np.empty((args.n, args.dims), dtype=np.float32)
    for start, chunk in chunks(args.data, args.n, args.dims, SEED):
        matrix[start : start + chunk.shape[0]] = chunk
    ids = np.arange(1, args.n + 1, dtype=np.int64)
    kinds = np.array(KINDS)[np.zeros(args.n, dtype=np.int64)]
    index = VectorIndex(ids, ids // PER_DOCUMENT, kinds, matrix)
    count = min(len(items), args.exact_queries)
    timed(index.search, items[:5], limit=10)
    for _ in range(2):
        _, wall, cpu = timed(index.search, items[:count], limit=10)
        (w50, w99), (c50, c99) = percentiles(wall), percentiles(cpu)
        print(
            f"| exact (float32, 1 thread) | no filter | {count} | {w50:.1f} / {w99:.1f} "
            f"(CPU {c50:.1f} / {c99:.1f}) | 1.000 |"
        )
    print(f"  (exact: RSS {rss()['VmRSS']:.0f} MB with the float32 matrix)")


def threshold(args: argparse.Namespace) -> None:
    """Exact against ANN p50/p99 at small sizes: where the index starts to pay."""
    print(f"## where the index starts to pay (clustered, {machine()})\n")
    print(
        "| vectors | exact p50 / p99 ms (CPU p50) | ANN p50 / p99 ms (CPU p50) | ANN recall@10 "
        "| build s |"
    )
    print("| ---: | ---: | ---: | ---: | ---: |")
    items = queries("clustered", 300, args.dims)
    for n in args.sizes:
        matrix = np.concatenate([m for _, m in chunks("clustered", n, args.dims, SEED)])
        ids = np.arange(1, n + 1, dtype=np.int64)
        exact = VectorIndex(ids, ids // PER_DOCUMENT, np.array(["k0"] * n), matrix)
        path = OUT / f"threshold-{n}{ann.SUFFIX}"
        started = time.perf_counter()
        ann.build_file(path, "synthetic", batches("clustered", n, args.dims))
        built = time.perf_counter() - started
        vectors = ann.AnnVectors(ann.open_file(path), np.zeros(0, dtype=np.int64))
        timed(exact.search, items[:20], limit=10)
        timed(vectors.search, items[:20], limit=10)
        truth, exact_wall, exact_cpu = timed(exact.search, items, limit=10)
        found, ann_wall, ann_cpu = timed(vectors.search, items, limit=10)
        got = recall([[h[0] for h in f] for f in found], [[h[0] for h in t] for t in truth])
        (e50, e99), (a50, a99) = percentiles(exact_wall), percentiles(ann_wall)
        ec, ac = percentiles(exact_cpu)[0], percentiles(ann_cpu)[0]
        print(
            f"| {n:,} | {e50:.2f} / {e99:.2f} ({ec:.2f}) | {a50:.2f} / {a99:.2f} ({ac:.2f}) "
            f"| {got:.3f} | {built:.1f} |"
        )
        path.unlink()


# -- refdata -----------------------------------------------------------------------------


Rows = list[tuple[int, str, str, bytes]]


def refdata_vectors(data_dir: Path) -> tuple[str, Rows, Matrix, list[str]]:
    """The store's English-model vectors and the evaluation set's questions embedded."""
    from bench.knowledge_quality import questions
    from magisterium_a2a.skills.knowledge.local_embeddings import MODEL_NAME, LocalEmbedder
    from magisterium_a2a.skills.knowledge.store import Store

    store = Store(data_dir / "knowledge", readonly=True)
    try:
        rows = store.vectors(MODEL_NAME)
    finally:
        store.close()
    texts = [q.question for q in questions()]
    embedder = LocalEmbedder.load(threads=1)
    asked = np.concatenate(list(embedder.embed(texts)))
    return MODEL_NAME, rows, asked.astype(np.float32), texts


def refdata(args: argparse.Namespace) -> None:
    model, rows, asked, texts = refdata_vectors(args.data_dir)
    print(f"## refdata, the real model ({model}): {len(rows):,} vectors, {machine()}\n")
    exact = VectorIndex.load(rows)
    assert exact is not None
    OUT.mkdir(exist_ok=True)
    path = OUT / f"refdata{ann.SUFFIX}"
    started = time.perf_counter()
    ann.build_file(path, model, ann._batches([rows], exact.dims))
    built = time.perf_counter() - started
    vectors = ann.AnnVectors(ann.open_file(path), np.zeros(0, dtype=np.int64))
    print(f"index: built in {built:.2f} s, {path.stat().st_size / 1e6:.1f} MB")
    print(f"{len(texts)} questions of bench/knowledge_eval.yaml, each searched 10 times\n")
    print("| search | p50 / p99 ms | recall@10 against exact |")
    print("| --- | ---: | ---: |")
    repeated = np.repeat(asked, 10, axis=0)
    for _ in range(2):
        truth, wall, _ = timed(exact.search, repeated, limit=10)
        e50, e99 = percentiles(wall)
        found, wall, _ = timed(vectors.search, repeated, limit=10)
        a50, a99 = percentiles(wall)
        got = recall([[h[0] for h in f] for f in found], [[h[0] for h in t] for t in truth])
        print(f"| exact | {e50:.2f} / {e99:.2f} | 1.000 |")
        print(f"| ANN (ef {ann.EXPANSION_SEARCH}) | {a50:.2f} / {a99:.2f} | {got:.3f} |")


def retrieval(args: argparse.Namespace) -> None:
    """The evaluation set through the whole search (BM25 fused with the model), the
    model's vectors searched exactly and through the index (threshold 0)."""
    import asyncio

    from bench.knowledge_quality import questions, score
    from magisterium_a2a.skills.knowledge.retrieval import KnowledgeBase, RetrievalOptions
    from magisterium_a2a.skills.knowledge.semantic import choose_embedder
    from magisterium_a2a.skills.knowledge.settings import KnowledgeSettings
    from magisterium_a2a.skills.knowledge.store import Store

    settings = KnowledgeSettings(  # type: ignore[call-arg]
        _env_file=None,
        data_dir=args.data_dir,
        embeddings_multilingual=False,
        vectors_ann_min_passages=0,
    )
    print(f"## the evaluation set through the whole search, {machine()}\n")
    print("index:", "; ".join(ann.update(settings, [choose_embedder(settings).embedder.model])))
    items = questions()
    store = Store(settings.knowledge_dir, readonly=True)
    print("\n| vectors searched | recall@3 | recall@10 | MRR | p50 / p99 ms |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for label, minimum in (("exact", 10**9), ("ANN (threshold 0)", 0)):
        kb = KnowledgeBase(
            store,
            choose_embedder(settings).embedder,
            options=RetrievalOptions(),
            ann_min_passages=minimum,
        )
        result, (p50, p99) = asyncio.run(score(kb, items, 3))
        n = len(items)
        print(
            f"| {label}: {next(iter(kb.vector_states.values()))[:40]}... | {result.at3}/{n} | "
            f"{result.at10}/{n} | {result.rr / n:.3f} | {p50:.1f} / {p99:.1f} |"
        )
    store.close()


def fixture(args: argparse.Namespace) -> None:
    model, rows, asked, texts = refdata_vectors(args.data_dir)
    exact = VectorIndex.load(rows)
    assert exact is not None
    matrix = exact.matrix
    scale = np.abs(matrix).max(axis=1) / 127.0
    quantised = np.round(matrix / scale[:, None]).astype(np.int8)
    FIXTURE.parent.mkdir(exist_ok=True)
    np.savez_compressed(
        FIXTURE,
        model=np.array(model),
        ids=exact.ids,
        kinds=exact.kinds,
        documents=exact.keys,
        vectors=quantised,
        scale=scale.astype(np.float32),
        questions=asked.astype(np.float16),
    )
    size = FIXTURE.stat().st_size
    print(f"{FIXTURE}: {len(rows)} vectors, {len(texts)} questions, {size:,} bytes")


def fixture_vectors() -> tuple[Any, Any, Any, Matrix, Matrix]:
    with np.load(FIXTURE) as data:
        ids, kinds, documents = data["ids"], data["kinds"], data["documents"]
        vectors = data["vectors"].astype(np.float32) * data["scale"][:, None]
        asked = data["questions"].astype(np.float32)
    return ids, kinds, documents, np.asarray(_unit(vectors)), asked


def sweep(args: argparse.Namespace) -> None:
    """dtype, connectivity and expansions on the real model's refdata vectors (the
    test fixture): recall@10 against exact and CPU ms per search."""
    ids, kinds, documents, vectors, asked = fixture_vectors()
    truth_index = VectorIndex(ids, documents, kinds, vectors)
    truth = [[h[0] for h in truth_index.search(q, 10)] for q in asked]
    print(f"## parameters on the refdata vectors ({len(ids):,}, the real model), {machine()}\n")
    print(
        "| dtype | connectivity | expansion_add | MB | "
        + " | ".join(f"ef {ef}: recall@10, CPU ms" for ef in args.expansion_search)
        + " |"
    )
    print("| --- | ---: | ---: | ---: |" + " ---: |" * len(args.expansion_search))
    OUT.mkdir(exist_ok=True)
    for dtype in ("f16", "i8"):
        for connectivity in (16, 32):
            for expansion_add in (128, 256):
                path = OUT / f"sweep{ann.SUFFIX}"
                batch = (ids, documents, list(kinds), vectors)
                ann.build_file(
                    path,
                    "sweep",
                    [batch],
                    dtype=dtype,
                    connectivity=connectivity,
                    expansion_add=expansion_add,
                )
                file = ann.open_file(path)
                index = ann.AnnVectors(file, np.zeros(0, dtype=np.int64))
                cells = []
                for ef in args.expansion_search:
                    file.expansion = ef
                    found, _, cpu = timed(index.search, asked, limit=10)
                    got = recall([[h[0] for h in f] for f in found], truth)
                    cells.append(f"{got:.3f}, {statistics.median(cpu):.2f}")
                size = path.stat().st_size / 1e6
                print(
                    f"| {dtype} | {connectivity} | {expansion_add} | {size:.1f} | "
                    + " | ".join(cells)
                    + " |"
                )
                path.unlink()


def machine() -> str:
    load = os.getloadavg()
    return (
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, load average "
        f"{load[0]:.1f} at the start"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    syn = sub.add_parser("synthetic")
    syn.add_argument("--n", type=int, default=1_000_000)
    syn.add_argument("--dims", type=int, default=DIMS)
    syn.add_argument("--data", choices=["clustered", "uniform"], default="clustered")
    syn.add_argument("--dtype", default=ann.DTYPE)
    syn.add_argument("--connectivity", type=int, default=ann.CONNECTIVITY)
    syn.add_argument("--expansion-add", type=int, default=ann.EXPANSION_ADD)
    syn.add_argument(
        "--expansion-search",
        type=lambda s: [int(x) for x in s.split(",")],
        default=[ann.EXPANSION_SEARCH],
    )
    syn.add_argument("--queries", type=int, default=1000)
    syn.add_argument("--sample", type=int, default=200, help="queries whose recall is measured")
    syn.add_argument("--exact", action="store_true", help="also time exact search at --n")
    syn.add_argument("--exact-queries", type=int, default=100)
    thr = sub.add_parser("threshold")
    thr.add_argument("--dims", type=int, default=DIMS)
    thr.add_argument(
        "--sizes",
        type=lambda s: [int(x) for x in s.split(",")],
        default=[5_000, 10_000, 20_000, 50_000],
    )
    swp = sub.add_parser("sweep")
    swp.add_argument(
        "--expansion-search",
        type=lambda s: [int(x) for x in s.split(",")],
        default=[64, 128, 256],
    )
    for name in ("refdata", "fixture", "retrieval"):
        ref = sub.add_parser(name)
        ref.add_argument("--data-dir", type=Path, default=OUT / "kb-refdata")
    srv = sub.add_parser("serve")
    srv.add_argument("file", type=Path)
    srv.add_argument("queries", type=Path)
    srv.add_argument("truth", type=Path)
    srv.add_argument("ef", type=int)
    args = parser.parse_args()
    if args.command == "serve":
        serve(args.file, args.queries, args.truth, args.ef)
    elif args.command == "synthetic":
        synthetic(args)
    elif args.command == "threshold":
        threshold(args)
    elif args.command == "sweep":
        sweep(args)
    elif args.command == "retrieval":
        retrieval(args)
    elif args.command == "refdata":
        refdata(args)
    else:
        fixture(args)


if __name__ == "__main__":
    main()
