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

from magisterium_a2a.skills.knowledge.languages import language_of
from magisterium_a2a.skills.knowledge.multilingual import LANGUAGES as MODEL_LANGUAGES
from magisterium_a2a.skills.knowledge.query import strip_scaffolding
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
# Without a language model to judge, a passage is a source only if it scores near
# the best one and addresses the question: it holds most of what the question's
# words weigh (each weighs its rarity in the library, so "France" counts for more
# than "Catholic"), or the embedding model finds it clearly close in meaning, or
# it holds a good part of the words and the model finds it close.
MIN_SCORE_SHARE = 0.4
MIN_COVERAGE = 0.6
"""Share of the question's term weight a passage must hold ("capital of France":
a passage naming France but no capital holds about half)."""
SUPPORTED_COVERAGE = 0.4
"""Coverage that, with the model's ``support_similarity``, makes a source: the
rosary encyclical answers "praying the rosary" without the word "pray"."""
FALLBACK_COVERAGE = 0.25
FALLBACK_SIMILARITY_SHARE = 0.8
"""When no passage addresses a question by the rules above, the best-ranked one is
its single source if it holds this share of the question's words and this share
of the model's ``support_similarity``."""
NEAR_BEST_COVERAGE = 0.7
"""A source holds at least this share of the best source's coverage: once one
passage speaks of communion received in the hand, one that only mentions the
laying on of a hand does not address the question."""
FRAMING = frozenset({"Church", "Catholic", "pope", "encyclical"})
"""Glossary concepts that frame a question rather than say what it asks."""
COMMON_SHARE = 0.5
COMMON_MIN = 4
"""A glossed question's words held by at least this many candidates and more than
this share of them, none of which the cross-lingual model finds, tell no passage
apart."""
FRAMING_WORDS = "Church Catholic Catholics pope popes encyclical"
"""The same framing in an English question's own words: "can a Catholic be a
Freemason" asks about Freemasonry, and a passage on the Catholic school that
holds only "Catholic" does not address it. Dropped when other words remain."""
FILLERS = frozenset({"get", "got", "make", "made", "still", "t", "s", "d", "ll", "re", "ve", "m"})
"""Words of a question's form that the index keeps ("how do I get", "can't")."""
STEM_PREFIX = 4
"""Terms match when one begins the other and they share this many letters: the
stemmer leaves "pray" and "prayer", "freemason" and "freemasonry" apart."""
THESAURUS_CREDIT = 0.75
"""A thesaurus phrase in the passage stands for most of the question term that
brought it in ("religious liberty" answered by a passage on religious freedom),
when it is at least as specific as that term (weighs as much): "sacrament" does
not stand for "communion"."""

Weighed = dict[str, tuple[float, tuple[frozenset[str], ...], tuple[frozenset[str], ...]]]
"""What a question asks, piece by piece: each piece's weight, the term sets any of
which holds it fully (the term itself; for a question in another language, any
English phrase of a glossary row), and the thesaurus phrases that stand for it."""


@dataclass(frozen=True, slots=True)
class Outcome:
    answer: Answer
    query: str


