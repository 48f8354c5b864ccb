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
  question with a passage the way BM25 does.

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

import logging
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Literal

from magisterium_a2a.skills.knowledge.embeddings import EmbeddingsError, VectorIndex
from magisterium_a2a.skills.knowledge.index import Ranked
from magisterium_a2a.skills.knowledge.library import knowledge_dir, prepare
from magisterium_a2a.skills.knowledge.local_embeddings import LocalEmbedder
from magisterium_a2a.skills.knowledge.model import Document, DocumentInfo
from magisterium_a2a.skills.knowledge.query import Thesaurus, Understood, builtin_entries
from magisterium_a2a.skills.knowledge.semantic import Embedder, EmbedderChoice, choose_embedder
from magisterium_a2a.skills.knowledge.settings import KnowledgeSettings
from magisterium_a2a.skills.knowledge.store import Store, StoredPassage

log = logging.getLogger(__name__)
RRF_K = 60
MIN_SIMILARITY = 0.25
Fusion = Literal["rrf", "convex"]
MAX_CANDIDATES = 4096
_FETCH_CACHE = 256


@dataclass(frozen=True, slots=True)
class PassageHit:
    """One retrieved passage with what is needed to show and cite it."""

    document: DocumentInfo
    ordinal: int
    heading: str | None
    ref: str | None
    text: str
    score: float

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


class KnowledgeBase:
    """The store opened for serving, plus the optional semantic layer."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder | None = None,
        *,
        why: str = "",
        options: RetrievalOptions | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.options = options or RetrievalOptions()
        self._why = why or (
            "no embedding model" if embedder is None else f"{embedder.model} ({embedder.url})"
        )
        self._thesaurus = Thesaurus(builtin_entries() if self.options.thesaurus else (), self.terms)
        self._vectors: VectorIndex | None = None
        self._fetched: OrderedDict[str, FetchedDocument | None] = OrderedDict()
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
        local = choice.embedder if isinstance(choice.embedder, LocalEmbedder) else None
        prepare(settings, local)
        store = Store(knowledge_dir(settings), readonly=True)
        if options is None:
            options = RetrievalOptions(thesaurus=settings.search_thesaurus)
        return cls(store, choice.embedder, why=choice.reason, options=options)

    async def aclose(self) -> None:
        if self.embedder is not None:
            await self.embedder.aclose()
        self.store.close()

    # -- state ---------------------------------------------------------------------

    def _load_vectors(self) -> None:
        self._vectors = None
        if self.embedder is None:
            return
        self._vectors = VectorIndex.load(self.store.vectors(self.embedder.model))

    def _refresh(self) -> None:
        if self.store.refresh():
            self._fetched.clear()
            self._load_vectors()

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
        return SearchMode(
            "hybrid",
            f"BM25 fused with {self._why} ({embedded} of {total} passages have a vector{missing})",
        )

    def understand(self, question: str) -> Understood:
        """The question as searched: scaffolding dropped, thesaurus words added."""
        return self._thesaurus.understand(question)

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

    # -- searching -----------------------------------------------------------------

    async def _ranked(self, query: str, candidates: int, kind: str | None) -> Ranked:
        self._refresh()
        options = self.options
        understood = self.understand(query)
        lexical: Ranked = []
        if options.use_lexical or self._vectors is None or self.embedder is None:
            lexical = self.store.index.search(
                understood.lexical, candidates, kind, expansions=understood.expansions
            )
        if self.embedder is None or self._vectors is None or not options.use_vectors:
            return lexical
        try:
            vector = await self.embedder.embed_query(query)
            dense = await self._vectors.search_async(vector, candidates, kind)
            # Every passage is somebody's nearest neighbour: below this similarity
            # the model is only saying "nothing here" (measured: nonsense queries
            # score 0.1-0.2, expected documents of the evaluation set 0.31 and up).
            dense = [hit for hit in dense if hit[1] >= MIN_SIMILARITY]
        except EmbeddingsError as exc:
            log.warning("semantic search unavailable for this query, BM25 alone: %s", exc)
            return lexical
        if not options.use_lexical:
            return dense
        if options.fusion == "rrf":
            return fuse([lexical, dense])
        return fuse_scores(lexical, dense, options.lexical_weight)

    async def search_passages(
        self, query: str, *, limit: int = 10, kind: str | None = None
    ) -> list[PassageHit]:
        ranked = (await self._ranked(query, max(limit * 4, 40), kind))[:limit]
        return self._hits([(pid, score) for pid, score, _ in ranked])

    async def search_documents(
        self, query: str, *, limit: int = 10, kind: str | None = None, per_document: int = 1
    ) -> list[DocumentHit]:
        candidates = max(limit * 8, 64)
        while True:
            ranked = await self._ranked(query, candidates, kind)
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
        hits = self._hits([pair for picks in chosen.values() for pair in picks])
        by_doc: OrderedDict[str, list[PassageHit]] = OrderedDict()
        for hit in hits:
            by_doc.setdefault(hit.document.id, []).append(hit)
        return [
            DocumentHit(document=found[0].document, score=found[0].score, passages=found)
            for found in by_doc.values()
        ]

    def _hits(self, ranked: list[tuple[int, float]]) -> list[PassageHit]:
        stored = self.store.passages([pid for pid, _ in ranked])
        infos = self.store.document_infos(p.document_id for p in stored.values())
        hits: list[PassageHit] = []
        for pid, score in ranked:
            passage = stored.get(pid)
            info = infos.get(passage.document_id) if passage is not None else None
            if passage is not None and info is not None:
                hits.append(_hit(passage, info, score))
        return hits


def _hit(passage: StoredPassage, info: DocumentInfo, score: float) -> PassageHit:
    return PassageHit(
        document=info,
        ordinal=passage.ordinal,
        heading=passage.heading,
        ref=passage.ref,
        text=passage.text,
        score=score,
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


def fuse_scores(lexical: Ranked, dense: Ranked, lexical_weight: float) -> Ranked:
    """Convex fusion: each list's scores scaled from its natural zero to its best
    hit (BM25 from 0; cosine from ``MIN_SIMILARITY``, where the model says
    "unrelated"), then weighted and added.

    Unlike reciprocal ranks, a passage the model finds much closer than the
    rest keeps its lead (RRF demoted such hits behind passages middling in both
    lists); anchoring the cosines at the floor rather than at 0 lets them,
    bunched between 0.3 and 0.6, count as much as BM25's. Fixed zeros, not the
    lists' own minimums, so a short list (a small library) is not stretched.
    """
    scores: dict[int, float] = {}
    keys: dict[int, int] = {}
    lists = ((lexical, lexical_weight, 0.0), (dense, 1.0 - lexical_weight, MIN_SIMILARITY))
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
