"""The extractive provider: an answer made of the sources' own sentences.

Used when no language model is configured, so that ``catholic_qa`` answers on
a fresh machine. It composes nothing: for each of the best passages it quotes
the sentences that share the most search terms with the question, says where
they come from, and footnotes them; it says plainly that the answer is a
compilation. Catalogue entries, whose text is a summary written by this
server's maintainers, are presented as summaries, never quoted as the
document's words. Related questions are drawn from what was cited: the
headings of the passages around the ones quoted, the other passages that
address the question, the cited entries. The same input always gives the same
answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from magisterium_a2a.skills.knowledge.model import DocumentInfo
from magisterium_a2a.skills.knowledge.retrieval import KnowledgeBase, PassageHit
from magisterium_a2a.skills.qa.conversation import Turn
from magisterium_a2a.skills.qa.languages import quoted_note
from magisterium_a2a.skills.qa.provider import AnswerRequest, Draft, Source
from magisterium_a2a.skills.qa.sentences import whole_sentences

QUOTED_SOURCES = 4
QUOTE_WORDS = 80
RELATED = 3
INTRO = (
    "No language model is configured on this server, so this is not a composed answer: "
    "it is a compilation of the passages of its sources that best match the question, "
    "quoted as they stand."
)
# The Summa and the scholastic works built like it state objections before the
# author's answer; quoting "It seems that God does not exist" as the source's
# teaching would misquote it.
_OBJECTION = re.compile(r"^Objection \d+\s*[:.]")
_ANSWER = re.compile(r"^(?:On the contrary|I answer that|Reply to Objection|Reply Obj)", re.I)
_NEEDS_ARTICLE = ("Catechism", "Compendium", "Code ", "Council", "Summa", "Roman ")
_NUMBERING = re.compile(
    r"^(?:(?:article|question|chapter|part|section|book|lesson|q\.|a\.)\s*)?"
    r"[0-9ivxlcdm]+[.:)]\s+",
    re.IGNORECASE,
)


def short_title(document: DocumentInfo) -> str:
    """The title without a trailing parenthesis ("(McHugh & Callan Translation)")."""
    return re.sub(r"\s*\([^)]*\)$", "", document.title) or document.title


def objections(found: Sequence[str]) -> list[bool]:
    """Which sentences belong to an objection the author goes on to answer."""
    flags: list[bool] = []
    inside = False
    for sentence in found:
        if _OBJECTION.match(sentence):
            inside = True
        elif _ANSWER.match(sentence):
            inside = False
        flags.append(inside)
    return flags


def label(hit: PassageHit) -> str:
    doc = hit.document
    where = f"*{short_title(doc)}*"
    reference = hit.ref if hit.ref and hit.ref not in (doc.ref, doc.title) else None
    if reference:
        where += f", {reference}"
    elif hit.heading and doc.full_text:
        where += f", \u201c{_NUMBERING.sub('', hit.heading)}\u201d"
    byline = ", ".join(str(x) for x in (doc.author, doc.year) if x)
    return f"{where} ({byline})" if byline else where


def _flags(source: Source) -> tuple[list[str], list[bool]]:
    """The quote's sentences, and which are objections (read in the whole passage,
    since the quote may begin after an objection's first sentence)."""
    language = source.hit.document.language
    passage = whole_sentences(source.hit.text, language)
    voice = dict(zip(passage, objections(passage), strict=True))
    found = whole_sentences(source.quote, language)
    return found, [voice.get(sentence, False) for sentence in found]


def only_objections(source: Source) -> bool:
    flags = _flags(source)[1]
    return bool(flags) and all(flags)