class QAEngine:
    def __init__(self, kb: KnowledgeBase, provider: AnswerProvider, *, sources: int = 6) -> None:
        self.kb = kb
        self.provider = provider
        self.sources = sources
        self._framing = frozenset(kb.terms(FRAMING_WORDS))

    async def query_for(self, question: str, conversation: Sequence[Turn]) -> str:
        if not conversation:
            return question
        rewritten = await self.provider.standalone_query(question, conversation)
        return rewritten or contextual_query(question, conversation)

    def weighed(self, query: str) -> Weighed:
        """Each search term of the question: its weight (rarity), and the thesaurus
        phrases of the entries it helps trigger, as specific as it is. A question in
        another language weighs the glossary's concepts it names instead: a row
        is held by any of its English phrases, and weighs as its rarest word."""
        glossed = self.kb.concepts(query)
        # "What does the pope say about…": who is asked is framing, not the topic;
        # a question the glossary reads only as framing ("Was sagt die Kirche zur
        # …?") asks something it cannot read, and no passage holds that.
        concepts = [c for c in glossed if c not in FRAMING]
        if glossed:
            found: Weighed = {}
            for concept in concepts:
                phrases = [frozenset(self.kb.terms(p)) for p in concept.split(",")]
                phrases = [p for p in phrases if p]
                if phrases:
                    weight = max(self.kb.rarity(frozenset().union(*phrases)).values())
                    found[concept] = (weight, tuple(phrases), ())
            return found
        stripped = strip_scaffolding(query)
        fixed = self.kb.corrections(stripped)
        terms = list(
            dict.fromkeys(fixed.get(t, t) for t in self.kb.terms(stripped) if t not in FILLERS)
        )
        terms = [t for t in terms if t not in self._framing] or terms
        weights = self.kb.rarity(terms)
        synonyms = self.kb.synonyms(" ".join(terms))
        own: Weighed = {}
        for term, weight in weights.items():
            phrases = []
            for phrase in synonyms.get(term, ()):
                words = frozenset(self.kb.terms(phrase))
                if words and sum(self.kb.rarity(words).values()) >= weight:
                    phrases.append(words)
            own[term] = (weight, (frozenset({term}),), tuple(phrases))
        return own

    def coverage(self, hit: PassageHit, weighed: Weighed) -> float:
        """The share of the question's term weight the passage holds (0 to 1)."""
        total = sum(weight for weight, _, _ in weighed.values())
        seen = set(self.kb.terms(f"{hit.document.title}\n{hit.heading or ''}\n{hit.text}"))

        def holds(phrases: tuple[frozenset[str], ...]) -> bool:
            return any(all(_holds(seen, word) for word in phrase) for phrase in phrases)

        held = 0.0
        for weight, exact, thesaurus in weighed.values():
            if holds(exact):
                held += weight
            elif holds(thesaurus):
                held += THESAURUS_CREDIT * weight
        return held / total if total > 0 else 0.0

    def asked(self, question: str, query: str) -> str:
        """What a source must address: a follow-up's own words ("and what does it
        say about rest?") when it has some, not the earlier question carried into
        its retrieval query; otherwise the query. A question in another language
        is weighed in the sources' English words (``weighed``)."""
        if query != question and self.weighed(question):
            return question
        return query

    def relevant(self, hits: Sequence[PassageHit], query: str) -> list[PassageHit]:
        """The hits that address the question: near the best score, and holding most
        of the question's weight in words or close to it in meaning (the model's
        own floor, where the model has one)."""
        best = max((hit.score for hit in hits), default=0.0)
        close, near = self.kb.floors(query)
        weighed = self.weighed(query)
        candidates = [hit for hit in hits if hit.score >= MIN_SCORE_SHARE * best]
        covered = {hit.cite_id: self.coverage(hit, weighed) for hit in candidates}
        floor = max(MIN_COVERAGE, NEAR_BEST_COVERAGE * max(covered.values(), default=0.0))

        def addresses(hit: PassageHit) -> bool:
            coverage, similarity = covered[hit.cite_id], hit.similarity or 0.0
            if coverage >= floor or (close is not None and similarity >= close):
                return True
            return near is not None and coverage >= SUPPORTED_COVERAGE and similarity >= near

        kept = [hit for hit in candidates if addresses(hit)]
        if (
            len(kept) >= COMMON_MIN
            and len(kept) > COMMON_SHARE * len(candidates)
            and all(hit.similarity is None for hit in kept)
            and self.kb.concepts(query)
            and language_of(query) in MODEL_LANGUAGES
        ):
            # A question in another language holds only what the glossary reads of
            # it: when most candidates hold those words and the cross-lingual model
            # finds none of them ("the best footballer in the world" holds "world",
            # as a dozen documents do), they share a word, not the question. Only
            # for a language the model was trained on: in another its silence
            # says nothing.
            return []
        if kept or not candidates or near is None:
            return kept
        # Nothing holds the question's words: the best-ranked passage alone may
        # still answer a question worded unlike its source ("Do the stars control
        # what people do?"), when it holds some of them and the model finds it close.
        top = candidates[0]
        if (
            covered[top.cite_id] >= FALLBACK_COVERAGE
            and (top.similarity or 0.0) >= FALLBACK_SIMILARITY_SHARE * near
        ):
            return [top]
        return []

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
        usable = (
            hits
            if self.provider.judges_relevance
            else self.relevant(hits, self.asked(question, query))
        )
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
            # Only passages that address the question may suggest where to go next.
            others=[hit for hit in usable if hit.cite_id not in taken],
        )
        answer = check(await self.provider.answer(request), numbered, question)
        if not _FOOTNOTES.sub("", answer.text).strip():
            raise ProviderError("The language model returned an empty answer; please try again.")
        return Outcome(answer, query)


def _holds(seen: set[str], term: str) -> bool:
    """Whether a passage's terms hold a term, or a term it begins or that begins it."""
    if term in seen:
        return True
    if len(term) < STEM_PREFIX:
        return False
    return any(
        len(other) >= STEM_PREFIX and (other.startswith(term) or term.startswith(other))
        for other in seen
    )


def provider_from_settings(settings: QASettings, kb: KnowledgeBase) -> AnswerProvider:
    """The configured language model, or the extractive provider when there is none."""
    if not settings.llm_base_url:
        return ExtractiveProvider(kb)
    if not settings.llm_model:
        raise ValueError("A2A_LLM_BASE_URL is set but A2A_LLM_MODEL is empty: name the model")
    return ChatCompletionsProvider.from_settings(settings)
