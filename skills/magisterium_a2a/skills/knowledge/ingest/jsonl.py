"""JSON Lines of documents in our format, and JSON files.

One document per line (``.jsonl``), or in a ``.json`` file one document, a
list of them, or a Summa question in the ``summa.json`` layout. A document::

    {"id": "rerum-novarum",          # optional: defaults to the title as a slug
     "title": "Rerum Novarum",        # required
     "author": "Leo XIII", "ref": "RN", "url": "https://...", "year": 1891,
     "kind": "encyclical",            # scripture|encyclical|council|catechism|
                                      # father|theology|other (default other)
     "genre": "Encyclical letter", "language": "en",
     "body": "Paragraphs separated by blank lines."}
     # or instead of body:
     "sections": [{"heading": "1.", "text": "...", "ref": "RN 1"}, ...]

Unknown fields are errors (a typo must not pass silently); an error names the
file and the line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from magisterium_a2a.skills.knowledge.ingest import summa
from magisterium_a2a.skills.knowledge.ingest.fields import Defaults, IngestError, build_document
from magisterium_a2a.skills.knowledge.model import Document, DocumentKind, Section, make_id


class JsonSection(BaseModel):
    model_config = ConfigDict(extra="forbid")

    heading: str | None = None
    text: str
    ref: str | None = None


class JsonDocument(BaseModel):
    """The documented JSON Lines record."""

    model_config = ConfigDict(extra="forbid")

    id: str | int | None = None
    title: str
    author: str | None = None
    ref: str | None = None
    url: str | None = None
    year: int | None = None
    kind: DocumentKind | None = None
    genre: str | None = None
    language: str | None = None
    body: str | None = None
    sections: list[JsonSection] | None = None

    @model_validator(mode="after")
    def _has_text(self) -> JsonDocument:
        if (self.body is None) == (self.sections is None):
            raise ValueError("give exactly one of 'body' and 'sections'")
        return self


def _document(path: Path, where: str, record: Any, defaults: Defaults) -> Document:
    try:
        parsed = JsonDocument.model_validate(record)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        field = ".".join(str(p) for p in error["loc"]) or "record"
        raise IngestError(path, f"{where}: {field}: {error['msg']}") from None
    if parsed.sections is not None:
        sections = [Section(heading=s.heading, text=s.text, ref=s.ref) for s in parsed.sections]
    else:
        sections = [Section(heading=None, text=parsed.body or "")]
    meta = parsed.model_dump(exclude={"body", "sections"}, exclude_none=True, mode="json")
    try:
        return build_document(
            path, meta, sections, title=None, defaults=defaults, default_id=make_id(parsed.title)
        )
    except IngestError as exc:
        raise IngestError(path, f"{where}: {exc.reason}") from None


def read_jsonl(path: Path, defaults: Defaults) -> list[Document]:
    documents: list[Document] = []
    with path.open("rb") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                raise IngestError(path, f"line {number}: invalid JSON ({exc})") from None
            documents.append(_document(path, f"line {number}", record, defaults))
    if not documents:
        raise IngestError(path, "no documents in the file")
    return documents


def read_json(path: Path, defaults: Defaults) -> list[Document]:
    try:
        data = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as exc:
        raise IngestError(path, f"invalid JSON ({exc})") from None
    if summa.looks_like_summa(data):
        return summa.read(path, data, defaults)
    if isinstance(data, list):
        if not data:
            raise IngestError(path, "no documents in the file")
        return [_document(path, f"item {i}", item, defaults) for i, item in enumerate(data)]
    return [_document(path, "document", data, defaults)]
