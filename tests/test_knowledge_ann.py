"""The approximate vector index (``skills/.../knowledge/ann.py``, issue 22): built
at ingest, mapped when serving, exact search whenever the file cannot be
trusted, and right while the store changes under it (vectors added since the
build found, deleted passages never returned, the kind filter kept).

Small synthetic vectors in a real store; the quality floor is the real model's
vectors of the refdata corpus (tests/data/refdata-vectors.npz, written by
``python -m bench.vectors fixture``: embedding its 4,400 passages here would
take minutes)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from magisterium_a2a.skills.knowledge import ann
from magisterium_a2a.skills.knowledge.embeddings import EmbeddingsError, VectorIndex, to_blob
from magisterium_a2a.skills.knowledge.model import Document, DocumentKind, Section
from magisterium_a2a.skills.knowledge.settings import KnowledgeSettings
from magisterium_a2a.skills.knowledge.store import Store

MODEL = "test-model"
DIMS = 32
DOCUMENTS = 60
PER_DOCUMENT = 20
FIXTURE = Path(__file__).parent / "data" / "refdata-vectors.npz"


def unit(rng: np.random.Generator, n: int, dims: int = DIMS) -> np.ndarray:
    matrix = rng.standard_normal((n, dims)).astype(np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def document(i: int, kind: DocumentKind) -> Document:
    sections = [Section(heading=f"part {j}", text=f"text {i} {j}") for j in range(PER_DOCUMENT)]
    return Document(id=f"doc-{i}", title=f"Document {i}", kind=kind, sections=sections)


def kind_of(i: int) -> DocumentKind:
    # One document in ten is a catechism: a small kind beside a large one.
    return DocumentKind.CATECHISM if i % 10 == 0 else DocumentKind.THEOLOGY


def put(store: Store, first: int, count: int, rng: np.random.Generator, dims: int = DIMS) -> None:
    with store.writer() as writer:
        for i in range(first, first + count):
            writer.put(document(i, kind_of(i)))
    # The new passages' vectors, as ingestion writes them: after their documents.
    fresh = store.passages_without_vector(MODEL)
    blobs = [to_blob(v) for v in unit(rng, len(fresh), dims)]
    with store.writer() as writer:
        writer.put_vectors(MODEL, [(p.id, blob) for p, blob in zip(fresh, blobs, strict=True)])


@pytest.fixture
def settings(tmp_path: Path) -> KnowledgeSettings:
    return KnowledgeSettings(  # type: ignore[call-arg]
        _env_file=None, data_dir=tmp_path, builtin_corpus=False, vectors_ann_min_passages=0
    )


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One store of the synthetic vectors, written once and copied for each test."""
    directory = tmp_path_factory.mktemp("ann-template") / "knowledge"
    made = Store(directory)
    put(made, 0, DOCUMENTS, np.random.default_rng(1))
    made.close()
    return directory


@pytest.fixture
def store(settings: KnowledgeSettings, template: Path) -> Iterator[Store]:
    shutil.copytree(template, settings.knowledge_dir)
    opened = Store(settings.knowledge_dir)
    yield opened
    opened.close()


def exact(store: Store) -> VectorIndex:
    index = VectorIndex.load(store.vectors(MODEL))
    assert index is not None
    return index


def served(store: Store, minimum: int = 0) -> ann.Loaded:
    store.refresh()
    return ann.load(store, MODEL, minimum)


def overlap(found: list[tuple[int, float, int]], truth: list[tuple[int, float, int]]) -> float:
    return len({h[0] for h in found} & {h[0] for h in truth}) / max(1, len(truth))


