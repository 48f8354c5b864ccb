"""Knowledge-base benchmark: ingest throughput, index size, search latency
(BM25 and hybrid) and document fetch cost at 100,000+ passages.

Run from the repository root (the machine is shared: a few rounds, medians):

    .venv/bin/python -m bench.knowledge --passages 100000 --rounds 3

The corpus is generated from ../shared/refdata/kb-* into bench/out/ (ignored
by git). Hybrid search uses random unit vectors written straight into the
store (their quality is irrelevant to latency) and a local fake embeddings
endpoint on a free port for the query vector, so the loopback HTTP call is
part of the measured time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import shutil
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.kb_corpus import generate
from magisterium_a2a.plugin import (
    Artifact,
    FunctionSkill,
    Message,
    SkillContext,
    SkillEnvironment,
    data_part,
    text_part,
)
from magisterium_a2a.skills.engines import knowledge_base
from magisterium_a2a.skills.knowledge.embeddings import VectorIndex, to_blob
from magisterium_a2a.skills.knowledge.ingestion import ingest
from magisterium_a2a.skills.knowledge.library import knowledge_dir, prepare
from magisterium_a2a.skills.knowledge.local_embeddings import MODEL_NAME
from magisterium_a2a.skills.knowledge.retrieval import KnowledgeBase
from magisterium_a2a.skills.knowledge.settings import KnowledgeSettings
from magisterium_a2a.skills.knowledge.store import Store
from magisterium_a2a.testing.pytest_plugin import free_port
from tests.kb_support import BUILTINS
from tests.support import AllSettings, harness
from tests.test_knowledge_refdata import QUESTIONS

OUT = Path(__file__).resolve().parent / "out"
EXTRA_QUERIES = [
    "the sacrament of penance and the confession of sins",
    "whether the angels were created before the world",
    "the intellect and the will",
    "charity toward the poor",
    "the unity of the Church and schism",
    "grace and free will",
    "the resurrection of the body",
    "the ten commandments",
    "martyrdom and persecution",
    "the bishop and the clergy",
    "what is the eternal law",
    "the Holy Trinity three persons one God",
    "the Eucharist and the real presence",
    "original sin and baptism",
    "the virtues of faith hope and charity",
    "providence and the government of the world",
    "whether God can do evil",
    "the knowledge of the separated soul",
    "the creation of man in the image of God",
]
QUERIES = [q for q, _ in QUESTIONS] + EXTRA_QUERIES


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def rounds_of(samples: list[list[float]]) -> dict[str, float]:
    """Median over rounds of each round's p50 and p99, in milliseconds."""
    return {
        "p50_ms": round(statistics.median(percentile(r, 0.50) for r in samples), 3),
        "p99_ms": round(statistics.median(percentile(r, 0.99) for r in samples), 3),
        "mean_ms": round(statistics.median(statistics.fmean(r) for r in samples), 3),
    }


async def time_searches(
    kb: KnowledgeBase, rounds: int, repeat: int, what: str = "documents"
) -> list[list[float]]:
    for query in QUERIES:  # warm-up
        await kb.search_documents(query)
    samples = []
    for _ in range(rounds):
        times = []
        for _ in range(repeat):
            for query in QUERIES:
                start = time.perf_counter()
                if what == "documents":
                    await kb.search_documents(query, limit=10)
                else:
                    await kb.search_passages(query, limit=10)
                times.append((time.perf_counter() - start) * 1000)
        samples.append(times)
    return samples


def time_index(kb: KnowledgeBase, rounds: int, repeat: int) -> list[list[float]]:
    samples = []
    for _ in range(rounds):
        times = []
        for _ in range(repeat):
            for query in QUERIES:
                start = time.perf_counter()
                kb.store.index.search(query, 80)
                times.append((time.perf_counter() - start) * 1000)
        samples.append(times)
    return samples


def time_fetch(kb: KnowledgeBase, ids: list[str], rounds: int) -> dict[str, float]:
    cold, warm = [], []
    for _ in range(rounds):
        kb._fetched.clear()
        start = time.perf_counter()
        for doc_id in ids:
            kb.fetch(doc_id)
        cold.append((time.perf_counter() - start) / len(ids) * 1e6)
        start = time.perf_counter()
        for doc_id in ids:
            kb.fetch(doc_id)
        warm.append((time.perf_counter() - start) / len(ids) * 1e6)
    return {
        "uncached_us": round(statistics.median(cold), 1),
        "cached_us": round(statistics.median(warm), 1),
    }


