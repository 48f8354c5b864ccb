"""Latency of catholic_qa's engine with the extractive provider (no language
model): the knowledge base's 31 retrieval questions over the built-in catalogue
plus the three reference data sets, engine level (no HTTP), several rounds.
Usage (from the repository root): python -m bench.qa_extractive [ROUNDS]"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from magisterium_a2a.skills.knowledge.ingestion import ingest
from magisterium_a2a.skills.knowledge.retrieval import KnowledgeBase
from magisterium_a2a.skills.qa.engine import QAEngine
from magisterium_a2a.skills.qa.extractive import ExtractiveProvider
from tests.support import AllSettings
from tests.test_knowledge_refdata import CYPRIAN, QUESTIONS, SUMMA, TRENT


async def rounds(settings: AllSettings, count: int) -> list[list[float]]:
    kb = KnowledgeBase.open(settings)
    engine = QAEngine(kb, ExtractiveProvider(kb), sources=settings.qa_sources)
    results: list[list[float]] = []
    try:
        for _ in range(count):
            timings = []
            for question, _expected in QUESTIONS:
                started = time.perf_counter()
                await engine.ask(question)
                timings.append((time.perf_counter() - started) * 1000)
            results.append(sorted(timings))
    finally:
        await kb.aclose()
    return results


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    with tempfile.TemporaryDirectory() as tmp:
        settings = AllSettings(_env_file=None, data_dir=Path(tmp))  # type: ignore[call-arg]
        ingest([SUMMA, CYPRIAN, TRENT], settings, include="*.[hj]*")
        for number, timings in enumerate(asyncio.run(rounds(settings, count)), 1):
            p90 = timings[int(len(timings) * 0.9)]
            print(
                f"round {number}: {len(timings)} questions, median "
                f"{statistics.median(timings):.1f} ms, p90 {p90:.1f} ms, max {timings[-1]:.1f} ms"
            )


if __name__ == "__main__":
    main()
