"""The full-text index of passages: tantivy with BM25.

Tantivy won the comparison with SQLite FTS5 on the same 100,000 passages
(bench/RESULTS-knowledge.md): a natural question is an OR of its words, and
FTS5 scores every passage that contains any of them before sorting, while
tantivy's block-max WAND skips what cannot reach the top; p50 was 0.7 ms
against 28 ms, the index a sixth of the size.

The index holds no text of its own: each entry is a passage id (the row id in
the SQLite store), its document id (to delete a document's passages), its
kind (to filter) and the analysed title, heading and text. The SQLite store
is the source of truth; this index can always be rebuilt from it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import tantivy
from rapidfuzz.distance import OSA

ANALYZER = "kb_en"
FIELD_BOOSTS: dict[str, float] = {"title": 1.0, "heading": 1.0, "text": 1.0}
# A passage whose document title holds every word of the query ("Rerum Novarum",
# "Epistle LXVI") gets this extra weight; a partial title match gets none, so
# long titles full of common words do not crowd the results.
TITLE_MATCH_BOOST = 2.0
# Words the thesaurus adds weigh less than the reader's own.
EXPANSION_BOOST = 0.5
# Words that carry no topic in a question; the analyser drops them on both sides.
QUESTION_WORDS = [
    "about",
    "according",
    "also",
    "any",
    "can",
    "could",
    "did",
    "do",
    "does",
    "has",
    "have",
    "how",
    "i",
    "me",
    "my",
    "our",
    "say",
    "says",
    "should",
    "tell",
    "us",
    "we",
    "what",
    "when",
    "where",
    "which",
    "who",
    "whom",
    "why",
    "would",
    "you",
]
# A query term found in no passage is read as the library's closest term in
# spelling ("purgatroy", "euthenasia") when one is this close (optimal string
# alignment: a swap of two letters is one edit) and the term is this long.
CORRECTION_MIN_LENGTH = 6
CORRECTION_EDITS = ((8, 1), (100, 2))
"""(longest term, edits allowed): one edit up to eight letters, two beyond (a
short real word the library lacks, "annul", is not read as "annum")."""
WRITER_HEAP_BYTES = 128_000_000
# Bump when the schema or the analyser changes: the store rebuilds the index.
INDEX_SCHEMA = "2"

Ranked = list[tuple[int, float, int]]
"""(passage id, score, document key) triples, best first."""


def document_key(document_id: str) -> int:
    """A 63-bit number standing for a document id, kept as a fast field so that
    results can be grouped by document without reading stored fields."""
    digest = hashlib.blake2b(document_id.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


@dataclass(frozen=True, slots=True)
class IndexEntry:
    passage_id: int
    document_id: str
    kind: str
    title: str
    heading: str
    text: str


def _analyzer() -> tantivy.TextAnalyzer:
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(40))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .filter(tantivy.Filter.stopword("english"))
        .filter(tantivy.Filter.custom_stopword(QUESTION_WORDS))
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_unsigned_field("pid", stored=False, indexed=False, fast=True)
    builder.add_unsigned_field("doc_key", stored=False, indexed=False, fast=True)
    builder.add_text_field("doc_id", stored=True, tokenizer_name="raw")
    builder.add_text_field("kind", stored=False, tokenizer_name="raw")
    for name in FIELD_BOOSTS:
        builder.add_text_field(name, stored=False, tokenizer_name=ANALYZER)
    return builder.build()


class PassageIndex:
    """An open tantivy index of passages; ``search`` is safe to call at any time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._analyzer = _analyzer()
        self._schema = _schema()
        path.mkdir(parents=True, exist_ok=True)
        self._index = tantivy.Index(self._schema, path=str(path), reuse=True)
        self._index.register_tokenizer(ANALYZER, self._analyzer)
        self._searcher = self._index.searcher()

    @staticmethod
    def committed_opstamp(path: Path) -> int | None:
        """The opstamp of the index's last commit, from tantivy's own meta file."""
        try:
            meta = json.loads((path / "meta.json").read_text())
        except (OSError, ValueError):
            return None
        opstamp = meta.get("opstamp")
        return opstamp if isinstance(opstamp, int) else None

    def reload(self) -> None:
        """See the latest commit (made by this or another process)."""
        self._index.reload()
        self._searcher = self._index.searcher()

    @property
    def num_passages(self) -> int:
        return int(self._searcher.num_docs)

    def terms(self, text: str) -> list[str]:
        """The analysed search terms of a query, in order, without repeats."""
        return list(dict.fromkeys(self._analyzer.analyze(text)))

    def frequency(self, term: str) -> int:
        """How many passages hold an analysed term in their text, heading or title."""
        searcher = self._searcher
        return max(int(searcher.doc_freq(field, term)) for field in FIELD_BOOSTS)

    def correction(self, term: str) -> str | None:
        """The library's term closest in spelling to an analysed term that no
        passage holds (same first two letters, few edits, the most frequent on a
        tie); None when the term is known, short, or nothing is close."""
        if len(term) < CORRECTION_MIN_LENGTH or self.frequency(term) > 0:
            return None
        edits = next(limit for longest, limit in CORRECTION_EDITS if len(term) <= longest)
        best: tuple[int, int, str] | None = None
        for field in ("text", "title"):
            for candidate, count in self._searcher.terms_with_prefix(field, term[:2]):
                distance = OSA.distance(term, candidate, score_cutoff=edits)
                if distance <= edits:
                    key = (distance, -int(count), candidate)
                    if best is None or key < best:
                        best = key
        return None if best is None else best[2]

    def search(
        self,
        query: str,
        limit: int,
        kind: str | None = None,
        *,
        expansions: Sequence[str] = (),
    ) -> Ranked:
        """(passage id, BM25 score, document key), best first; empty when no word can match.

        ``expansions`` (the thesaurus's words) are matched too, at
        ``EXPANSION_BOOST``; they never count toward the whole-title bonus.
        """
        terms = self.terms(query)
        extra = [t for t in self.terms(" ".join(expansions)) if t not in terms]
        if not terms and not extra:
            return []
        should: list[tuple[tantivy.Occur, tantivy.Query]] = []
        weighted = [(t, 1.0) for t in terms] + [(t, EXPANSION_BOOST) for t in extra]
        for term, weight in weighted:
            for field, boost in FIELD_BOOSTS.items():
                q = tantivy.Query.term_query(self._schema, field, term, index_option="freq")
                if boost * weight != 1.0:
                    q = tantivy.Query.boost_query(q, boost * weight)
                should.append((tantivy.Occur.Should, q))
        if not terms:
            return self._run(tantivy.Query.boolean_query(should), limit, kind)
        title_all = tantivy.Query.boolean_query(
            [
                (tantivy.Occur.Must, tantivy.Query.term_query(self._schema, "title", term))
                for term in terms
            ]
        )
        should.append(
            (tantivy.Occur.Should, tantivy.Query.boost_query(title_all, TITLE_MATCH_BOOST))
        )
        return self._run(tantivy.Query.boolean_query(should), limit, kind)

    def _run(self, query_obj: tantivy.Query, limit: int, kind: str | None) -> Ranked:
        if kind is not None:
            kind_q = tantivy.Query.term_query(self._schema, "kind", kind)
            query_obj = tantivy.Query.boolean_query(
                [(tantivy.Occur.Must, query_obj), (tantivy.Occur.Must, kind_q)]
            )
        searcher = self._searcher
        result = searcher.search(query_obj, limit, count=False)
        addresses = [address for _, address in result.hits]
        pids = searcher.fast_field_values("pid", addresses)
        keys = searcher.fast_field_values("doc_key", addresses)
        return [
            (int(pid or 0), float(score), int(key or 0))
            for (score, _), pid, key in zip(result.hits, pids, keys, strict=True)
        ]