def excerpt(source: Source, terms: set[str], kb: KnowledgeBase) -> str:
    """The sentences that share most search terms with the question, in reading
    order, about ``QUOTE_WORDS`` long; gaps are marked with an ellipsis.
    Objections are quoted only from a passage that holds nothing else."""
    found, flags = _flags(source)
    if not found:
        return " ".join(source.quote.split())
    pool = [i for i in range(len(found)) if not flags[i]] or list(range(len(found)))
    overlap = {i: len(terms.intersection(kb.terms(found[i]))) for i in pool}
    ranked = sorted(pool, key=lambda i: (overlap[i], -i), reverse=True)
    if overlap[ranked[0]] == 0:
        ranked = sorted(pool)
    chosen: list[int] = []
    words = 0
    for i in ranked:
        size = len(found[i].split())
        if chosen and words + size > QUOTE_WORDS:
            continue
        chosen.append(i)
        words += size
    chosen.sort()
    pieces: list[str] = []
    for previous, i in zip([None, *chosen], chosen, strict=False):
        if previous is not None and i != previous + 1:
            pieces.append("\u2026")
        pieces.append(found[i])
    return " ".join(pieces)


def as_question(hit: PassageHit) -> str | None:
    """A suggested question from a passage's heading (or, for a summary, its title)."""
    doc = hit.document
    if not doc.full_text:
        title = short_title(doc)
        return f"What does {'the ' if title.startswith(_NEEDS_ARTICLE) else ''}{title} teach?"
    if not hit.heading:
        return None
    heading = _NUMBERING.sub("", hit.heading.strip()).strip().strip('"\u201c\u201d')
    if len(heading) < 4:
        return None
    if heading.endswith("?"):
        return heading
    title = short_title(doc)
    if title.startswith(_NEEDS_ARTICLE):
        title = f"the {title}"
    return f"What does {title} say about \u201c{heading}\u201d?"


class ExtractiveProvider:
    judges_relevance = False

    def __init__(self, kb: KnowledgeBase) -> None:
        self.kb = kb

    @property
    def description(self) -> str:
        return "the extractive provider (no language model configured)"

    async def standalone_query(self, question: str, conversation: Sequence[Turn]) -> str | None:
        return None

    async def answer(self, request: AnswerRequest) -> Draft:
        terms = set(self.kb.terms(self.kb.gloss(request.query) or request.query))
        note = quoted_note(request.question) if self.kb.foreign(request.question) else None
        paragraphs = [INTRO] if note is None else [note, INTRO]
        # Passages that are all objection come last: they say what the author denies.
        ordered = sorted(request.sources, key=only_objections)
        quoted = sorted(ordered[:QUOTED_SOURCES], key=lambda source: source.number)
        for source in quoted:
            doc = source.hit.document
            words = excerpt(source, terms, self.kb)
            if only_objections(source):
                paragraphs.append(
                    f"{label(source.hit)}, stating an objection that the author then answers: "
                    f"\u201c{words}\u201d [{source.number}]"
                )
            elif doc.full_text:
                paragraphs.append(f"{label(source.hit)}: \u201c{words}\u201d [{source.number}]")
            else:
                paragraphs.append(
                    f"{label(source.hit)}, in the summary of this server's catalogue "
                    f"(not the document's own words): {words} [{source.number}]"
                )
        return Draft("\n\n".join(paragraphs), self._related(quoted, request.others))

    def _related(self, quoted: Sequence[Source], others: Sequence[PassageHit]) -> list[str]:
        """Questions drawn from what was cited: the headings of the passages around
        the quoted ones, then the other passages that address the question, then
        the cited catalogue entries themselves (whose summary is all there is)."""
        used = {s.hit.cite_id for s in quoted}
        used_headings = {s.hit.heading for s in quoted if s.hit.document.full_text}
        neighbours: list[PassageHit] = []
        for source in quoted:
            doc_id, ordinal = source.hit.document.id, source.hit.ordinal
            for near in (ordinal + 1, ordinal - 1):
                hit = self.kb.passage(f"{doc_id}#{near}") if near >= 0 else None
                if hit is not None:
                    neighbours.append(hit)
        summaries = [s.hit for s in quoted if not s.hit.document.full_text]
        questions: list[str] = []
        for hit in [*neighbours, *others, *summaries]:
            if hit.document.full_text and (hit.cite_id in used or hit.heading in used_headings):
                continue
            question = as_question(hit)
            if question is not None and question not in questions:
                questions.append(question)
            if len(questions) == RELATED:
                break
        return questions

    async def aclose(self) -> None:
        """Nothing to release: the knowledge base is closed by its owner."""
