"""Which embedders serve semantic search, and why: the operator's
OpenAI-compatible endpoint when one is set, else the in-process models when
their packages are installed (the English model, and the cross-lingual one for
questions in other languages), else none (BM25 alone), with the reason
``doctor`` and ``kb.mode`` report.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from magisterium_a2a.skills.knowledge.embeddings import EmbeddingsClient, Vector
from magisterium_a2a.skills.knowledge.local_embeddings import LocalEmbedder, ModelUnavailable
from magisterium_a2a.skills.knowledge.multilingual import MultilingualEmbedder
from magisterium_a2a.skills.knowledge.parallel import cores
from magisterium_a2a.skills.knowledge.settings import KnowledgeSettings


class Embedder(Protocol):
    """What ingestion and search need of an embedding model."""

    model: str
    url: str

    def embed(self, texts: Sequence[str]) -> Iterator[Vector]: ...

    async def embed_query(self, text: str) -> Vector: ...

    async def aclose(self) -> None: ...


@dataclass(frozen=True, slots=True)
class EmbedderChoice:
    embedder: Embedder | None
    reason: str
    """What serves, or why nothing does."""
    cross_lingual: Embedder | None = None
    """The in-process model for questions not in English (None: they use ``embedder``)."""
    cross_lingual_reason: str = ""

    @property
    def local(self) -> list[Embedder]:
        """The in-process embedders, whose vectors ingestion computes itself."""
        found: list[Embedder] = []
        for embedder in (self.embedder, self.cross_lingual):
            if isinstance(embedder, LocalEmbedder | MultilingualEmbedder):
                found.append(embedder)
        return found

    @property
    def all(self) -> list[Embedder]:
        return [e for e in (self.embedder, self.cross_lingual) if e is not None]


@functools.cache
def _local(threads: int, workers: int = 1) -> LocalEmbedder:
    # One copy of the model per process (about 190 MB resident), whoever asks.
    return LocalEmbedder.load(threads=threads, workers=workers)


@functools.cache
def _cross_lingual(threads: int, workers: int = 1) -> MultilingualEmbedder:
    return MultilingualEmbedder.load(threads=threads, workers=workers)


def ingest_workers(settings: KnowledgeSettings) -> int:
    """Batches run at once while ingesting: the setting, or one per core."""
    return settings.embeddings_ingest_threads or cores()


def choose_embedder(settings: KnowledgeSettings, *, bulk: bool = False) -> EmbedderChoice:
    """The embedders for ``settings``: for a server's questions (``threads`` of
    ``A2A_EMBEDDINGS_THREADS`` on each), or, ``bulk``, for ingestion (one thread
    per batch, ``A2A_EMBEDDINGS_INGEST_THREADS`` batches at once)."""
    threads, workers = (1, ingest_workers(settings)) if bulk else (settings.embeddings_threads, 1)
    client = EmbeddingsClient.from_settings(settings)
    if client is not None:
        return EmbedderChoice(client, f"the embeddings endpoint {client.url} ({client.model})")
    if not settings.embeddings_local:
        return EmbedderChoice(
            None,
            "the in-process model is switched off (A2A_EMBEDDINGS_LOCAL=false) and no "
            "endpoint is set (A2A_EMBEDDINGS_URL and A2A_EMBEDDINGS_MODEL)",
        )
    try:
        local = _local(threads, workers)
    except ModelUnavailable as exc:
        return EmbedderChoice(None, str(exc))
    reason = f"the in-process model {local.model} (onnxruntime)"
    if not settings.embeddings_multilingual:
        return EmbedderChoice(
            local, reason, None, "switched off (A2A_EMBEDDINGS_MULTILINGUAL=false)"
        )
    try:
        cross = _cross_lingual(threads, workers)
    except ModelUnavailable as exc:
        return EmbedderChoice(local, reason, None, str(exc))
    return EmbedderChoice(local, reason, cross, f"the in-process model {cross.model}")
