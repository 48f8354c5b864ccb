"""Retrieval quality on the team's evaluation set (bench/knowledge_eval.yaml):
recall@3, recall@10 and MRR of the expected documents, and search latency,
for BM25, vector, hybrid (two fusions) and the default configuration; and how
often catholic_qa's extractive provider cites an expected document.

    .venv/bin/python -m bench.knowledge_quality [--data-dir /tmp/kb-eval] [--rounds 3]
    .venv/bin/python -m bench.knowledge_quality --languages [es ja ...]   # issue 20

``--languages`` scores the default configuration on the set's translations
(``bench/knowledge_eval_i18n/<lang>.yaml``), one row per language, English first.

The store (refdata Summa, Cyprian and Trent, plus the built-in catalogue, with
the in-process model's vectors) is built on first use in --data-dir, outside
the repository, and reused: embedding the 4,700 passages takes minutes on a
busy machine. Latency is the median over rounds of each round's p50 / p99.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from magisterium_a2a.skills.knowledge.ingestion import ingest
from magisterium_a2a.skills.knowledge.library import knowledge_dir
from magisterium_a2a.skills.knowledge.retrieval import KnowledgeBase, RetrievalOptions
from magisterium_a2a.skills.knowledge.semantic import choose_embedder
from magisterium_a2a.skills.knowledge.settings import KnowledgeSettings
from magisterium_a2a.skills.knowledge.store import Store
from magisterium_a2a.skills.qa.engine import QAEngine
from magisterium_a2a.skills.qa.extractive import ExtractiveProvider

EVAL = Path(__file__).resolve().parent / "knowledge_eval.yaml"
TRANSLATIONS = Path(__file__).resolve().parent / "knowledge_eval_i18n"
REFDATA = Path(__file__).resolve().parents[1].parent / "shared" / "refdata"


@dataclass(frozen=True, slots=True)
class Question:
    set: str
    question: str
    expected: frozenset[str]


def questions(path: Path = EVAL) -> list[Question]:
    data: list[dict[str, Any]] = yaml.safe_load(path.read_text())
    return [Question(q["set"], q["question"], frozenset(q["expected"])) for q in data]


def build(settings: KnowledgeSettings) -> None:
    """Ingest the reference sets (a no-op when the store already has them)."""
    refdata = REFDATA if REFDATA.is_dir() else Path("/work/shared/refdata")
    paths = [refdata / "kb-summa-prima-pars", refdata / "kb-fathers-cyprian-letters"]
    report = ingest(paths, settings, include="*.[hj]*")
    trent = ingest([refdata / "kb-catechism-trent" / "Catholic_Catechism_Trent.md"], settings)
    print(
        f"store ready: {len(report.added) + len(trent.added)} added, "
        f"{report.embedded + trent.embedded} passages embedded"
    )


@dataclass
class Scores:
    at3: int = 0
    at10: int = 0
    rr: float = 0.0
    misses: list[str] | None = None


async def score(
    kb: KnowledgeBase, items: list[Question], rounds: int
) -> tuple[Scores, list[float]]:
    result = Scores(misses=[])
    latencies: list[list[float]] = []
    for round_no in range(rounds):
        timings = []
        for item in items:
            started = time.perf_counter()
            hits = await kb.search_documents(item.question, limit=10)
            timings.append((time.perf_counter() - started) * 1000)
            if round_no:
                continue
            ids = [hit.document.id for hit in hits]
            rank = next((i + 1 for i, d in enumerate(ids) if d in item.expected), None)
            if rank is not None:
                result.rr += 1 / rank
                result.at10 += 1
                result.at3 += rank <= 3
            if rank is None or rank > 3:
                assert result.misses is not None
                result.misses.append(f"{item.question} (rank {rank})")
        latencies.append(sorted(timings))
    return result, [
        statistics.median(t[len(t) // 2] for t in latencies),
        statistics.median(t[min(len(t) - 1, int(len(t) * 0.99))] for t in latencies),
    ]


async def cited(kb: KnowledgeBase, items: list[Question]) -> int:
    engine = QAEngine(kb, ExtractiveProvider(kb))
    count = 0
    for item in items:
        outcome = await engine.ask(item.question)
        ids = {c.get("document_id") for c in outcome.answer.citations}
        count += bool(ids & item.expected)
    return count


async def run(settings: KnowledgeSettings, rounds: int, qa: bool, path: Path = EVAL) -> None:
    items = questions(path)
    choice = choose_embedder(settings)
    store = Store(knowledge_dir(settings), readonly=True)
    base = RetrievalOptions()
    configs: list[tuple[str, RetrievalOptions, bool]] = [
        ("BM25 as before (no thesaurus)", replace(base, thesaurus=False), False),
        ("BM25 + thesaurus", base, False),
        ("vector alone", replace(base, use_lexical=False), True),
        ("hybrid, RRF, no thesaurus", replace(base, fusion="rrf", thesaurus=False), True),
        ("hybrid, RRF + thesaurus", replace(base, fusion="rrf"), True),
        ("hybrid, convex 0.3 + thesaurus", replace(base, lexical_weight=0.3), True),
        ("hybrid, convex 0.7 + thesaurus", replace(base, lexical_weight=0.7), True),
        ("hybrid, convex 0.5, no thesaurus", replace(base, thesaurus=False), True),
        ("**default**: hybrid, convex 0.5 + thesaurus", base, True),
    ]
    n = len(items)
    print(f"{n} questions; embedder: {choice.reason}\n")
    print("| configuration | recall@3 | recall@10 | MRR | p50 ms | p99 ms |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    kbs: dict[str, KnowledgeBase] = {}
    misses: dict[str, list[str]] = {}
    for name, options, semantic in configs:
        kb = KnowledgeBase(
            store,
            choice.embedder if semantic else None,
            options=options,
            cross_lingual=choice.cross_lingual if semantic else None,
        )
        kbs[name] = kb
        result, (p50, p99) = await score(kb, items, rounds)
        misses[name] = result.misses or []
        print(
            f"| {name} | {result.at3}/{n} ({100 * result.at3 / n:.0f}%) | "
            f"{result.at10}/{n} ({100 * result.at10 / n:.0f}%) | {result.rr / n:.3f} | "
            f"{p50:.1f} | {p99:.1f} |"
        )
    for name, missed in misses.items():
        if "default" in name or "BM25 as before" in name:
            print(f"\nmissed at 3 by {name}:")
            for line in missed:
                print(f"- {line}")
    if qa:
        before = await cited(kbs[configs[0][0]], items)
        after = await cited(kbs[configs[-1][0]], items)
        print(
            f"\nextractive catholic_qa cites an expected document: before {before}/{n}, "
            f"default {after}/{n}"
        )
    store.close()


async def languages(
    settings: KnowledgeSettings, rounds: int, wanted: list[str], glossary: bool = True
) -> None:
    """recall@3, recall@10, MRR and latency of the default configuration, per language."""
    kb = KnowledgeBase.open(settings, RetrievalOptions(glossary=glossary))
    print(f"search mode: {kb.mode.reason}\n")
    print("| language | recall@3 | recall@10 | MRR | p50 ms | p99 ms |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    codes = ["en", *sorted(p.stem for p in TRANSLATIONS.glob("*.yaml"))]
    misses: dict[str, list[str]] = {}
    for code in codes:
        if wanted and code not in wanted:
            continue
        items = questions(EVAL if code == "en" else TRANSLATIONS / f"{code}.yaml")
        result, (p50, p99) = await score(kb, items, rounds)
        n = len(items)
        misses[code] = result.misses or []
        print(
            f"| {code} | {result.at3}/{n} ({100 * result.at3 / n:.0f}%) | "
            f"{result.at10}/{n} ({100 * result.at10 / n:.0f}%) | {result.rr / n:.3f} | "
            f"{p50:.1f} | {p99:.1f} |"
        )
    for code, missed in misses.items():
        print(f"\nmissed at 3 ({code}): " + "; ".join(missed))
    await kb.aclose()


FIRST_START = """
import asyncio, sys, time
from pathlib import Path
started = time.perf_counter()
from magisterium_a2a.skills.knowledge.retrieval import KnowledgeBase
from magisterium_a2a.skills.knowledge.settings import KnowledgeSettings
mode = sys.argv[2]
settings = KnowledgeSettings(_env_file=None, data_dir=Path(sys.argv[1]),
                             embeddings_local=mode != "bm25",
                             embeddings_multilingual=mode == "default")
