"""Which embedder serves semantic search, and why: the operator's
OpenAI-compatible endpoint when one is set, else the in-process model when its
packages are installed, else none (BM25 alone), with the reason ``doctor`` and
``kb.mode`` report.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from magisterium_a2a.skills.knowledge.embeddings import EmbeddingsClient, Vector
from magisterium_a2a.skills.knowledge.local_embeddings import LocalEmbedder, ModelUnavailable
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


@functools.cache
def _local(threads: int) -> LocalEmbedder:
    # One copy of the model per process (about 190 MB resident), whoever asks.
    return LocalEmbedder.load(threads=threads)


def choose_embedder(settings: KnowledgeSettings) -> EmbedderChoice:
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
        local = _local(settings.embeddings_threads)
    except ModelUnavailable as exc:
        return EmbedderChoice(None, str(exc))
    return EmbedderChoice(local, f"the in-process model {local.model} (onnxruntime)")
