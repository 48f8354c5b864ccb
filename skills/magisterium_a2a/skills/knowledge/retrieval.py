"""Retrieval: the typed API that ``document_search``, ``document_fetch`` and
``catholic_qa`` use. Keep it stable.

Get the one shared instance at start-up, inside a skill factory::

    from magisterium_a2a.skills.engines import knowledge_base
    kb = knowledge_base(env)            # built once per server, closed at shutdown

then, in a handler:

- ``await kb.search_passages(query, limit=8, kind=None) -> list[PassageHit]``:
  the best passages, best first, each with ``score``, ``text``, ``heading``,
  ``ref`` (the section's citation form when it has one, else the document's),
  ``document`` (a ``DocumentInfo``: id, title, author, year, ref, url, kind,
  genre, language, full_text) and ``cite_id`` (``"<document id>#<n>"``, stable
  while the document is unchanged; ``kb.passage(cite_id)`` reads it back).
  ``hit.citation(i)`` is the contract's citation object for footnote ``[i+1]``.
- ``await kb.search_documents(query, limit=10, kind=None) -> list[DocumentHit]``:
  documents, deduplicated, best first, each with its best passages.
- ``kb.document(id) -> Document | None``: a whole document (``.body``,
  ``.sections``, metadata); ``kb.fetch(id)`` gives just metadata and body,
  cached (what ``document_fetch`` uses).
- ``kb.mode -> SearchMode``: ``"bm25"`` or ``"hybrid"``, and why.
- ``kb.understand(question) -> Understood``: the question as searched (its
  lexical text and the thesaurus's added words).
- ``kb.terms(text) -> list[str]``: the search terms of a text as the index
  analyses it (lower-cased, stop words dropped, stemmed), to compare a
  question with a passage the way BM25 does; ``kb.rarity(terms)`` weighs
  them (inverse document frequency over the passages).
- ``kb.by_name(text) -> str | None``: the id of the document the text names
  exactly (title, short title, catalogue alias; ``titles.py``);
  ``kb.named(query)`` the documents a query names; ``kb.near_names(text)``
  documents whose names are close to a misspelt one.

A passage hit carries ``similarity``, the model's cosine between the query and
the passage when the vector search scored it (None in BM25 mode or below the
model's floor), so a caller can tell a match in meaning from a match in words.

``kind`` is one of ``skills.knowledge.model.KINDS``. Scores are comparable only
within one call: BM25 scores in BM25 mode, fused scores (0 to 1) in hybrid mode.

A question is first understood (``query.py``: scaffolding dropped, the
thesaurus's words added for BM25), then searched both ways: BM25 over the
passages (with their titles and headings), and, by default, the in-process
embedding model over their vectors (``semantic.py`` says which model serves,
or why none does). The two lists are fused by score, each scaled from its
natural zero to its best hit (``fuse_scores``); reciprocal-rank fusion
(``fuse``) remains as an option measured in bench/RESULTS-knowledge.md.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from rapidfuzz import fuzz, process

from magisterium_a2a.skills.knowledge import ann
from magisterium_a2a.skills.knowledge.catalogue import aliases, names_in_languages
from magisterium_a2a.skills.knowledge.embeddings import EmbeddingsError
from magisterium_a2a.skills.knowledge.glossary import builtin as builtin_glossary
from magisterium_a2a.skills.knowledge.index import Ranked
from magisterium_a2a.skills.knowledge.languages import SURE_FOREIGN, detect
from magisterium_a2a.skills.knowledge.library import knowledge_dir, prepare
from magisterium_a2a.skills.knowledge.model import Document, DocumentInfo
from magisterium_a2a.skills.knowledge.query import Thesaurus, Understood, builtin_entries
from magisterium_a2a.skills.knowledge.semantic import Embedder, EmbedderChoice, choose_embedder
from magisterium_a2a.skills.knowledge.settings import ANN_MIN_PASSAGES, KnowledgeSettings
from magisterium_a2a.skills.knowledge.store import Store, StoredPassage
from magisterium_a2a.skills.knowledge.titles import TitleIndex, derived_names, fold_name

log = logging.getLogger(__name__)
RRF_K = 60
MIN_SIMILARITY = 0.25
Fusion = Literal["rrf", "convex"]
MAX_CANDIDATES = 4096
ENGLISH_MODEL = (None, "en")
"""Questions the English model reads: English, and those too short to tell."""
MAX_KNOWN_SHARE = 0.5
"""A question the language layer calls foreign is read as such when fewer than
this share of its words occur in the library ("divine mercy", which it may call
French, stays English) ..."""
MAX_KNOWN_SHARE_WHEN_SURE = 0.9
"""... or, when the layer is sure, unless nearly all of them do (French shares
many words with English and Latin; "Rerum Novarum", which it is sure is Latin,
is searched as the English library names it)."""
_FETCH_CACHE = 256
MISSPELT_NAME_SCORE = 90
"""rapidfuzz ratio (0-100) from which a whole query is taken as a misspelt name."""
NEAR_NAME_SCORE = 88
"""rapidfuzz token-set ratio (0-100) from which a name is offered for a misspelt
one, or for one with words added ("Humanae Vitae encyclical")."""


@dataclass(frozen=True, slots=True)
class PassageHit:
    """One retrieved passage with what is needed to show and cite it."""

    document: DocumentInfo
    ordinal: int
    heading: str | None
    ref: str | None
    text: str
    score: float
    similarity: float | None = None
    """The model's cosine similarity to the query, when the vector search scored it."""

    @property
    def cite_id(self) -> str:
        return f"{self.document.id}#{self.ordinal}"

    def citation(self, index: int) -> dict[str, Any]:
        """The contract's citation object; ``index`` is the 0-based ``document_index``."""
        doc = self.document
        return {
            "cited_text": self.text,
            "cited_text_heading": self.heading,
            "document_title": doc.title,
            "document_index": index,
            "document_author": doc.author,
            "document_year": doc.year,
            "document_reference": self.ref or doc.ref,
            "source_url": doc.url,
            "document_id": doc.id,
        }