def add_random_vectors(settings: KnowledgeSettings, model: str, dims: int) -> float:
    store = Store(knowledge_dir(settings))
    rng = np.random.default_rng(11)
    start = time.perf_counter()
    try:
        ids = [p.id for p in store.passages_without_vector(model)]
        with store.writer() as writer:
            for offset in range(0, len(ids), 10_000):
                chunk = ids[offset : offset + 10_000]
                matrix = rng.standard_normal((len(chunk), dims)).astype(np.float32)
                matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
                writer.put_vectors(model, zip(chunk, (to_blob(v) for v in matrix), strict=True))
    finally:
        store.close()
    return time.perf_counter() - start


def start_fake_endpoint(dims: int) -> tuple[subprocess.Popen[bytes], str]:
    """The fake embeddings server in its own process, once it accepts connections."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "bench.fake_embeddings_server", str(port), str(dims)]
    )
    for _ in range(100):
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port)):
            break
        time.sleep(0.05)
    return server, f"http://127.0.0.1:{port}/v1"


def noop(env: SkillEnvironment) -> list[FunctionSkill]:
    """Skills that do nothing, to measure what document_fetch adds to a request:
    ``noop`` answers one tiny part, ``same_parts`` the very parts document_fetch
    gives for Rerum Novarum (built once here), so the difference between it and
    document_fetch is the lookup alone."""
    kb = knowledge_base(env)
    found = kb.fetch("rerum-novarum")
    assert found is not None
    info = found.info
    parts = [
        text_part(found.body),
        data_part({"id": info.id, "title": info.title, "author": info.author, "ref": info.ref}),
    ]

    async def tiny(message: Message, context: SkillContext) -> list[Artifact]:
        return [context.artifact("document", [text_part("x")])]

    async def same(message: Message, context: SkillContext) -> list[Artifact]:
        return [context.artifact("document", parts)]

    return [
        FunctionSkill(id="noop", name="No-op", description="Does nothing.", handler=tiny),
        FunctionSkill(id="same_parts", name="Same", description="Canned parts.", handler=same),
    ]


async def fetch_cost(
    settings: KnowledgeSettings, doc_id: str, rounds: int, n: int = 1500
) -> dict[str, float]:
    """Server CPU per message/send (in-process ASGI app and client), no-op skill
    against document_fetch of one document, interleaved rounds, medians."""
    async with harness(settings, builtins=(*BUILTINS, "bench.knowledge:noop")) as h:
        token = await h.token(plan="enterprise", per_minute=10**9)
        fetch_parts = [{"kind": "data", "data": {"id": doc_id}}]
        costs: dict[str, list[float]] = {"noop": [], "same_parts": [], "document_fetch": []}
        for _ in range(rounds):
            for skill in costs:
                parts = fetch_parts if skill == "document_fetch" else None
                for _ in range(50):
                    await h.send(token, skill=skill, parts=parts)
                start = time.process_time()
                for _ in range(n):
                    await h.send(token, skill=skill, parts=parts)
                costs[skill].append((time.process_time() - start) / n * 1e6)
    noop_us = statistics.median(costs["noop"])
    same_us = statistics.median(costs["same_parts"])
    fetch_us = statistics.median(costs["document_fetch"])
    return {
        "noop_us_per_request": round(noop_us),
        "same_parts_us_per_request": round(same_us),
        "document_fetch_us_per_request": round(fetch_us),
        "document_fetch_minus_same_parts_us": round(fetch_us - same_us),
        "document_fetch_minus_noop_us": round(fetch_us - noop_us),
    }


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--passages", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=4, help="query-set passes per round")
    parser.add_argument("--dims", type=int, default=384)
    parser.add_argument("--reuse", action="store_true", help="keep an existing store")
    args = parser.parse_args()
    results: dict[str, Any] = {"passages_requested": args.passages, "rounds": args.rounds}
    corpus = OUT / f"corpus-{args.passages}.jsonl"
    data_dir = OUT / f"kb-{args.passages}"
    # BM25 first (embedding 100,000 passages with the real model would take hours
    # here); the default configuration then runs on random vectors stored under
    # the in-process model's name, with the real model embedding each query.
    settings = AllSettings(  # type: ignore[call-arg]
        _env_file=None, data_dir=data_dir, embeddings_local=False
    )

    if not args.reuse or not data_dir.exists():
        shutil.rmtree(data_dir, ignore_errors=True)
        start = time.perf_counter()
        results["corpus"] = generate(corpus, args.passages)
        results["corpus"]["generate_s"] = round(time.perf_counter() - start, 1)

        start = time.perf_counter()
        prepare(settings)
        results["first_start_catalogue_s"] = round(time.perf_counter() - start, 3)

        report = ingest([corpus], settings)
        assert not report.errors, report.errors
        results["ingest"] = {
            "documents": report.documents,
            "passages": report.passages,
            "seconds": round(report.seconds, 1),
            "passages_per_s": round(report.passages / report.seconds),
            "mb_per_s": round(corpus.stat().st_size / 1e6 / report.seconds, 2),
        }
        gc.collect()

    start = time.perf_counter()
    prepare(settings)
    results["prepare_s"] = round(time.perf_counter() - start, 3)
    store = Store(knowledge_dir(settings), readonly=True)
    stats = store.stats()
    store.close()
    results["store"] = {
        "documents": stats.documents,
        "passages": stats.passages,
        "database_mb": round(stats.database_bytes / 1e6, 1),
        "index_mb": round(dir_bytes(knowledge_dir(settings) / "index") / 1e6, 1),
    }

    start = time.perf_counter()
    kb = KnowledgeBase.open(settings)
    results["open_s"] = round(time.perf_counter() - start, 3)
    results["bm25_index_only"] = rounds_of(time_index(kb, args.rounds, args.repeat))
    results["bm25_passages"] = rounds_of(
        await time_searches(kb, args.rounds, args.repeat, "passages")
    )
    results["bm25_documents"] = rounds_of(await time_searches(kb, args.rounds, args.repeat))
    ids = [f"bench-{i:06d}" for i in range(0, stats.documents - 400, 37)][:500]
    results["fetch"] = time_fetch(kb, ids, args.rounds)
    await kb.aclose()
    results["message_send_cpu"] = await fetch_cost(settings, "rerum-novarum", args.rounds)

    model = f"bench-random-{args.dims}"
    results["vectors_write_s"] = round(add_random_vectors(settings, model, args.dims), 1)
    server, url = start_fake_endpoint(args.dims)
    try:
        hybrid = settings.model_copy(update={"embeddings_url": url, "embeddings_model": model})
        start = time.perf_counter()
        kb = KnowledgeBase.open(hybrid)
        results["hybrid_open_s"] = round(time.perf_counter() - start, 3)
        vectors = kb._vectors
        assert vectors is not None and len(vectors) == stats.passages
        query = vectors.matrix[0].copy()
        dense: list[list[float]] = []
        for _ in range(args.rounds):
            times = []
            for _ in range(len(QUERIES) * args.repeat):
                start = time.perf_counter()
                VectorIndex.search(vectors, query, 80)
                times.append((time.perf_counter() - start) * 1000)
            dense.append(times)
        results["dense_only"] = rounds_of(dense)
        results["hybrid_documents"] = rounds_of(await time_searches(kb, args.rounds, args.repeat))
        await kb.aclose()
    finally:
        server.terminate()
        server.wait()

    results["default_vectors_write_s"] = round(
        add_random_vectors(settings, MODEL_NAME, args.dims), 1
    )
    default = settings.model_copy(update={"embeddings_local": True})
    start = time.perf_counter()
    kb = KnowledgeBase.open(default)
    results["default_open_s"] = round(time.perf_counter() - start, 3)
    assert kb.mode.mode == "hybrid", kb.mode.reason
    results["default_documents"] = rounds_of(await time_searches(kb, args.rounds, args.repeat))
    await kb.aclose()

    OUT.mkdir(exist_ok=True)
    (OUT / f"knowledge-results-{args.passages}.json").write_text(json.dumps(results, indent=2))
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
