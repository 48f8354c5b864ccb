"""Splitting documents into passages, the unit of retrieval and citation.

A passage is a run of whole paragraphs of one section, about ``TARGET_WORDS``
long: short enough that a citation points at the words that matter and that
BM25 and embeddings see one topic, long enough to carry an argument. A
paragraph longer than ``MAX_WORDS`` is cut between sentences. Passages never
cross a section boundary, so each one has exactly one heading.

Sentence cutting is a small regular expression on purpose: it only decides
where an overlong paragraph is divided, so a missed abbreviation costs
nothing, and a linguistic sentence splitter would be a heavy dependency for
that.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from magisterium_a2a.skills.knowledge.model import Document

TARGET_WORDS = 160
MAX_WORDS = 320
_PARAGRAPHS = re.compile(r"\n\s*\n")
# A sentence ends at . ! ? ; or : (then closing quotes or brackets, straight or
# curly) before a space and an upper-case letter or digit.
_SENTENCE_END = re.compile(
    "(?:(?<=[.!?;:])|(?<=[.!?;:][\"'\u201d\u2019)\\]]))\\s+(?=[\"'\u201c\u2018(\\[]*[A-Z0-9])"
)


@dataclass(frozen=True, slots=True)
class PassageText:
    """A passage before it is stored: its place in the document and its text."""

    ordinal: int
    heading: str | None
    ref: str | None
    text: str


def split_document(document: Document) -> list[PassageText]:
    """The document's passages, in reading order, numbered from 0."""
    passages: list[PassageText] = []
    for section in document.sections:
        for text in _chunks(section.text):
            passages.append(PassageText(len(passages), section.heading, section.ref, text))
    if not passages:
        # A document with headings only still needs one searchable passage.
        heading = next((s.heading for s in document.sections if s.heading), None)
        passages.append(PassageText(0, heading, None, document.title))
    return passages


def _chunks(text: str) -> list[str]:
    pieces: list[str] = []
    for paragraph in _PARAGRAPHS.split(text):
        paragraph = " ".join(paragraph.split())
        if not paragraph:
            continue
        if len(paragraph.split()) <= MAX_WORDS:
            pieces.append(paragraph)
        else:
            pieces.extend(_split_long(paragraph))
    chunks: list[str] = []
    current: list[str] = []
    words = 0
    for piece in pieces:
        size = len(piece.split())
        if current and words + size > MAX_WORDS:
            chunks.append("\n\n".join(current))
            current, words = [], 0
        current.append(piece)
        words += size
        if words >= TARGET_WORDS:
            chunks.append("\n\n".join(current))
            current, words = [], 0
    if current:
        # A short tail joins the previous chunk when that stays within bounds.
        if chunks and words < TARGET_WORDS // 3 and len(chunks[-1].split()) + words <= MAX_WORDS:
            chunks[-1] = chunks[-1] + "\n\n" + "\n\n".join(current)
        else:
            chunks.append("\n\n".join(current))
    return chunks


def _split_long(paragraph: str) -> list[str]:
    """An overlong paragraph as runs of whole sentences of about TARGET_WORDS."""
    out: list[str] = []
    current: list[str] = []
    words = 0
    for sentence in _SENTENCE_END.split(paragraph):
        size = len(sentence.split())
        if current and words + size > TARGET_WORDS:
            out.append(" ".join(current))
            current, words = [], 0
        if size > MAX_WORDS:
            tokens = sentence.split()
            out.extend(" ".join(tokens[i : i + TARGET_WORDS]) for i in range(0, size, TARGET_WORDS))
            continue
        current.append(sentence)
        words += size
    if current:
        out.append(" ".join(current))
    return out


def embedding_text(title: str, heading: str | None, text: str) -> str:
    """What is embedded for a passage: its text in the context of title and heading
    (the lexical index gets the same three as fields)."""
    head = f"{title}. {heading}" if heading else title
    return f"{head}\n\n{text}"
