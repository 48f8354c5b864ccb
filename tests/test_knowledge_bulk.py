"""Embedding at the model's speed: length-batched, parallel embedding gives the
vectors one-by-one embedding gives, and an ingest killed (SIGKILL) mid-embedding
keeps the vectors it committed, so a rerun embeds only the rest and ends with
the same vectors as an uninterrupted run."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from rich.progress import Progress

from magisterium_a2a.server.cli.knowledge import _Rate
from magisterium_a2a.server.config import Settings
from magisterium_a2a.skills.knowledge import parallel
from magisterium_a2a.skills.knowledge.local_embeddings import MODEL_NAME, LocalEmbedder
from magisterium_a2a.skills.knowledge.multilingual import MultilingualEmbedder
from magisterium_a2a.skills.knowledge.semantic import KnowledgeSettings, choose_embedder
from tests.kb_support import run_cli

WORDS = [
    "grace",
    "faith",
    "hope",
    "charity",
    "sacrament",
    "baptism",
    "church",
    "council",
    "pope",
    "bishop",
    "creation",
    "nature",
    "reason",
    "law",
    "justice",
    "mercy",
    "prayer",
    "virtue",
    "sin",
    "soul",
    "body",
    "resurrection",
    "word",
]


def prose(rnd: random.Random, words: int) -> str:
    return " ".join(rnd.choice(WORDS) for _ in range(words)).capitalize() + "."


@pytest.fixture(scope="module")
def texts() -> list[str]:
    # From one word to past the English model's 256 tokens, in no order of length.
    rnd = random.Random(3)
    return [prose(rnd, rnd.choice((1, 3, 12, 40, 90, 160, 400))) for _ in range(70)]


@pytest.fixture
def small_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Several windows in flight, so order across windows is exercised too."""
    monkeypatch.setattr(parallel, "WINDOW", 16)


def _batched_and_alone(
    model: LocalEmbedder | MultilingualEmbedder, texts: list[str]
) -> tuple[np.ndarray, np.ndarray]:
    """The texts' vectors embedded in length-sorted batches, and one at a time."""
    batched = np.concatenate(list(model.embed(texts)))
    return batched, np.stack([model.embed_one(t) for t in texts])


def test_length_batched_english_vectors_are_the_one_by_one_vectors(
    texts: list[str], small_windows: None
) -> None:
    batched, alone = _batched_and_alone(LocalEmbedder.load(workers=2), texts)
    assert batched.shape == (len(texts), 384)
    np.testing.assert_allclose(batched, alone, atol=1e-5)
    sequential = np.concatenate(list(LocalEmbedder.load(workers=1).embed(texts)))
    np.testing.assert_allclose(batched, sequential, atol=1e-6)


def test_length_batched_cross_lingual_vectors_are_the_one_by_one_vectors(
    texts: list[str], small_windows: None
) -> None:
    batched, alone = _batched_and_alone(MultilingualEmbedder.load(workers=2), texts)
    assert batched.shape == (len(texts), 512)
    # This graph reads a batch padded to its longest text, and that shifts a
    # vector a little: the batches in input order of earlier versions were as far
    # (cosine 0.989 at worst on Summa passages); sorted by length, most batches
    # hardly pad.
    cosines = (batched * alone).sum(axis=1)
    assert cosines.min() > 0.98, cosines.min()
    assert np.median(cosines) > 0.995
    sequential = np.concatenate(list(MultilingualEmbedder.load(workers=1).embed(texts)))
    np.testing.assert_allclose(batched, sequential, atol=1e-6)


def test_ingest_uses_every_core_and_a_server_its_own_threads() -> None:
    settings = KnowledgeSettings(_env_file=None, embeddings_multilingual=False)  # type: ignore[call-arg]
    bulk = choose_embedder(settings, bulk=True).embedder
    served = choose_embedder(settings).embedder
    assert isinstance(bulk, LocalEmbedder) and isinstance(served, LocalEmbedder)
    assert (bulk.workers, served.workers) == (parallel.cores(), 1)
    two = settings.model_copy(update={"embeddings_ingest_threads": 2})
    embedder = choose_embedder(two, bulk=True).embedder
    assert isinstance(embedder, LocalEmbedder) and embedder.workers == 2


# -- resuming after kill -9 ----------------------------------------------------------

