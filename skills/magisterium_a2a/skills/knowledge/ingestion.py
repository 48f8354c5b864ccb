"""One ingestion run: read files, skip what is unchanged, embed what is new,
and apply everything in one atomic change of the store.

Idempotent by construction: a document's id comes from the file (its ``id``
field, else its name), and a document whose content hash is already stored
is left alone, so a second run over the same files changes nothing. A file
that cannot be read is reported with its reason and the others go on; an
interruption before the final commit leaves the store as it was.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from magisterium_a2a.skills.knowledge.embeddings import to_blob
from magisterium_a2a.skills.knowledge.ingest import Defaults, IngestError, discover, read_file
from magisterium_a2a.skills.knowledge.library import (
    Progress,
    embed_passages,
    knowledge_dir,
    prepare,
)
from magisterium_a2a.skills.knowledge.model import Document, Origin
from magisterium_a2a.skills.knowledge.passages import PassageText, embedding_text, split_document
from magisterium_a2a.skills.knowledge.semantic import Embedder, choose_embedder
from magisterium_a2a.skills.knowledge.settings import KnowledgeSettings
from magisterium_a2a.skills.knowledge.store import Store


@dataclass
class IngestReport:
    files: int = 0
    skipped_files: list[Path] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    """Catalogue entries replaced by their full text (also counted in ``added``)."""
    passages: int = 0
    embedded: int = 0
    errors: list[IngestError] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def documents(self) -> int:
        return len(self.added) + len(self.replaced) + len(self.unchanged)


@dataclass
class _Pending:
    document: Document
    passages: list[PassageText]
    replaces: bool


def ingest(
    paths: Sequence[Path],
    settings: KnowledgeSettings,
    *,
    defaults: Defaults | None = None,
    include: str | None = None,
    progress: Progress | None = None,
) -> IngestReport:
    """Ingest files and directories into the store of ``settings``."""
    started = time.monotonic()
    progress = progress or Progress()
    report = IngestReport()
    files, report.skipped_files = discover(paths, include)
    report.files = len(files)
    progress.files(len(files))

    read: dict[str, Document] = {}
    for path in files:
        try:
            documents = read_file(path, defaults)
        except IngestError as exc:
            report.errors.append(exc)
            progress.file_done(path)
            continue
        except Exception as exc:
            # A parser library failing on a malformed file must not end the run.
            report.errors.append(IngestError(path, f"cannot be read ({type(exc).__name__}: {exc})"))
            progress.file_done(path)
            continue
        for document in documents:
            earlier = read.get(document.id)
            if earlier is not None and earlier.content_hash() != document.content_hash():
                report.errors.append(
                    IngestError(
                        path,
                        f"document id {document.id!r} is also given by {earlier.source}; "
                        "set a distinct 'id' in one of them",
                    )
                )
                continue
            read.setdefault(document.id, document)
        progress.file_done(path)

    choice = choose_embedder(settings)
    embedder = choice.embedder
    prepare(settings)
    store = Store(knowledge_dir(settings))
    try:
        pending: list[_Pending] = []
        for document in read.values():
            stored = store.content_hash(document.id)
            if stored is not None and stored[0] == document.content_hash():
                report.unchanged.append(document.id)
                continue
            replaces = stored is not None and stored[1] is Origin.INGEST
            pending.append(_Pending(document, split_document(document), replaces))
            if stored is not None and not replaces:
                report.superseded.append(document.id)

        vectors: list[list[bytes]] | None = None
        if embedder is not None and pending:
            vectors = _embed(embedder, pending, progress)
            report.embedded = sum(len(v) for v in vectors)

        if pending:
            with store.writer() as writer:
                for i, item in enumerate(pending):
                    report.passages += writer.put(
                        item.document,
                        passages=item.passages,
                        vectors=vectors[i] if vectors is not None else None,
                        model=embedder.model if embedder is not None else None,
                    )
                    target = report.replaced if item.replaces else report.added
                    target.append(item.document.id)
    finally:
        store.close()
    # The cross-lingual model's vectors, and any passage still without one.
    for each in choice.all:
        report.embedded += _embed_missing(settings, each, progress)
    report.seconds = time.monotonic() - started
    return report


def _embed(embedder: Embedder, pending: list[_Pending], progress: Progress) -> list[list[bytes]]:
    texts = [
        embedding_text(p.document.title, part.heading, part.text)
        for p in pending
        for part in p.passages
    ]
    progress.embedding(len(texts))
    blobs: list[bytes] = []
    for batch in embedder.embed(texts):
        blobs.extend(to_blob(row) for row in batch)
        progress.embedded(batch.shape[0])
    out: list[list[bytes]] = []
    start = 0
    for item in pending:
        out.append(blobs[start : start + len(item.passages)])
        start += len(item.passages)
    return out


def embed_missing(settings: KnowledgeSettings, progress: Progress | None = None) -> int:
    """Compute vectors for every stored passage that lacks one for a configured model."""
    choice = choose_embedder(settings)
    if choice.embedder is None:
        raise ValueError(f"no embedding model: {choice.reason}")
    return sum(_embed_missing(settings, each, progress) for each in choice.all)


def _embed_missing(
    settings: KnowledgeSettings, embedder: Embedder, progress: Progress | None
) -> int:
    prepare(settings)
    store = Store(knowledge_dir(settings))
    try:
        missing = store.passages_without_vector(embedder.model)
        return embed_passages(store, embedder, missing, progress) if missing else 0
    finally:
        store.close()
