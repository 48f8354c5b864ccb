"""One question to one checked answer: retrieval, sources, provider, checks.

Shared by the ``catholic_qa`` skill and the ``ask`` command. The retrieval
query is the question, rewritten from the conversation when there is one (by
the language model when it can, otherwise by ``contextual_query``). Retrieval
is the knowledge base's: BM25, fused with embeddings when they are configured.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

from magisterium_a2a.skills.knowledge.retrieval import KnowledgeBase, PassageHit
from magisterium_a2a.skills.qa.citations import Answer, check
from magisterium_a2a.skills.qa.conversation import Turn, contextual_query
from magisterium_a2a.skills.qa.extractive import ExtractiveProvider
from magisterium_a2a.skills.qa.openai_chat import ChatCompletionsProvider
from magisterium_a2a.skills.qa.provider import AnswerProvider, AnswerRequest, ProviderError, Source
from magisterium_a2a.skills.qa.sentences import is_whole, whole_sentences
from magisterium_a2a.skills.qa.settings import QASettings

log = logging.getLogger(__name__)
_FOOTNOTES = re.compile(r"\[\d+\]")
NOT_ADDRESSED = "The sources available here do not address this question."
EXTRA_PASSAGES = 6
CITED_WORDS = 160
# Without a model to judge, a passage is a source only if it shares enough of the
# query's search terms (half of them, two at most) and scores near the best one.
MIN_SCORE_SHARE = 0.4


@dataclass(frozen=True, slots=True)
class Outcome:
    answer: Answer
    query: str


class QAEngine:
    def __init__(self, kb: KnowledgeBase, provider: AnswerProvider, *, sources: int = 6) -> None:
        self.kb = kb
        self.provider = provider
        self.sources = sources

    async def query_for(self, question: str, conversation: Sequence[Turn]) -> str:
        if not conversation:
            return question
        rewritten = await self.provider.standalone_query(question, conversation)
        return rewritten or contextual_query(question, conversation)

    def relevant(self, hits: Sequence[PassageHit], query: str) -> list[PassageHit]:
        """The hits that share enough of the query's terms to be worth quoting (the
        thesaurus's words for them count: a passage on "immutability" answers
        "does God change")."""
        terms = set(self.kb.terms(query))
        needed = min(2, (len(terms) + 1) // 2)
        terms.update(self.kb.terms(" ".join(self.kb.understand(query).expansions)))
        best = max((hit.score for hit in hits), default=0.0)
        kept = []
        for hit in hits:
            seen = self.kb.terms(f"{hit.document.title}\n{hit.heading or ''}\n{hit.text}")
            if len(terms.intersection(seen)) >= needed and hit.score >= MIN_SCORE_SHARE * best:
                kept.append(hit)
        return kept

    def quote(self, hit: PassageHit, query: str) -> str:
        """The passage trimmed to whole sentences, at most about ``CITED_WORDS`` long,
        around the sentence that shares most terms with the query."""
        found = whole_sentences(hit.text, hit.document.language)
        if not found:
            return " ".join(hit.text.split())
        sizes = [len(s.split()) for s in found]
        if sum(sizes) <= CITED_WORDS:
            return " ".join(found)
        terms = set(self.kb.terms(query))
        scores = [len(terms.intersection(self.kb.terms(s))) for s in found]
        low = high = max(range(len(found)), key=lambda i: (scores[i], -i))
        words = sizes[low]
        while True:
            if high + 1 < len(found) and words + sizes[high + 1] <= CITED_WORDS:
                high += 1
                words += sizes[high]
            elif low > 0 and words + sizes[low - 1] <= CITED_WORDS:
                low -= 1
                words += sizes[low]
            else:
                break
        # A line without final punctuation inside a passage is a sub-heading: not an end.
        while high > low and not is_whole(found[high]):
            high -= 1
        return " ".join(found[low : high + 1])

    async def ask(self, question: str, conversation: Sequence[Turn] = ()) -> Outcome:
        query = await self.query_for(question, conversation)
        hits: list[PassageHit] = []
        texts: set[str] = set()
        for hit in await self.kb.search_passages(query, limit=self.sources + EXTRA_PASSAGES):
            if hit.text not in texts:
                texts.add(hit.text)
                hits.append(hit)
        usable = hits if self.provider.judges_relevance else self.relevant(hits, query)
        chosen = usable[: self.sources]
        if not chosen:
            return Outcome(Answer(NOT_ADDRESSED), query)
        numbered = [Source(i + 1, hit, self.quote(hit, query)) for i, hit in enumerate(chosen)]
        taken = {hit.cite_id for hit in chosen}
        request = AnswerRequest(
            question=question,
            query=query,
            conversation=conversation,
            sources=numbered,
            others=[hit for hit in hits if hit.cite_id not in taken],
        )
        answer = check(await self.provider.answer(request), numbered, question)
        if not _FOOTNOTES.sub("", answer.text).strip():
            raise ProviderError("The language model returned an empty answer; please try again.")
        return Outcome(answer, query)


def provider_from_settings(settings: QASettings, kb: KnowledgeBase) -> AnswerProvider:
    """The configured language model, or the extractive provider when there is none."""
    if not settings.llm_base_url:
        return ExtractiveProvider(kb)
    if not settings.llm_model:
        raise ValueError("A2A_LLM_BASE_URL is set but A2A_LLM_MODEL is empty: name the model")
    return ChatCompletionsProvider.from_settings(settings)