kb = KnowledgeBase.open(settings)
async def searches():
    for question in ("Does God ever change?", "¿Cambia Dios alguna vez?", "神は変わりますか"):
        await kb.search_documents(question)
asyncio.run(searches())
rss = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmRSS"))
print(time.perf_counter() - started, rss / 1024)
"""

MODES = {
    "bm25": "BM25 only",
    "english": "English model only (A2A_EMBEDDINGS_MULTILINGUAL=false)",
    "default": "default (English and cross-lingual models)",
}


def first_start(rounds: int) -> None:
    """A fresh data directory opened and searched in three languages, in a new
    process: the knowledge base's share of a first start, and the resident
    memory after it, in each mode."""
    results: dict[str, list[tuple[float, float]]] = {mode: [] for mode in MODES}
    with tempfile.TemporaryDirectory() as tmp:
        for round_no in range(rounds):
            for mode in MODES:
                data = Path(tmp) / f"{round_no}-{mode}"
                out = subprocess.run(
                    [sys.executable, "-c", FIRST_START, str(data), mode],
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout.split()
                results[mode].append((float(out[0]), float(out[1])))
    for mode, values in results.items():
        seconds = statistics.median(v[0] for v in values)
        rss = statistics.median(v[1] for v in values)
        print(f"first start, {MODES[mode]}: median {seconds:.2f} s, {rss:.0f} MB resident")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", type=Path, default=Path("/tmp/magisterium-kb-eval"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-qa", action="store_true")
    parser.add_argument("--first-start", type=int, default=0, metavar="ROUNDS")
    parser.add_argument("--eval", type=Path, default=EVAL, help="the questions (YAML)")
    parser.add_argument(
        "--languages", nargs="*", metavar="CODE", help="score the translations (all if none named)"
    )
    parser.add_argument(
        "--no-glossary", action="store_true", help="with --languages: the model and BM25 alone"
    )
    args = parser.parse_args()
    if args.first_start:
        first_start(args.first_start)
        return
    settings = KnowledgeSettings(_env_file=None, data_dir=args.data_dir)  # type: ignore[call-arg]
    build(settings)
    if args.languages is not None:
        asyncio.run(languages(settings, args.rounds, args.languages, not args.no_glossary))
        return
    asyncio.run(run(settings, args.rounds, not args.no_qa, args.eval))


if __name__ == "__main__":
    main()