def test_built_at_ingest_mapped_and_as_good_as_exact(
    settings: KnowledgeSettings, store: Store
) -> None:
    [line] = ann.update(settings, [MODEL])
    assert line.startswith(f"{MODEL}: built ({DOCUMENTS * PER_DOCUMENT} vectors")
    loaded = served(store)
    assert isinstance(loaded.vectors, ann.AnnVectors), loaded.state
    assert loaded.state.startswith("approximate (usearch HNSW over 1200 vectors")
    assert len(loaded.vectors) == DOCUMENTS * PER_DOCUMENT
    truth = exact(store)
    queries = unit(np.random.default_rng(2), 30)
    shares = [overlap(loaded.vectors.search(q, 10), truth.search(q, 10)) for q in queries]
    assert np.mean(shares) >= 0.98
    # The same answer as exact search: ids, cosines (f16 apart) and document keys.
    q = queries[0]
    best, expected = loaded.vectors.search(q, 1)[0], truth.search(q, 1)[0]
    assert (best[0], best[2]) == (expected[0], expected[2])
    assert best[1] == pytest.approx(expected[1], abs=2e-3)
    assert ann.update(settings, [MODEL]) == [f"{MODEL}: up to date (1200 vectors)"]
    with pytest.raises(EmbeddingsError):
        loaded.vectors.search(np.ones(DIMS + 1, dtype=np.float32), 5)


def test_below_the_threshold_search_is_exact_and_no_file_is_kept(
    settings: KnowledgeSettings, store: Store
) -> None:
    ann.update(settings, [MODEL])
    path = ann.path_for(store.directory, MODEL)
    assert path.is_file()
    high = settings.model_copy(update={"vectors_ann_min_passages": 5000})
    assert ann.update(high, [MODEL]) == [
        f"{MODEL}: removed (1200 vectors, below A2A_VECTORS_ANN_MIN_PASSAGES)"
    ]
    assert not path.exists()
    loaded = served(store, 5000)
    assert isinstance(loaded.vectors, VectorIndex)
    assert "fewer than A2A_VECTORS_ANN_MIN_PASSAGES=5000" in loaded.state


def test_vectors_added_since_the_build_are_found(settings: KnowledgeSettings, store: Store) -> None:
    ann.update(settings, [MODEL])
    put(store, DOCUMENTS, 2, np.random.default_rng(3))
    new = store.vectors_of(MODEL, [int(i) for i in store.vector_ids(MODEL)[-40:]])
    loaded = served(store)
    assert isinstance(loaded.vectors, ann.AnnVectors)
    assert "40 added since searched exactly" in loaded.state
    assert len(loaded.vectors) == (DOCUMENTS + 2) * PER_DOCUMENT
    for pid, _, _, blob in new[::7]:
        vector = np.frombuffer(blob, dtype="<f4")
        assert loaded.vectors.search(vector, 3)[0][0] == pid
    # The next update adds them to the graph in place.
    [line] = ann.update(settings, [MODEL])
    assert "updated in place (40 added, 0 removed, 1240 vectors)" in line
    again = served(store)
    assert "0 added since" in again.state and len(again.vectors or []) == 1240


def test_deleted_passages_are_never_returned(settings: KnowledgeSettings, store: Store) -> None:
    ann.update(settings, [MODEL])
    old = served(store)
    gone = store.vectors_of(MODEL, [int(i) for i in store.vector_ids(MODEL)[:PER_DOCUMENT]])
    with store.writer() as writer:
        assert writer.delete("doc-0")
    loaded = served(store)
    vectors = loaded.vectors
    assert isinstance(vectors, ann.AnnVectors)
    assert "20 deleted since filtered out" in loaded.state
    dead = {row[0] for row in gone}
    for _, _, _, blob in gone:
        # Its own vector as the query: every deleted neighbour is nearest, yet none comes
        # back, and the places they took are filled.
        hits = vectors.search(np.frombuffer(blob, dtype="<f4"), 10)
        assert len(hits) == 10 and not dead & {h[0] for h in hits}
        assert not dead & {h[0] for h in vectors.search(np.frombuffer(blob, dtype="<f4"), 30)}
    # A whole document's worth asked for: its 20 deleted ids and more all leave room.
    assert len(vectors.search(np.frombuffer(gone[0][3], dtype="<f4"), 25)) == 25
    assert isinstance(old.vectors, ann.AnnVectors)  # the object loaded before still answers
    [line] = ann.update(settings, [MODEL])
    assert "updated in place (0 added, 20 removed, 1180 vectors)" in line
    again = served(store).vectors
    assert isinstance(again, ann.AnnVectors) and len(again.dead) == 0
    for _, _, _, blob in gone:
        assert not dead & {h[0] for h in again.search(np.frombuffer(blob, dtype="<f4"), 10)}


