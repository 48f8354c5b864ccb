"""The provider interface: what writes an answer from numbered sources.

A provider gets the question, the conversation so far and the sources
numbered from 1, and returns a ``Draft``: text whose claims carry ``[n]``
footnotes, and suggested related questions. The draft is not trusted:
``skills.qa.citations`` checks every footnote against the sources. Two
providers exist: ``openai_chat`` (any OpenAI-compatible chat model) and
``extractive`` (no model: the passages themselves, quoted).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from magisterium_a2a.skills.knowledge.retrieval import PassageHit
from magisterium_a2a.skills.qa.conversation import Turn


class ProviderError(Exception):
    """The provider could not answer; the message is shown to the user as it is."""


@dataclass(frozen=True, slots=True)
class Source:
    """A retrieved passage as the provider sees it: footnote ``number`` cites it."""

    number: int
    hit: PassageHit
    quote: str
    """The passage trimmed to whole sentences: what the citation's ``cited_text`` shows."""


@dataclass(frozen=True, slots=True)
class AnswerRequest:
    question: str
    query: str
    """The retrieval query (the question, rewritten from the conversation when a follow-up)."""
    conversation: Sequence[Turn]
    sources: Sequence[Source]
    others: Sequence[PassageHit] = ()
    """Retrieved passages that address the question but were not numbered as
    sources, best first."""


@dataclass(frozen=True, slots=True)
class Draft:
    text: str
    related_questions: list[str] = field(default_factory=list)


class AnswerProvider(Protocol):
    @property
    def description(self) -> str:
        """What answers, for logs and the ``ask`` command."""
        ...

    @property
    def judges_relevance(self) -> bool:
        """True when the provider itself says that the sources do not address a
        question; otherwise only passages that share enough search terms with it
        are given as sources."""
        ...

    async def standalone_query(self, question: str, conversation: Sequence[Turn]) -> str | None:
        """A follow-up rewritten as a standalone search query, or None to use the
        deterministic rewrite; raises ``ProviderError`` when the provider is unusable."""
        ...

    async def answer(self, request: AnswerRequest) -> Draft:
        """The draft answer; raises ``ProviderError`` with a readable message."""
        ...

    async def aclose(self) -> None: ...
