"""Settings of the knowledge base (``A2A_BUILTIN_CORPUS``, ``A2A_EMBEDDINGS_*``)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr

from magisterium_a2a.plugin import PluginSettings


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

    @property
    def knowledge_dir(self) -> Path:
        """Where the document store and its indexes live."""
        return self.data_dir / "knowledge"