class IndexWriter:
    """Changes to the index, made visible all at once by ``commit``."""

    def __init__(self, index: PassageIndex) -> None:
        self._schema = index._schema
        self._writer = index._index.writer(heap_size=WRITER_HEAP_BYTES, num_threads=1)
        self._finished = False

    def delete_document(self, document_id: str) -> None:
        self._writer.delete_documents_by_term("doc_id", document_id)

    def delete_all(self) -> None:
        self._writer.delete_all_documents()

    def add(self, entries: Iterable[IndexEntry]) -> None:
        for entry in entries:
            doc = tantivy.Document()
            doc.add_unsigned("pid", entry.passage_id)
            doc.add_unsigned("doc_key", document_key(entry.document_id))
            doc.add_text("doc_id", entry.document_id)
            doc.add_text("kind", entry.kind)
            doc.add_text("title", entry.title)
            doc.add_text("heading", entry.heading)
            doc.add_text("text", entry.text)
            self._writer.add_document(doc)

    def commit(self) -> int:
        opstamp = int(self._writer.commit())
        self._finished = True
        self._writer.wait_merging_threads()
        return opstamp

    def rollback(self) -> None:
        """Drop uncommitted changes; nothing to do once committed (the store
        detects an index ahead of SQLite by its opstamp)."""
        if self._finished:
            return
        self._finished = True
        self._writer.rollback()
        self._writer.wait_merging_threads()