@dataclass(frozen=True, slots=True)
class DocumentHit:
    document: DocumentInfo
    score: float
    passages: list[PassageHit] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class FetchedDocument:
    """What ``document_fetch`` returns: metadata and the rendered body text."""

    info: DocumentInfo
    body: str


@dataclass(frozen=True, slots=True)
class SearchMode:
    mode: Literal["bm25", "hybrid"]
    reason: str


@dataclass(frozen=True, slots=True)
class RetrievalOptions:
    """How a question is searched; the defaults are what bench/RESULTS-knowledge.md
    measured best on the evaluation set."""

    thesaurus: bool = True
    fusion: Fusion = "convex"
    lexical_weight: float = 0.5
    """Convex fusion: weight of the BM25 score (each list scaled to its best hit)."""
    use_lexical: bool = True
    use_vectors: bool = True
    glossary: bool = True
    """Read questions in other languages through the glossary (off: the
    cross-lingual model and BM25 over the question's own words alone)."""
    cross_lingual_weights: tuple[float, float, float] = (0.5, 0.25, 0.25)
    """A question in another language: the weights of BM25 over its gloss, of the
    cross-lingual model's reading of it, and of the English model's reading of
    the gloss."""


class KnowledgeBase:
    """The store opened for serving, plus the optional semantic layer."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder | None = None,
        *,
        why: str = "",
        options: RetrievalOptions | None = None,
        cross_lingual: Embedder | None = None,
        ann_min_passages: int = ANN_MIN_PASSAGES,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.cross_lingual = cross_lingual
        """The model for questions not in English; None: ``embedder`` reads them too."""
        self.options = options or RetrievalOptions()
        self._why = why or (
            "no embedding model" if embedder is None else f"{embedder.model} ({embedder.url})"
        )
        self._thesaurus = Thesaurus(builtin_entries() if self.options.thesaurus else (), self.terms)
        self.ann_min_passages = ann_min_passages
        """From how many vectors a model's approximate index serves (``ann.py``)."""
        self._vectors: ann.Searchable | None = None
        self._cross_vectors: ann.Searchable | None = None
        self.vector_states: dict[str, str] = {}
        """How each model's vectors are searched (``ann.Loaded.state``), for ``doctor``."""
        self._titles: TitleIndex | None = None
        self._fetched: OrderedDict[str, FetchedDocument | None] = OrderedDict()
        self._checked_this_turn = False
        self._load_vectors()

    @classmethod
    def open(
        cls, settings: KnowledgeSettings, options: RetrievalOptions | None = None
    ) -> KnowledgeBase:
        """Prepare the store (catalogue, index, catalogue vectors) and open it read-only."""
        choice: EmbedderChoice = choose_embedder(settings)
        # The in-process model embeds the catalogue at first start (its shipped
        # vectors, in practice); an endpoint is never called at start-up:
        # ``documents embed`` does that work.
        prepare(settings, *choice.local)
        store = Store(knowledge_dir(settings), readonly=True)
        if options is None:
            options = RetrievalOptions(thesaurus=settings.search_thesaurus)
        return cls(
            store,
            choice.embedder,
            why=choice.reason,
            options=options,
            cross_lingual=choice.cross_lingual,
            ann_min_passages=settings.vectors_ann_min_passages,
        )

    async def aclose(self) -> None:
        for embedder in (self.embedder, self.cross_lingual):
            if embedder is not None:
                await embedder.aclose()
        self.store.close()

    # -- state ---------------------------------------------------------------------

    def _load_vectors(self) -> None:
        self._vectors = self._cross_vectors = None
        self.vector_states = {}
        if self.embedder is not None:
            self._vectors = self._load_model(self.embedder.model)
        if self.cross_lingual is not None:
            self._cross_vectors = self._load_model(self.cross_lingual.model)

    def _load_model(self, model: str) -> ann.Searchable | None:
        """The model's vectors: its approximate index with the news since it was
        built, or every vector searched exactly (``ann.load`` says which)."""
        loaded = ann.load(self.store, model, self.ann_min_passages)
        self.vector_states[model] = loaded.state
        return loaded.vectors

    def _refresh(self) -> None:
        """Follow another process' commit, asking SQLite at most once per turn of
        the event loop: the requests answered in one turn are answered from one
        state of the store, as they would be had the commit landed a moment later,
        and a busy ``document_fetch`` is spared a query per request."""
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:  # a command, off any loop: ask every time
            loop = None
        if loop is not None:
            if self._checked_this_turn:
                return
            self._checked_this_turn = True
            loop.call_soon(self._turn_ended)
        if self.store.refresh():
            self._fetched.clear()
            self._titles = None
            self._load_vectors()

    def _turn_ended(self) -> None:
        self._checked_this_turn = False

    @property
    def mode(self) -> SearchMode:
        if self.embedder is None:
            return SearchMode("bm25", self._why)
        total = self.store.stats().passages
        embedded = 0 if self._vectors is None else len(self._vectors)
        if embedded == 0:
            return SearchMode(
                "bm25",
                f"{self._why} is available but no passage has a vector yet: "
                "run 'magisterium-a2a documents embed'",
            )
        missing = (
            f"; {total - embedded} lack one: run 'magisterium-a2a documents embed'"
            if embedded < total
            else ""
        )
        cross = ""
        if self.cross_lingual is not None:
            count = 0 if self._cross_vectors is None else len(self._cross_vectors)
            cross = (
                f"; questions in other languages use {self.cross_lingual.model} "
                f"({count} of {total} passages have its vector)"
            )
        return SearchMode(
            "hybrid",
            f"BM25 fused with {self._why} ({embedded} of {total} passages have a vector"
            f"{missing}){cross}",
        )

    def route(self, query: str) -> tuple[Embedder | None, ann.Searchable | None]:
        """The model that reads this query, and its vectors: the cross-lingual one
        for a question detected in another language than English, the English
        one otherwise."""
        cross, vectors = self.cross_lingual, self._cross_vectors
        if cross is not None and vectors is not None and self.foreign(query):
            return cross, vectors
        return self.embedder, self._vectors

    def foreign(self, query: str) -> bool:
        """Whether a query is in another language than English: the layer says so,
        and most of its words are unknown to the library (so "Vatican II on the
        liturgy" stays English whatever the layer calls it)."""
        language, confidence = detect(query)
        if language == "en":
            return False
        terms = self.terms(query)
        if not terms:
            return True
        index = self.store.index
        share = sum(index.frequency(term) > 0 for term in terms) / len(terms)
        if language is not None and confidence >= SURE_FOREIGN:
            return share < MAX_KNOWN_SHARE_WHEN_SURE
        return share < MAX_KNOWN_SHARE

    def floors(self, query: str) -> tuple[float | None, float | None]:
        """The cosines of the model that reads ``query`` from which a passage
        addresses it in meaning alone, and with a good part of its words (None
        where the model does not say: then only shared words count)."""
        embedder = self.route(query)[0]
        found = []
        for name in ("answer_similarity", "support_similarity"):
            value = getattr(embedder, name, None)
            found.append(float(value) if isinstance(value, int | float) else None)
        return found[0], found[1]

    def understand(self, question: str) -> Understood:
        """The question as searched: scaffolding dropped, misspelt words read as the
        library's closest ones, thesaurus words added."""
        corrected = self.corrections(question)
        if corrected:
            question = f"{question} {' '.join(corrected.values())}"
        return self._thesaurus.understand(question)

    def synonyms(self, text: str) -> dict[str, tuple[str, ...]]:
        """For each analysed term of ``text``, the thesaurus words of every entry
        one of whose triggers holding that term the text fires ("birth control":
        both "birth" and "control" stand to gain "contraception")."""
        found: dict[str, dict[str, None]] = {}
        for trigger, words in self._thesaurus.fired(text):
            for term in trigger:
                found.setdefault(term, {}).update(dict.fromkeys(words))
        return {term: tuple(words) for term, words in found.items()}

    def corrections(self, text: str) -> dict[str, str]:
        """Analysed terms of ``text`` that no passage holds, and the library's
        terms closest to them in spelling (``index.PassageIndex.correction``)."""
        index = self.store.index
        found = {term: index.correction(term) for term in self.terms(text)}
        return {term: fixed for term, fixed in found.items() if fixed is not None}

    # -- reading -------------------------------------------------------------------

    def document(self, document_id: str) -> Document | None:
        """A whole document by id, with its sections."""
        self._refresh()
        return self.store.document(document_id)

    def fetch(self, document_id: str) -> FetchedDocument | None:
        """Metadata and body text by id: the ``document_fetch`` hot path, served
        from a small LRU cache that is dropped whenever the store changes."""
        self._refresh()
        cache = self._fetched
        if document_id in cache:
            cache.move_to_end(document_id)
            return cache[document_id]
        row = self.store.fetch(document_id)
        found = None if row is None else FetchedDocument(*row)
        cache[document_id] = found
        if len(cache) > _FETCH_CACHE:
            cache.popitem(last=False)
        return found

    def passage(self, cite_id: str) -> PassageHit | None:
        document_id, _, ordinal = cite_id.rpartition("#")
        if not document_id or not ordinal.isdigit():
            return None
        self._refresh()
        stored = self.store.passage_at(document_id, int(ordinal))
        if stored is None:
            return None
        info = self.store.document_infos([document_id]).get(document_id)
        return None if info is None else _hit(stored, info, 0.0)

    def terms(self, text: str) -> list[str]:
        """The analysed search terms of a text, in order, without repeats."""
        return self.store.index.terms(text)

    def rarity(self, terms: Iterable[str]) -> dict[str, float]:
        """Each analysed term's inverse document frequency over the passages
        (BM25's, so a term in every passage weighs almost nothing)."""
        total, frequency = self.store.index.num_passages, self.store.index.frequency
        return {t: math.log(1 + (total - (n := frequency(t)) + 0.5) / (n + 0.5)) for t in terms}

    # -- names ---------------------------------------------------------------------

    @property
    def titles(self) -> TitleIndex:
        self._refresh()
        if self._titles is None:
            documents = [s.info for s in self.store.documents()]
            known = aliases()
            given = [(d.id, d.title) for d in documents]
            given += [(d.id, name) for d in documents for name in known.get(d.id, ())]
            translated = names_in_languages()
            given += [(d.id, name) for d in documents for name in translated.get(d.id, ())]
            derived = [(d.id, name) for d in documents for name in derived_names(d.title, d.ref)]
            self._titles = TitleIndex(given, derived)
        return self._titles

    def by_name(self, text: str) -> str | None:
        """The id of the one document whose title or other name is exactly ``text``
        (case, accents and punctuation aside)."""
        return self.titles.exact(text)

    def named(self, query: str) -> list[str]:
        """The documents a query names (``titles.TitleIndex.named``)."""
        return self.titles.named(query)

    def _misspelt_name(self, query: str) -> list[str]:
        """The document whose name the whole query is, but for a letter or two
        ("humane vitae")."""
        folded = fold_name(query)
        if len(folded) < 6:
            return []
        found = process.extractOne(
            folded, self.titles.names(), scorer=fuzz.ratio, score_cutoff=MISSPELT_NAME_SCORE
        )
        document_id = None if found is None else self.titles.exact(found[0])
        return [] if document_id is None else [document_id]

    def near_names(self, text: str, limit: int = 3) -> list[DocumentInfo]:
        """Documents whose names are close to ``text`` (a misspelt title, a title
        with a word more): what to offer when nothing has that exact name."""
        folded = fold_name(text)
        if len(folded) < 4:
            return []
        index = self.titles
        found = process.extract(
            folded,
            index.names(),
            scorer=fuzz.token_set_ratio,
            score_cutoff=NEAR_NAME_SCORE,
            limit=limit * 4,
        )
        ids = list(dict.fromkeys(index.exact(name) for name, _, _ in found))
        infos = self.store.document_infos(i for i in ids if i is not None)
        return [infos[i] for i in ids if i is not None and i in infos][:limit]

    # -- searching -----------------------------------------------------------------

    def concepts(self, query: str) -> list[str]:
        """What a query the cross-lingual model reads asks about, as the English
        cells of the glossary's rows (``glossary.py``: "contraception, birth
        control pill"); empty for one read in English or that nothing glosses."""
        if not self.options.glossary or self.cross_lingual is None:
            return []
        if self.route(query)[0] is self.embedder:
            return []
        # Every language's forms: a label can be wrong on a short question, and the
        # glossary's forms do not collide across languages.
        return builtin_glossary().concepts(query, None)

    def gloss(self, query: str) -> str:
        """The query's concepts in the sources' English words, or ""."""
        return "; ".join(self.concepts(query))

    def reading(self, query: str) -> str:
        """The text searched the English way: the query itself, or, for one the
        cross-lingual model reads, its gloss in the sources' English words
        (``glossary.py``) with the query's own words (names, Latin titles)."""
        gloss = self.gloss(query)
        return f"{gloss}; {query}" if gloss else query

    async def _dense(
        self,
        embedder: Embedder,
        vectors: ann.Searchable,
        text: str,
        candidates: int,
        kind: str | None,
    ) -> Ranked:
        vector = await embedder.embed_query(text)
        dense = await vectors.search_async(vector, candidates, kind)
        # Every passage is somebody's nearest neighbour: below its floor the model
        # is only saying "nothing here" (measured for the English model: nonsense
        # queries score 0.1-0.2, expected documents 0.31 and up).
        zero = floor_of(embedder)
        return [hit for hit in dense if hit[1] >= zero]

    async def _ranked(
        self, query: str, candidates: int, kind: str | None
    ) -> tuple[Ranked, dict[int, float]]:
        """The fused ranking, and the similarity of each passage the model that
        reads the query scored."""
        self._refresh()
        options = self.options
        embedder, vectors = self.route(query)
        reading = self.reading(query)
        understood = self.understand(reading)
        lexical: Ranked = []
        if options.use_lexical or vectors is None or embedder is None:
            lexical = self.store.index.search(
                understood.lexical, candidates, kind, expansions=understood.expansions
            )
        if embedder is None or vectors is None or not options.use_vectors:
            return lexical, {}
        try:
            dense = await self._dense(embedder, vectors, query, candidates, kind)
            glossed: Ranked = []
            english, english_vectors = self.embedder, self._vectors
            if reading != query and english is not None and english_vectors is not None:
                glossed = await self._dense(english, english_vectors, reading, candidates, kind)
        except EmbeddingsError as exc:
            log.warning("semantic search unavailable for this query, BM25 alone: %s", exc)
            return lexical, {}
        similarities = {pid: score for pid, score, _ in dense}
        if not options.use_lexical:
            return dense, similarities
        if options.fusion == "rrf":
            return fuse([lexical, dense, glossed]), similarities
        if not glossed and english is embedder:
            return fuse_scores(lexical, dense, options.lexical_weight, floor_of(embedder)), (
                similarities
            )
        # A question in another language: its gloss in BM25 and in the English
        # model, and the cross-lingual model's reading of the question itself.
        lexical_weight, cross_weight, gloss_weight = options.cross_lingual_weights
        parts = [
            (lexical, lexical_weight, 0.0),
            (dense, cross_weight, floor_of(embedder)),
            (glossed, gloss_weight, MIN_SIMILARITY),
        ]
        return fuse_many(parts), similarities

    async def search_passages(
        self, query: str, *, limit: int = 10, kind: str | None = None
    ) -> list[PassageHit]:
        ranked, similarities = await self._ranked(query, max(limit * 4, 40), kind)
        return self._hits([(pid, score) for pid, score, _ in ranked[:limit]], similarities)

    async def search_documents(
        self, query: str, *, limit: int = 10, kind: str | None = None, per_document: int = 1
    ) -> list[DocumentHit]:
        """Documents best first; a document the query names by title or other
        name comes first whatever its score ("Humanae Vitae on contraception")."""
        candidates = max(limit * 8, 64)
        while True:
            ranked, similarities = await self._ranked(query, candidates, kind)
            # One long document can fill every candidate slot: widen the net
            # until there are enough distinct documents or no more passages.
            if (
                len({key for _, _, key in ranked}) >= limit
                or len(ranked) < candidates
                or candidates >= MAX_CANDIDATES
            ):
                break
            candidates *= 4
        chosen: OrderedDict[int, list[tuple[int, float]]] = OrderedDict()
        for pid, score, key in ranked:
            if key not in chosen and len(chosen) >= limit:
                continue
            picks = chosen.setdefault(key, [])
            if len(picks) < per_document:
                picks.append((pid, score))
        hits = self._hits([pair for picks in chosen.values() for pair in picks], similarities)
        by_doc: OrderedDict[str, list[PassageHit]] = OrderedDict()
        for hit in hits:
            by_doc.setdefault(hit.document.id, []).append(hit)
        found = [
            DocumentHit(document=found[0].document, score=found[0].score, passages=found)
            for found in by_doc.values()
        ]
        return self._named_first(query, found, kind)[:limit]

    def _named_first(
        self, query: str, found: list[DocumentHit], kind: str | None
    ) -> list[DocumentHit]:
        named = self.named(query) or self._misspelt_name(query)
        if not named:
            return found
        top = found[0].score if found else 1.0
        by_id = {hit.document.id: hit for hit in found}
        first: list[DocumentHit] = []
        for document_id in named:
            hit = by_id.pop(document_id, None)
            if hit is None:
                stored = self.store.passage_at(document_id, 0)
                info = self.store.document_infos([document_id]).get(document_id)
                if stored is None or info is None or (kind is not None and info.kind != kind):
                    continue
                hit = DocumentHit(info, top, [_hit(stored, info, top)])
            first.append(hit)
        return first + [hit for hit in found if hit.document.id in by_id]

    def _hits(
        self, ranked: list[tuple[int, float]], similarities: dict[int, float] | None = None
    ) -> list[PassageHit]:
        stored = self.store.passages([pid for pid, _ in ranked])
        infos = self.store.document_infos(p.document_id for p in stored.values())
        hits: list[PassageHit] = []
        for pid, score in ranked:
            passage = stored.get(pid)
            info = infos.get(passage.document_id) if passage is not None else None
            if passage is not None and info is not None:
                similarity = (similarities or {}).get(pid)
                hits.append(_hit(passage, info, score, similarity))
        return hits


