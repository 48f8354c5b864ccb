"""SQLite FTS5 against tantivy, both with BM25, on the same passages.

1. Speed and size on the 100,000-passage benchmark store (run
   ``python -m bench.knowledge`` first): build time, size on disk, and query
   latency p50/p99 over the benchmark's natural questions (medians of rounds).
2. Ranking on the real corpus (the reference texts and the built-in
   catalogue): for the retrieval test questions, is the expected document in
   the top three?

Both engines get the same passages, the same three fields (title, heading,
text) with equal weights, English stemming, and the same query words (the
analyser's stop words removed) joined by OR; results are grouped by document,
best passage first. Tantivy is measured here without the production index's
whole-title bonus, so that both rank by plain multi-field BM25.

    .venv/bin/python -m bench.fts5_vs_tantivy --rounds 3
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sqlite3
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import tantivy

from bench.knowledge import OUT, QUERIES, dir_bytes, percentile
from magisterium_a2a.skills.knowledge.index import (
    FIELD_BOOSTS,
    IndexEntry,
    IndexWriter,
    PassageIndex,
)
from magisterium_a2a.skills.knowledge.ingestion import ingest
from magisterium_a2a.skills.knowledge.library import knowledge_dir, prepare
from magisterium_a2a.skills.knowledge.settings import KnowledgeSettings
from tests.test_knowledge_refdata import CYPRIAN, QUESTIONS, SUMMA, TRENT

Search = Callable[[str, int], list[tuple[int, int]]]
"""query, limit -> (passage id, document number) best first"""


def load_passages(db: Path) -> list[tuple[int, str, str, str, str]]:
    """(passage id, document id, title, heading, text) of a store."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return conn.execute(
            "select p.id, p.doc_id, d.title, coalesce(p.heading, ''), p.text "
            "from passages p join documents d on d.id = p.doc_id order by p.id"
        ).fetchall()


def words(analyzer: PassageIndex, query: str) -> list[str]:
    """The query's words that survive the analyser (no stop words), unstemmed."""
    return [w for w in re.findall(r"[A-Za-z0-9]+", query) if analyzer.terms(w)]


def build_fts5(path: Path, rows: list[tuple[int, str, str, str, str]]) -> float:
    path.unlink(missing_ok=True)
    start = time.perf_counter()
    with sqlite3.connect(path) as conn:
        conn.execute("pragma journal_mode=off")
        conn.execute(
            "create virtual table f using fts5(doc unindexed, title, heading, text, "
            "tokenize='porter unicode61 remove_diacritics 2')"
        )
        conn.executemany("insert into f(rowid, doc, title, heading, text) values (?,?,?,?,?)", rows)
        conn.execute("insert into f(f) values('optimize')")
    return time.perf_counter() - start


def fts5_search(path: Path, analyzer: PassageIndex) -> tuple[Search, sqlite3.Connection]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    doc_numbers: dict[str, int] = {}

    def search(query: str, limit: int) -> list[tuple[int, int]]:
        terms = words(analyzer, query)
        if not terms:
            return []
        match = " OR ".join(f'"{t}"' for t in terms)
        rows = conn.execute(
            "select rowid, doc from f where f match ? order by bm25(f, 0, 1.0, 1.0, 1.0) limit ?",
            (match, limit),
        ).fetchall()
        return [(pid, doc_numbers.setdefault(doc, len(doc_numbers))) for pid, doc in rows]

    return search, conn


def build_tantivy(path: Path, rows: list[tuple[int, str, str, str, str]]) -> float:
    shutil.rmtree(path, ignore_errors=True)
    start = time.perf_counter()
    index = PassageIndex(path)
    writer = IndexWriter(index)
    writer.add(
        IndexEntry(pid, doc, "other", title, heading, text)
        for pid, doc, title, heading, text in rows
    )
    writer.commit()
    return time.perf_counter() - start


def tantivy_search(path: Path) -> Search:
    index = PassageIndex(path)
    schema = index._schema

    def search(query: str, limit: int) -> list[tuple[int, int]]:
        terms = index.terms(query)
        if not terms:
            return []
        should = [
            (
                tantivy.Occur.Should,
                tantivy.Query.term_query(schema, field, term, index_option="freq"),
            )
            for term in terms
            for field in FIELD_BOOSTS
        ]
        searcher = index._searcher
        hits = searcher.search(tantivy.Query.boolean_query(should), limit, count=False).hits
        addresses = [address for _, address in hits]
        pids = searcher.fast_field_values("pid", addresses)
        keys = searcher.fast_field_values("doc_key", addresses)
        return [(int(p or 0), int(k or 0)) for p, k in zip(pids, keys, strict=True)]

    return search


