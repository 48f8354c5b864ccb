"""Settings of the knowledge base (``A2A_BUILTIN_CORPUS``, ``A2A_EMBEDDINGS_*``)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr

from magisterium_a2a.plugin import PluginSettings

ANN_MIN_PASSAGES = 20_000
"""Below this many vectors exact search is as fast (bench/RESULTS-vectors.md)."""


class KnowledgeSettings(PluginSettings):
    """The built-in catalogue switch, the in-process embedding model and the
    optional embeddings endpoint (which, when set, is used instead of the model)."""

    builtin_corpus: bool = Field(
        True, description="Serve the built-in catalogue of magisterial documents"
    )
    embeddings_local: bool = Field(
        True,
        description="Embed with the in-process model (the 'semantic' extra) when no endpoint "
        "is set; false means BM25 search alone unless A2A_EMBEDDINGS_URL is set",
    )
    embeddings_multilingual: bool = Field(
        True,
        description="Search questions not in English with the in-process cross-lingual model "
        "(alongside the English one); false means every question uses the English model",
    )
    embeddings_threads: int = Field(
        1,
        ge=1,
        le=64,
        description="CPU threads of the in-process models for a server's questions (each "
        "question on this many threads; every worker process has its own)",
    )
    embeddings_ingest_threads: int = Field(
        0,
        ge=0,
        le=64,
        description="Batches the in-process models run at once, one CPU thread each, in "
        "ingest and documents embed; 0 means one per CPU core",
    )
    search_thesaurus: bool = Field(
        True, description="Expand questions with the theological thesaurus before searching"
    )
    embeddings_url: str = Field(
        "",
        description="OpenAI-compatible embeddings endpoint (base .../v1 or .../v1/embeddings); "
        "empty means the in-process model (or BM25 alone without it)",
    )
    embeddings_model: str = Field("", description="Embeddings model name sent to the endpoint")
    embeddings_api_key: SecretStr | None = Field(
        None, description="Bearer key for the embeddings endpoint, if it needs one"
    )
    embeddings_timeout_seconds: float = Field(
        10.0, gt=0, description="Timeout of one embeddings request"
    )
    embeddings_batch_size: int = Field(
        64, ge=1, le=2048, description="Texts per embeddings request during ingestion"
    )

    vectors_ann_min_passages: int = Field(
        ANN_MIN_PASSAGES,
        ge=0,
        description="From how many vectors of a model semantic search uses the approximate "
        "index (usearch HNSW, built at ingest in <knowledge dir>/vectors/) instead of exact "
        "search over every vector; 0 means always when the file is there",
    )

    @property
    def knowledge_dir(self) -> Path:
        """Where the document store and its indexes live."""
        return self.data_dir / "knowledge"
