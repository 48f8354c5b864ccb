"""Settings of ``catholic_qa`` (``A2A_LLM_*``, ``A2A_QA_SOURCES``)."""

from __future__ import annotations

from pydantic import Field, SecretStr

from magisterium_a2a.plugin import PluginSettings


class QASettings(PluginSettings):
    """The OpenAI-compatible language model, if any, and how many sources an answer gets."""

    llm_base_url: str = Field(
        "",
        description="OpenAI-compatible API base (…/v1, or the full …/chat/completions URL) of "
        "OpenAI, vLLM, Ollama or llama.cpp's server; empty means extractive answers",
    )
    llm_model: str = Field("", description="Chat model name sent to the LLM endpoint")
    llm_api_key: SecretStr | None = Field(
        None, description="Bearer key for the LLM endpoint, if it needs one"
    )
    llm_timeout_seconds: float = Field(
        60.0, gt=0, description="Longest wait for one LLM request, start to finish"
    )
    llm_max_tokens: int = Field(1024, ge=16, description="max_tokens of an answer completion")
    llm_temperature: float = Field(0.2, ge=0, le=2, description="Sampling temperature")
    llm_rewrite_followups: bool = Field(
        True,
        description="Let the LLM rewrite a follow-up question into a standalone search query",
    )
    qa_sources: int = Field(
        6, ge=1, le=20, description="Passages retrieved and numbered as sources for one answer"
    )
