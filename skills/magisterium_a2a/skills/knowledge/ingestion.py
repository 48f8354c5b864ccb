"""One ingestion run: read files, skip what is unchanged, write what is new in
one atomic change of the store, then embed every passage that lacks a vector.

Idempotent by construction: a document's id comes from the file (its ``id``
field, else its name), and a document whose content hash is already stored
is left alone, so a second run over the same files changes nothing. A file
that cannot be read is reported with its reason and the others go on; an
interruption before the documents' commit leaves the store as it was.

Resumable: the documents are committed before their vectors, and vectors are
committed in chunks as they are computed (``library.embed_passages``), so after
an interruption (Ctrl-C, kill -9, a failing endpoint) the documents are there,
found by their words, and the next run (of ``ingest`` or ``documents embed``)
embeds only the passages still without a vector. The in-process models run on
every core here (``A2A_EMBEDDINGS_INGEST_THREADS``): ingestion is a command,
apart from the servers.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from magisterium_a2a.skills.knowledge import ann
from magisterium_a2a.skills.knowledge.ingest import Defaults, IngestError, discover, read_file
from magisterium_a2a.skills.knowledge.library import (
    Progress,
    embed_passages,
    knowledge_dir,
    prepare,
)
from magisterium_a2a.skills.knowledge.model import Document, Origin
from magisterium_a2a.skills.knowledge.passages import PassageText, split_document
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

    choice = choose_embedder(settings, bulk=True)
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

        if pending:
            with store.writer() as writer:
                for item in pending:
                    report.passages += writer.put(item.document, passages=item.passages)
                    target = report.replaced if item.replaces else report.added
                    target.append(item.document.id)
    finally:
        store.close()
    # Each model's vectors of the new passages, and of any passage still without one.
    for each in choice.all:
        report.embedded += _embed_missing(settings, each, progress)
    ann.update(settings, [each.model for each in choice.all])
    report.seconds = time.monotonic() - started
    return report


def embed_missing(settings: KnowledgeSettings, progress: Progress | None = None) -> int:
    """Compute vectors for every stored passage that lacks one for a configured model."""
    choice = choose_embedder(settings, bulk=True)
    if choice.embedder is None:
        raise ValueError(f"no embedding model: {choice.reason}")
    count = sum(_embed_missing(settings, each, progress) for each in choice.all)
    ann.update(settings, [each.model for each in choice.all])
    return count


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
