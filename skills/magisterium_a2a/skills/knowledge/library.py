"""Opening the content store for use: where it lives, bringing the built-in
catalogue up to date, repairing the index, deleting with the catalogue in mind.

``prepare`` runs once when a server (or a command) starts. On a data
directory that is already current it only compares two hashes; on a fresh
one it writes the catalogue (a few hundred short entries, well under a
second). Servers then open the store read-only.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from magisterium_a2a.skills.knowledge import ann
from magisterium_a2a.skills.knowledge.catalogue import catalogue_hash, load_catalogue
from magisterium_a2a.skills.knowledge.catalogue_vectors import shipped, text_key
from magisterium_a2a.skills.knowledge.embeddings import to_blob
from magisterium_a2a.skills.knowledge.model import Origin
from magisterium_a2a.skills.knowledge.passages import embedding_text
from magisterium_a2a.skills.knowledge.settings import KnowledgeSettings
from magisterium_a2a.skills.knowledge.store import Store, StoredPassage

if TYPE_CHECKING:
    from magisterium_a2a.skills.knowledge.semantic import Embedder

log = logging.getLogger(__name__)
DISABLED = "disabled"
COMMIT_EVERY = 512
"""Vectors written per transaction while embedding: an interrupted run (Ctrl-C,
kill -9) keeps what was committed and a rerun embeds only the rest; a running
server reloads its vectors at each commit, so not more often than a few times
a minute (the English model embeds a few hundred passages a minute on 2 cores)."""


def knowledge_dir(settings: KnowledgeSettings) -> Path:
    return settings.knowledge_dir


def wanted_catalogue_hash(settings: KnowledgeSettings) -> str:
    return catalogue_hash() if settings.builtin_corpus else DISABLED


@dataclass(frozen=True, slots=True)
class Progress:
    """Callbacks for a progress display; all optional."""

    files: Callable[[int], None] = lambda total: None
    file_done: Callable[[Path], None] = lambda path: None
    embedding: Callable[[int], None] = lambda total: None
    embedded: Callable[[int], None] = lambda count: None


def prepare(settings: KnowledgeSettings, *embedders: Embedder) -> None:
    """Make the store current: catalogue synchronised, index consistent, and,
    given embedders, every catalogue passage embedded by each (copied from the
    shipped vectors: a second on a fresh data directory, nothing afterwards)."""
    store = Store(knowledge_dir(settings))
    written: list[str] = []
    try:
        wanted = wanted_catalogue_hash(settings)
        if store.meta("catalogue_hash") != wanted:
            sync_catalogue(store, settings)
        if not store.index_in_sync():
            log.warning("the full-text index is behind the documents; rebuilding it")
            store.rebuild_index()
        for embedder in embedders:
            missing = store.passages_without_vector(embedder.model, Origin.CATALOGUE)
            if missing:
                count = embed_passages(store, embedder, missing)
                written.append(embedder.model)
                log.info("built-in catalogue embedded: %d passages (%s)", count, embedder.model)
    finally:
        store.close()
    ann.update(settings, written)


def embed_passages(
    store: Store,
    embedder: Embedder,
    passages: Sequence[StoredPassage],
    progress: Progress | None = None,
) -> int:
    """Compute and store the vectors of stored passages; the number written.

    Vectors are committed every ``COMMIT_EVERY`` as they come (the embedder
    computes the next window meanwhile), so an interruption loses at most the
    vectors not yet committed, and ``passages_without_vector`` is what is left.
    """
    progress = progress or Progress()
    infos = store.document_infos(p.document_id for p in passages)
    texts = [
        embedding_text(infos[p.document_id].title, p.heading, p.text)
        for p in passages
        if p.document_id in infos
    ]
    passages = [p for p in passages if p.document_id in infos]
    # Vectors built with the package (the catalogue's) are copied, not computed.
    known = shipped(embedder.model)
    rows: list[tuple[int, bytes]] = []
    todo: list[int] = []
    for i, text in enumerate(texts):
        vector = known.get(text_key(text))
        if vector is None:
            todo.append(i)
        else:
            rows.append((passages[i].id, to_blob(vector)))
    written = 0
    progress.embedding(len(todo))
    done = 0
    for batch in embedder.embed([texts[i] for i in todo]):
        for row in batch:
            rows.append((passages[todo[done]].id, to_blob(row)))
            done += 1
        if len(rows) >= COMMIT_EVERY:
            written += _commit(store, embedder.model, rows)
            rows = []
        progress.embedded(batch.shape[0])
    return written + _commit(store, embedder.model, rows)


def _commit(store: Store, model: str, rows: list[tuple[int, bytes]]) -> int:
    if not rows:
        return 0
    with store.writer() as writer:
        return writer.put_vectors(model, rows)


def sync_catalogue(store: Store, settings: KnowledgeSettings) -> int:
    """Write, replace or remove catalogue entries; the number of entries changed.

    Runs inside one write transaction and re-reads the hash there, so several
    processes starting at once do the work once.
    """
    wanted = wanted_catalogue_hash(settings)
    with store.writer() as writer:
        if store.meta("catalogue_hash") == wanted:
            return 0
        entries = load_catalogue() if settings.builtin_corpus else []
        keep = {doc.id for doc in entries}
        changed = 0
        for summary in store.documents(origin=Origin.CATALOGUE):
            if summary.info.id not in keep:
                writer.delete(summary.info.id)
                changed += 1
        for doc in entries:
            existing = store.content_hash(doc.id)
            if existing is not None and (
                existing[1] is Origin.INGEST or existing[0] == doc.content_hash()
            ):
                continue
            writer.put(doc)
            changed += 1
        writer.set_meta("catalogue_hash", wanted)
    log.info("built-in catalogue synchronised: %d entries written or removed", changed)
    return changed


def delete_document(store: Store, settings: KnowledgeSettings, document_id: str) -> str | None:
    """Delete a document; an ingested one that replaced a catalogue entry gives way
    to the entry again. Returns ``"deleted"``, ``"restored"`` or None (no such id)."""
    entry = None
    if settings.builtin_corpus:
        entry = next((d for d in load_catalogue() if d.id == document_id), None)
    with store.writer() as writer:
        existing = store.content_hash(document_id)
        if existing is None:
            return None
        if entry is not None and existing[1] is Origin.INGEST:
            writer.put(entry)
            return "restored"
        writer.delete(document_id)
        return "deleted"
