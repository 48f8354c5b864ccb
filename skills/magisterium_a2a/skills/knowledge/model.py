"""The document model: what the knowledge base stores, cites and returns.

A ``Document`` is one citable work (an encyclical, a question of the Summa, a
letter of Cyprian) with its metadata and its text in ``sections``. Retrieval
works on ``Passage`` objects, short runs of one section's text (see
``skills.knowledge.passages``); a search result is a document, a citation
points at a passage.
"""

from __future__ import annotations

import hashlib
import re
from enum import StrEnum
from functools import cached_property

import orjson
from pydantic import BaseModel, ConfigDict, Field, field_validator
from slugify import slugify

DOCUMENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._~-]{0,199}$")


class DocumentKind(StrEnum):
    """The broad class of a document; ``document_search`` can filter on it."""

    SCRIPTURE = "scripture"
    ENCYCLICAL = "encyclical"
    COUNCIL = "council"
    CATECHISM = "catechism"
    FATHER = "father"
    THEOLOGY = "theology"
    OTHER = "other"


KINDS: tuple[str, ...] = tuple(kind.value for kind in DocumentKind)


class Origin(StrEnum):
    """Where a stored document came from: the built-in catalogue or an ingest."""

    CATALOGUE = "catalogue"
    INGEST = "ingest"


class Section(BaseModel):
    """A headed part of a document; ``ref`` cites it more precisely than the document."""

    model_config = ConfigDict(frozen=True)

    heading: str | None = None
    text: str
    ref: str | None = None


class DocumentInfo(BaseModel):
    """A document's metadata, without its text: what search results and citations carry."""

    model_config = ConfigDict(frozen=True)

    id: str
    title: str
    author: str | None = None
    ref: str | None = None
    url: str | None = None
    year: int | None = None
    kind: DocumentKind = DocumentKind.OTHER
    genre: str | None = None
    language: str = "en"
    full_text: bool = True
    """False for a catalogue entry: its text is an abstract, the full text is at ``url``."""


class Document(DocumentInfo):
    """A whole document: metadata and sections, plus where it was read from."""

    sections: list[Section] = Field(default_factory=list)
    source: str | None = None
    origin: Origin = Origin.INGEST

    @field_validator("id")
    @classmethod
    def _valid_id(cls, value: str) -> str:
        if not DOCUMENT_ID.match(value):
            raise ValueError(
                f"invalid document id {value!r}: use letters, digits, '.', '_', '~' or '-' "
                "(at most 200 characters, starting with a letter or digit)"
            )
        return value

    @field_validator("title")
    @classmethod
    def _title_present(cls, value: str) -> str:
        value = " ".join(value.split())
        if not value:
            raise ValueError("a document needs a title")
        return value

    @property
    def info(self) -> DocumentInfo:
        return DocumentInfo.model_validate(self.model_dump(include=set(DocumentInfo.model_fields)))

    @cached_property
    def body(self) -> str:
        return render_body(self.sections, self.full_text, self.url)

    def body_with_spans(self) -> tuple[str, list[tuple[int, int]]]:
        return render_with_spans(self.sections, self.full_text, self.url)

    def content_hash(self) -> str:
        """Changes exactly when anything stored about the document changes."""
        payload = self.model_dump(mode="json", exclude={"source"})
        return hashlib.sha256(orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)).hexdigest()


def render_body(sections: list[Section], full_text: bool, url: str | None) -> str:
    """The plain-text body ``document_fetch`` returns: headings on their own lines."""
    return render_with_spans(sections, full_text, url)[0]


def render_with_spans(
    sections: list[Section], full_text: bool, url: str | None
) -> tuple[str, list[tuple[int, int]]]:
    """The body, and where each section's text lies in it (start, end), so a
    store can keep the text once and still give the sections back."""
    blocks: list[str] = []
    spans: list[tuple[int, int]] = []
    length = 0

    def add(block: str) -> int:
        nonlocal length
        if blocks:
            length += 2
        start = length
        blocks.append(block)
        length += len(block)
        return start

    for section in sections:
        if section.heading:
            add(section.heading)
        if section.text:
            start = add(section.text)
            spans.append((start, start + len(section.text)))
        else:
            spans.append((length, length))
    if not full_text:
        add(
            "This is a catalogue entry: the summary above was written by the maintainers of "
            "this server, not taken from the document."
        )
        if url:
            add(f"Full text: {url}")
    return "\n\n".join(blocks), spans


def make_id(text: str) -> str:
    """A URL-safe id from a title or a file name (lower case, hyphens)."""
    slug: str = slugify(text, max_length=120, word_boundary=True, save_order=True)
    return slug or "document"