DOCUMENTS, SECTIONS = 12, 20
# The child commits every 16 vectors (a window of 16): the test kills it once the
# first commit is visible, long before its 240 passages are done.
CHILD = (
    "from magisterium_a2a.skills.knowledge import library, parallel\n"
    "parallel.WINDOW = library.COMMIT_EVERY = 16\n"
    "from magisterium_a2a.server.cli import cli\n"
    "cli()\n"
)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    rnd = random.Random(11)
    path = tmp_path / "corpus.jsonl"
    with path.open("w") as out:
        for i in range(DOCUMENTS):
            sections = [
                {"heading": f"Part {j}", "text": prose(rnd, rnd.randint(30, 90))}
                for j in range(SECTIONS)
            ]
            record = {"id": f"doc-{i}", "title": f"Treatise {i}", "sections": sections}
            out.write(json.dumps(record) + "\n")
    return path


def environment(data_dir: Path) -> dict[str, str]:
    return {
        "A2A_DATA_DIR": str(data_dir),
        "A2A_BUILTIN_CORPUS": "false",
        "A2A_EMBEDDINGS_MULTILINGUAL": "false",
    }


def vectors(data_dir: Path) -> dict[tuple[str, int], np.ndarray]:
    db = sqlite3.connect(f"file:{data_dir / 'knowledge' / 'documents.sqlite3'}?mode=ro", uri=True)
    try:
        rows = db.execute(
            "select p.doc_id, p.ordinal, e.vector from embeddings e "
            "join passages p on p.id = e.passage_id where e.model = ?",
            (MODEL_NAME,),
        ).fetchall()
    finally:
        db.close()
    return {(d, o): np.frombuffer(v, dtype="<f4") for d, o, v in rows}


def committed(db_path: Path) -> int:
    if not db_path.exists():
        return 0
    try:
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=5)
        try:
            return int(db.execute("select count(*) from embeddings").fetchone()[0])
        finally:
            db.close()
    except sqlite3.OperationalError:  # the schema not created yet
        return 0


@pytest.fixture
def child(tmp_path: Path, corpus: Path) -> Iterator[tuple[subprocess.Popen[bytes], Path]]:
    data_dir = tmp_path / "killed"
    env = {k: v for k, v in os.environ.items() if not k.startswith("A2A_")}
    env.update(environment(data_dir))
    process = subprocess.Popen(
        [sys.executable, "-c", CHILD, "ingest", str(corpus)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        yield process, data_dir
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
        if process.stderr is not None:
            process.stderr.close()


def test_an_ingest_killed_mid_embedding_resumes_where_it_stopped(
    settings: Settings, tmp_path: Path, corpus: Path, child: tuple[subprocess.Popen[bytes], Path]
) -> None:
    process, data_dir = child
    db_path = data_dir / "knowledge" / "documents.sqlite3"
    total = DOCUMENTS * SECTIONS
    # Wait for the first commit of vectors (polling the store: no fixed sleep),
    # with a deadline so that a child that fails or hangs fails the test.
    deadline = time.monotonic() + 600
    while committed(db_path) == 0:
        assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
        assert time.monotonic() < deadline, "the child committed no vector"
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    assert process.wait() == -signal.SIGKILL
    kept = committed(db_path)
    assert 0 < kept < total, kept

    rerun = run_cli(settings, "ingest", str(corpus), env=environment(data_dir))
    assert rerun.exit_code == 0, rerun.output
    summary = " ".join(rerun.output.split())
    assert f"{DOCUMENTS} unchanged; 0 passages written, {total - kept} embedded" in summary

    fresh = tmp_path / "fresh"
    whole = run_cli(settings, "ingest", str(corpus), env=environment(fresh))
    assert whole.exit_code == 0, whole.output
    assert f"{total} passages written, {total} embedded" in " ".join(whole.output.split())
    resumed, expected = vectors(data_dir), vectors(fresh)
    assert resumed.keys() == expected.keys() and len(expected) == total
    for key, vector in expected.items():
        np.testing.assert_allclose(resumed[key], vector, atol=1e-5)


def test_the_progress_bar_shows_passages_per_second() -> None:
    now = [0.0]
    bar = Progress(_Rate(), get_time=lambda: now[0])
    task = bar.add_task("Embedding passages", total=100, unit="passages")
    assert str(_Rate().render(bar.tasks[0])) == ""
    for _ in range(4):
        now[0] += 0.5
        bar.advance(task, 10)
    assert str(_Rate().render(bar.tasks[0])) == "20.0 passages/s"
