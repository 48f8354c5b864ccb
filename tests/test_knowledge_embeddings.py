"""The semantic layer against a real HTTP server speaking the OpenAI
embeddings API (a fake model on a free port): vectors stored at ingestion,
hybrid search fused by reciprocal rank, and BM25 when the endpoint fails."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from magisterium_a2a.server.config import Settings
from magisterium_a2a.skills.knowledge.library import knowledge_dir
from magisterium_a2a.skills.knowledge.retrieval import KnowledgeBase, fuse, fuse_scores
from magisterium_a2a.skills.knowledge.store import Store
from tests.kb_support import (
    BUILTINS,
    FakeEmbeddings,
    fake_embeddings,
    result_ids,
    run_cli,
    search,
)
from tests.support import harness

MILL = "# The Mill\n\nThe employees of the mill deserve fair pay and a day of rest.\n"
PONTIFF = "# Letters of the Roman Pontiff\n\nThe Roman Pontiff writes to the bishops.\n"
GARDEN = "# The Garden\n\nTomatoes and beans grow along the fence in summer.\n"


@pytest.fixture
def fake() -> Iterator[FakeEmbeddings]:
    with fake_embeddings() as server:
        yield server


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "mill.md").write_text(MILL)
    (src / "pontiff.md").write_text(PONTIFF)
    (src / "garden.md").write_text(GARDEN)
    return src


def with_embeddings(settings: Settings, fake: FakeEmbeddings) -> Settings:
    return settings.model_copy(
        update={
            "embeddings_url": fake.url,
            "embeddings_model": "fake-mini",
            "builtin_corpus": False,
        }
    )


def env(settings: Settings) -> dict[str, str]:
    return {
        "A2A_EMBEDDINGS_URL": settings.embeddings_url,
        "A2A_EMBEDDINGS_MODEL": settings.embeddings_model,
        "A2A_BUILTIN_CORPUS": "false",
        "A2A_EMBEDDINGS_API_KEY": "sk-test-key",
    }


async def test_hybrid_search_finds_what_words_alone_miss(
    settings: Settings, fake: FakeEmbeddings, corpus: Path
) -> None:
    hybrid = with_embeddings(settings, fake)
    result = run_cli(hybrid, "ingest", str(corpus), env=env(hybrid))
    assert result.exit_code == 0, result.output
    assert "3 passages written, 3 embedded" in " ".join(result.output.split())
    assert fake.requests[0]["path"] == "/v1/embeddings"
    assert fake.requests[0]["body"]["model"] == "fake-mini"
    assert fake.requests[0]["auth"] == "Bearer sk-test-key"
    assert "The Mill" in fake.requests[0]["body"]["input"][1]

    store = Store(knowledge_dir(hybrid))
    assert store.stats().embedded == {"fake-mini": 3}
    store.close()

    async with harness(hybrid, builtins=BUILTINS) as h:
        token = await h.token()
        # No stored passage contains "workers" or "wages": BM25 alone finds nothing.
        ids = result_ids(await search(h, token, "workers and their wages"))
        assert ids[0] == "mill"
        assert result_ids(await search(h, token, {"query": "papal letters", "limit": 1})) == [
            "pontiff"
        ]
        queries = [r for r in fake.requests if r["body"]["input"] == ["workers and their wages"]]
        assert len(queries) == 1

    words_only = hybrid.model_copy(update={"embeddings_url": "", "embeddings_model": ""})
    async with harness(words_only, builtins=BUILTINS) as h:
        assert result_ids(await search(h, await h.token(), "workers and their wages")) == []


async def test_a_failing_endpoint_degrades_a_search_to_bm25(
    settings: Settings, fake: FakeEmbeddings, corpus: Path
) -> None:
    hybrid = with_embeddings(settings, fake)
    assert run_cli(hybrid, "ingest", str(corpus), env=env(hybrid)).exit_code == 0
    kb = KnowledgeBase.open(hybrid)
    try:
        assert kb.mode.mode == "hybrid"
        assert "3 of 3 passages have a vector" in kb.mode.reason
        fake.fail = True
        hits = await kb.search_documents("the mill employees", limit=3)
        assert [h.document.id for h in hits] == ["mill"]
        assert await kb.search_documents("workers and their wages") == []
    finally:
        await kb.aclose()


def test_ingest_fails_cleanly_when_the_endpoint_does_and_a_rerun_finishes(
    settings: Settings, fake: FakeEmbeddings, corpus: Path
) -> None:
    hybrid = with_embeddings(settings, fake)
    fake.fail = True
    result = run_cli(hybrid, "ingest", str(corpus), env=env(hybrid))
    assert result.exit_code == 1
    text = " ".join(result.output.split())
    assert "Embedding failed: the embeddings endpoint" in text
    assert "HTTP 503" in text
    assert "run 'magisterium-a2a documents embed' to compute the rest" in text
    # The documents are committed before their vectors: found by their words meanwhile.
    store = Store(knowledge_dir(hybrid))
    stats = store.stats()
    assert (stats.documents, stats.passages, stats.embedded) == (3, 3, {})
    assert store.index.search("tomatoes", 10)
    store.close()
    fake.fail = False
    again = run_cli(hybrid, "ingest", str(corpus), env=env(hybrid))
    assert again.exit_code == 0, again.output
    assert "3 unchanged; 0 passages written, 3 embedded" in " ".join(again.output.split())


def test_unreachable_endpoint_is_named(settings: Settings, corpus: Path) -> None:
    bad = settings.model_copy(
        update={"embeddings_url": "http://127.0.0.1:9/v1", "embeddings_model": "m"}
    )
    result = run_cli(
        bad,
        "ingest",
        str(corpus),
        env={"A2A_EMBEDDINGS_URL": bad.embeddings_url, "A2A_EMBEDDINGS_MODEL": "m"},
    )
    assert result.exit_code == 1
    assert "cannot reach the embeddings endpoint http://127.0.0.1:9/v1/embeddings" in " ".join(
        result.output.split()
    )


def test_documents_embed_fills_in_missing_vectors_and_doctor_says_hybrid(
    settings: Settings, fake: FakeEmbeddings, corpus: Path
) -> None:
    assert run_cli(settings, "ingest", str(corpus)).exit_code == 0
    hybrid = with_embeddings(settings, fake).model_copy(update={"builtin_corpus": True})
    environment = {**env(hybrid), "A2A_BUILTIN_CORPUS": "true"}

    before = run_cli(hybrid, "doctor", env=environment)
    text = " ".join(before.stdout.split())
    assert (
        f"search mode: BM25: the embeddings endpoint {fake.url}/embeddings (fake-mini) is "
        "available but no passage has a vector yet" in text
    )

    embedded = run_cli(hybrid, "documents", "embed", env=environment)
    assert embedded.exit_code == 0, embedded.output
    assert "Embedded 317 passages." in embedded.stdout  # 314 catalogue entries + 3 files

    after = run_cli(hybrid, "doctor", env=environment)
    assert after.exit_code == 0
    text = " ".join(after.stdout.split())
    assert (
        f"search mode: HYBRID: BM25 fused with the embeddings endpoint {fake.url}/embeddings "
        "(fake-mini)" in text
    )
    assert "317 of 317 passages have a vector" in text
    assert f"fake-mini ({fake.url}/embeddings) answered 48-dimensional vectors" in text

    assert (
        "vector search, fake-mini: exact (317 vectors, fewer than "
        "A2A_VECTORS_ANN_MIN_PASSAGES=20000)" in text
    )

    # Issue 22: with the threshold at 0, `documents embed` builds the approximate index
    # (nothing left to embed) and doctor says it serves.
    forced = {**environment, "A2A_VECTORS_ANN_MIN_PASSAGES": "0"}
    again = run_cli(hybrid, "documents", "embed", env=forced)
    assert "Embedded 0 passages." in again.stdout
    text = " ".join(run_cli(hybrid, "doctor", env=forced).stdout.split())
    assert "vector search, fake-mini: approximate (usearch HNSW over 317 vectors" in text

    missing = run_cli(settings, "documents", "embed", env={"A2A_EMBEDDINGS_LOCAL": "false"})
    assert missing.exit_code == 2
    assert "no embedding model: the in-process model is switched off" in " ".join(
        missing.output.split()
    )


def test_reciprocal_rank_fusion() -> None:
    bm25 = [(1, 9.0, 10), (2, 5.0, 20), (3, 1.0, 30)]
    dense = [(3, 0.9, 30), (4, 0.8, 40), (1, 0.1, 10)]
    fused = fuse([bm25, dense])
    assert [(pid, key) for pid, _, key in fused] == [(1, 10), (3, 30), (2, 20), (4, 40)]
    assert fused[0][1] == pytest.approx(1 / 61 + 1 / 63)
    assert fuse([[], []]) == []


def test_convex_fusion_keeps_a_clear_vector_hit_that_rrf_buries() -> None:
    # Passage 9 is the model's clear favourite and absent from BM25's list; 2 and 3
    # are middling in both.
    bm25 = [(1, 10.0, 10), (2, 6.0, 20), (3, 5.0, 30), (4, 1.0, 40)]
    dense = [(9, 0.9, 90), (2, 0.5, 20), (3, 0.48, 30), (1, 0.3, 10)]
    assert [pid for pid, _, _ in fuse([bm25, dense])] == [2, 1, 3, 9, 4]
    fused = fuse_scores(bm25, dense, 0.5)
    assert [pid for pid, _, _ in fused] == [1, 9, 2, 3, 4]
    by_pid = {pid: score for pid, score, _ in fused}
    # BM25 scaled from 0 to its best; cosines from the 0.25 floor to the best.
    assert by_pid[9] == pytest.approx(0.5)
    assert by_pid[2] == pytest.approx(0.5 * 6 / 10 + 0.5 * (0.5 - 0.25) / (0.9 - 0.25))
    assert fuse_scores([], [], 0.5) == []
    # One list alone keeps its order (no vector above the similarity floor: BM25's).
    assert [pid for pid, _, _ in fuse_scores(bm25, [], 0.5)] == [1, 2, 3, 4]