def _hit(
    passage: StoredPassage, info: DocumentInfo, score: float, similarity: float | None = None
) -> PassageHit:
    return PassageHit(
        document=info,
        ordinal=passage.ordinal,
        heading=passage.heading,
        ref=passage.ref,
        text=passage.text,
        score=score,
        similarity=similarity,
    )


def fuse(rankings: list[Ranked], k: int = RRF_K) -> Ranked:
    """Reciprocal-rank fusion of several rankings of the same passages."""
    scores: dict[int, float] = {}
    keys: dict[int, int] = {}
    for ranking in rankings:
        for rank, (pid, _, key) in enumerate(ranking):
            scores[pid] = scores.get(pid, 0.0) + 1.0 / (k + rank + 1)
            keys[pid] = key
    ordered = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    return [(pid, score, keys[pid]) for pid, score in ordered]


def floor_of(embedder: Embedder) -> float:
    """The cosine below which the model says "unrelated" (its ``min_similarity``,
    else the English model's measured 0.25)."""
    value = getattr(embedder, "min_similarity", None)
    return float(value) if isinstance(value, int | float) else MIN_SIMILARITY


def fuse_scores(
    lexical: Ranked, dense: Ranked, lexical_weight: float, zero: float = MIN_SIMILARITY
) -> Ranked:
    """Convex fusion of BM25 and one model's cosines (``fuse_many``)."""
    return fuse_many([(lexical, lexical_weight, 0.0), (dense, 1.0 - lexical_weight, zero)])


def fuse_many(lists: Sequence[tuple[Ranked, float, float]]) -> Ranked:
    """Convex fusion of (ranking, weight, zero) lists: each list's scores scaled
    from its natural zero to its best hit (BM25 from 0; a cosine from the floor
    where its model says "unrelated"), then weighted and added.

    Unlike reciprocal ranks, a passage the model finds much closer than the
    rest keeps its lead (RRF demoted such hits behind passages middling in both
    lists); anchoring the cosines at the floor rather than at 0 lets them,
    bunched between 0.3 and 0.6, count as much as BM25's. Fixed zeros, not the
    lists' own minimums, so a short list (a small library) is not stretched.
    """
    scores: dict[int, float] = {}
    keys: dict[int, int] = {}
    for ranking, weight, zero in lists:
        if not ranking:
            continue
        span = max(score for _, score, _ in ranking) - zero
        if span <= 0:
            continue
        for pid, score, key in ranking:
            scores[pid] = scores.get(pid, 0.0) + weight * max(score - zero, 0.0) / span
            keys[pid] = key
    ordered = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    return [(pid, score, keys[pid]) for pid, score in ordered]