def latency(search: Search, rounds: int, repeat: int) -> dict[str, float]:
    for query in QUERIES:
        search(query, 80)
    p50s, p99s = [], []
    for _ in range(rounds):
        times = []
        for _ in range(repeat):
            for query in QUERIES:
                start = time.perf_counter()
                search(query, 80)
                times.append((time.perf_counter() - start) * 1000)
        p50s.append(percentile(times, 0.5))
        p99s.append(percentile(times, 0.99))
    return {
        "p50_ms": round(statistics.median(p50s), 2),
        "p99_ms": round(statistics.median(p99s), 2),
    }


def top_documents(search: Search, doc_of: dict[int, str], query: str, n: int = 3) -> list[str]:
    found: list[str] = []
    for pid, _ in search(query, 400):
        doc = doc_of[pid]
        if doc not in found:
            found.append(doc)
        if len(found) == n:
            break
    return found


def real_corpus() -> Path:
    data_dir = OUT / "kb-refdata"
    if not (knowledge_dir_of(data_dir) / "documents.sqlite3").exists():
        settings = KnowledgeSettings(_env_file=None, data_dir=data_dir)  # type: ignore[call-arg]
        prepare(settings)
        report = ingest([SUMMA, CYPRIAN, TRENT], settings, include="*.[hj]*")
        assert not report.errors, report.errors
    return knowledge_dir_of(data_dir) / "documents.sqlite3"


def knowledge_dir_of(data_dir: Path) -> Path:
    return knowledge_dir(KnowledgeSettings(_env_file=None, data_dir=data_dir))  # type: ignore[call-arg]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--passages", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    work = OUT / "engines"
    work.mkdir(parents=True, exist_ok=True)
    analyzer = PassageIndex(work / "analyzer")
    results: dict[str, object] = {}

    big = knowledge_dir_of(OUT / f"kb-{args.passages}") / "documents.sqlite3"
    if not big.exists():
        raise SystemExit(f"{big} is missing: run 'python -m bench.knowledge' first")
    rows = load_passages(big)
    text_mb = sum(len(r[4]) for r in rows) / 1e6
    fts_path, tv_path = work / "fts5.sqlite3", work / "tantivy"
    fts_build = build_fts5(fts_path, rows)
    tv_build = build_tantivy(tv_path, rows)
    fts, conn = fts5_search(fts_path, analyzer)
    tv = tantivy_search(tv_path)
    results["speed"] = {
        "passages": len(rows),
        "passage_text_mb": round(text_mb, 1),
        "fts5": {
            "build_s": round(fts_build, 1),
            "size_mb": round(fts_path.stat().st_size / 1e6, 1),
            **latency(fts, args.rounds, args.repeat),
        },
        "tantivy": {
            "build_s": round(tv_build, 1),
            "size_mb": round(dir_bytes(tv_path) / 1e6, 1),
            **latency(tv, args.rounds, args.repeat),
        },
    }
    conn.close()

    rows = load_passages(real_corpus())
    doc_of = {pid: doc for pid, doc, *_ in rows}
    build_fts5(work / "fts5-real.sqlite3", rows)
    build_tantivy(work / "tantivy-real", rows)
    fts, conn = fts5_search(work / "fts5-real.sqlite3", analyzer)
    tv = tantivy_search(work / "tantivy-real")
    ranking: dict[str, object] = {"passages": len(rows), "questions": len(QUESTIONS)}
    for name, search in (("fts5", fts), ("tantivy", tv)):
        misses = []
        for question, expected in QUESTIONS:
            top = top_documents(search, doc_of, question)
            if expected not in top:
                misses.append({"question": question, "expected": expected, "top3": top})
        ranking[name] = {"top3_hits": len(QUESTIONS) - len(misses), "misses": misses}
    conn.close()
    results["ranking"] = ranking
    (OUT / "fts5-vs-tantivy.json").write_text(json.dumps(results, indent=2))
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
