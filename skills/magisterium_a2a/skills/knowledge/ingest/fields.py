"""Metadata common to every format: front matter and JSON fields mapped onto
the document model, with the operator's defaults for what a file leaves out."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from magisterium_a2a.skills.knowledge.model import KINDS, Document, DocumentKind, Section, make_id


class IngestError(Exception):
    """A file that cannot be ingested; ``str()`` names the file and the reason."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Defaults:
    """Values for fields a file does not set (``ingest --kind/--author/--language``)."""

    kind: DocumentKind | None = None
    author: str | None = None
    language: str | None = None


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str | int | float):
        text = " ".join(str(value).split())
        return text or None
    return None


def _author(meta: dict[str, Any]) -> str | None:
    value = meta.get("author", meta.get("authors"))
    if isinstance(value, list):
        names = [_text(v.get("name")) if isinstance(v, dict) else _text(v) for v in value]
        joined = "; ".join(n for n in names if n)
        return joined or None
    if isinstance(value, dict):
        return _text(value.get("name"))
    return _text(value)


_YEAR = re.compile(r"^(-?\d{1,4})(?:-\d{1,2}(?:-\d{1,2})?)?$")


def _year(value: Any, path: Path) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise IngestError(path, f"year {value!r} is not a year")
    if isinstance(value, int):
        return value
    if isinstance(value, dt.date):
        return value.year
    match = _YEAR.match(str(value).strip())
    if match is None:
        raise IngestError(path, f"year {value!r} is not a year")
    return int(match.group(1))


def _kind(meta: dict[str, Any], defaults: Defaults, path: Path) -> DocumentKind:
    value = meta.get("kind")
    if value is not None:
        if value not in KINDS:
            raise IngestError(path, f"kind {value!r} is not one of {', '.join(KINDS)}")
        return DocumentKind(value)
    tags = meta.get("tags")
    if isinstance(tags, list):
        for tag in tags:
            if isinstance(tag, str) and tag.lower() in KINDS:
                return DocumentKind(tag.lower())
    return defaults.kind or DocumentKind.OTHER


def build_document(
    path: Path,
    meta: dict[str, Any],
    sections: list[Section],
    *,
    title: str | None,
    defaults: Defaults,
    default_id: str | None = None,
) -> Document:
    """A document from a file's metadata and sections; IngestError on bad metadata."""
    raw_id = meta.get("id")
    doc_id = _text(raw_id) if raw_id is not None else None
    try:
        return Document(
            id=doc_id or default_id or make_id(path.stem),
            title=_text(meta.get("title")) or title or path.stem,
            author=_author(meta) or defaults.author,
            ref=_text(meta.get("ref")),
            url=_text(meta.get("url", meta.get("source_url"))),
            year=_year(meta.get("year", meta.get("date")), path),
            kind=_kind(meta, defaults, path),
            genre=_text(meta.get("genre", meta.get("type"))),
            language=_text(meta.get("language", meta.get("lang"))) or defaults.language or "en",
            sections=sections,
            source=str(path),
        )
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        field = ".".join(str(p) for p in error["loc"]) or "document"
        raise IngestError(path, f"{field}: {error['msg']}") from None