def test_a_file_mostly_deleted_is_not_used(settings: KnowledgeSettings, store: Store) -> None:
    ann.update(settings, [MODEL])
    with store.writer() as writer:
        for i in range(DOCUMENTS // 2 + 1):
            writer.delete(f"doc-{i}")
    loaded = served(store)
    assert isinstance(loaded.vectors, VectorIndex)
    assert "ids are deleted" in loaded.state
    [line] = ann.update(settings, [MODEL])
    assert "built (580 vectors; 620 changes since the last full build)" in line


@pytest.mark.parametrize("kind_exact", [ann.KIND_EXACT, 0])
def test_the_kind_filter_stays_right(
    settings: KnowledgeSettings, store: Store, monkeypatch: pytest.MonkeyPatch, kind_exact: int
) -> None:
    """A small kind exactly over its own vectors; a large one (every kind, with the
    bound at 0) by asking the graph for more, widening, then exact."""
    monkeypatch.setattr(ann, "KIND_EXACT", kind_exact)
    ann.update(settings, [MODEL])
    with store.writer() as writer:
        writer.delete("doc-10")  # a catechism: deleted ids of the kind too
    vectors = served(store).vectors
    assert isinstance(vectors, ann.AnnVectors)
    truth = exact(store)
    queries = unit(np.random.default_rng(4), 20)
    for kind in ("catechism", "theology"):
        shares = []
        for q in queries:
            hits = vectors.search(q, 10, kind)
            assert len(hits) == 10
            assert {truth.kinds[np.searchsorted(truth.ids, h[0])] for h in hits} == {kind}
            shares.append(overlap(hits, truth.search(q, 10, kind)))
        assert np.mean(shares) >= 0.95, kind
    assert vectors.search(queries[0], 10, "scripture") == []


def test_a_file_of_another_dimension_or_model_is_not_used(
    settings: KnowledgeSettings, store: Store, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other_store = Store(other)
    put(other_store, 0, 3, np.random.default_rng(5), dims=16)
    ann.build_file(
        ann.path_for(store.directory, MODEL),
        MODEL,
        ann._batches(other_store.vector_rows(MODEL), 16),
    )
    other_store.close()
    loaded = served(store)
    assert isinstance(loaded.vectors, VectorIndex)
    assert "the index file has 16 dimensions, the stored vectors 32" in loaded.state
    # Another model's file under this model's name.
    ann.build_file(
        ann.path_for(store.directory, MODEL),
        "someone-else",
        ann._batches(store.vector_rows(MODEL), DIMS),
    )
    loaded = served(store)
    assert isinstance(loaded.vectors, VectorIndex)
    assert "another model (someone-else)" in loaded.state
    [line] = ann.update(settings, [MODEL])
    assert "built (1200 vectors; the file is of another model or dimension)" in line


def test_a_corrupt_file_means_exact_search(settings: KnowledgeSettings, store: Store) -> None:
    ann.update(settings, [MODEL])
    path = ann.path_for(store.directory, MODEL)
    whole = path.read_bytes()
    q = unit(np.random.default_rng(6), 1)[0]
    flipped = bytearray(whole)
    flipped[len(whole) // 3] ^= 0xFF
    for damaged in (bytes(flipped), whole[: len(whole) // 2], b"not an index" * 100, b""):
        path.write_bytes(damaged)
        loaded = served(store)
        assert isinstance(loaded.vectors, VectorIndex), loaded.state
        assert loaded.state.startswith("exact (the index file")
        assert loaded.vectors.search(q, 5) == exact(store).search(q, 5)
    [line] = ann.update(settings, [MODEL])
    assert "built (1200 vectors;" in line
    assert isinstance(served(store).vectors, ann.AnnVectors)


def test_a_graph_that_serves_badly_is_not_used(
    settings: KnowledgeSettings, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The graph's recall on its own vectors, measured at build, is in the header;
    under the floor (raised here past any graph) search is exact."""
    ann.update(settings, [MODEL])
    loaded = served(store)
    assert isinstance(loaded.vectors, ann.AnnVectors)
    assert loaded.vectors.file.header["self_recall"] >= ann.MIN_SELF_RECALL
    monkeypatch.setattr(ann, "MIN_SELF_RECALL", 1.01)
    loaded = served(store)
    assert isinstance(loaded.vectors, VectorIndex)
    assert "nearest neighbours of its own vectors, fewer than 101%" in loaded.state


def test_no_file_means_exact_search(store: Store) -> None:
    loaded = served(store)
    assert isinstance(loaded.vectors, VectorIndex)
    assert loaded.state.startswith("exact (no index file: ")


def test_a_rebuild_replaces_the_file_whole_and_servers_notice(
    settings: KnowledgeSettings, store: Store
) -> None:
    ann.update(settings, [MODEL])
    path = ann.path_for(store.directory, MODEL)
    reader = Store(settings.knowledge_dir, readonly=True)
    try:
        before = ann.load(reader, MODEL, 0).vectors
        assert isinstance(before, ann.AnnVectors)
        inode = path.stat().st_ino
        # Enough new vectors that the update rebuilds rather than edits.
        put(store, DOCUMENTS, 20, np.random.default_rng(7))
        reader.refresh()
        [line] = ann.update(settings, [MODEL])
        assert "built (1600 vectors; 400 changes since the last full build)" in line
        assert path.stat().st_ino != inode
        assert [p.name for p in path.parent.iterdir()] == sorted([".lock", path.name])
        # The builder's meta row is a change every server sees ...
        assert reader.refresh()
        after = ann.load(reader, MODEL, 0)
        assert isinstance(after.vectors, ann.AnnVectors)
        assert len(after.vectors.file) == 1600 and "0 added since" in after.state
        # ... while one still holding the old file keeps a whole mapping of it.
        q = unit(np.random.default_rng(8), 1)[0]
        assert len(before.search(q, 10)) == 10
        assert before.file.path == path and len(before.file) == 1200
    finally:
        reader.close()


def test_a_failed_write_leaves_the_old_file(
    settings: KnowledgeSettings, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann.update(settings, [MODEL])
    path = ann.path_for(store.directory, MODEL)
    old = path.read_bytes()
    put(store, DOCUMENTS, 20, np.random.default_rng(9))

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(ann.Path, "replace", broken)
    [line] = ann.update(settings, [MODEL])
    assert "not updated (OSError" in line and "search stays exact" in line
    assert path.read_bytes() == old
    assert [p.name for p in path.parent.iterdir()] == sorted([".lock", path.name])
    loaded = served(store)
    assert isinstance(loaded.vectors, ann.AnnVectors) and "400 added since" in loaded.state


def test_quality_floor_on_the_real_models_vectors_of_the_refdata_corpus(tmp_path: Path) -> None:
    """recall@10 of the index against exact search, for the evaluation set's
    questions, over the English model's vectors of the refdata corpus, with the
    index forced on (threshold 0) and the production parameters."""
    with np.load(FIXTURE) as data:
        model = str(data["model"])
        ids, kinds, documents = data["ids"], data["kinds"], data["documents"]
        vectors = data["vectors"].astype(np.float32) * data["scale"][:, None]
        questions = data["questions"].astype(np.float32)
    assert model == "all-MiniLM-L6-v2-int8" and vectors.shape[1] == 384
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    truth = VectorIndex(ids, documents, kinds, vectors)
    order = np.argsort(ids)
    batch: ann.Batch = (ids[order], documents[order], list(kinds[order]), vectors[order])
    path = tmp_path / f"refdata{ann.SUFFIX}"
    ann.build_file(path, model, [batch])
    index = ann.AnnVectors(ann.open_file(path), np.zeros(0, dtype=np.int64))
    found = sum(overlap(index.search(q, 10), truth.search(q, 10)) for q in questions)
    assert found / len(questions) >= 0.98


def test_usearch_loads_after_onnxruntime() -> None:
    """usearch's extension carries its own C++ runtime: onnxruntime imported after
    it crashes the process, so ``ann`` imports usearch only after onnxruntime."""
    code = (
        "from magisterium_a2a.skills.knowledge import ann; ann._usearch(); "
        "import onnxruntime; print('ok')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (done.returncode, done.stdout.strip()) == (0, "ok"), done.stderr[-2000:]
