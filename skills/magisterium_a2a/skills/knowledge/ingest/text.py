"""Plain text: the first line is the title when it looks like one; blank lines
separate paragraphs; the whole file is one section."""

from __future__ import annotations

from pathlib import Path

from magisterium_a2a.skills.knowledge.ingest.fields import Defaults, IngestError, build_document
from magisterium_a2a.skills.knowledge.model import Document, Section

MAX_TITLE_CHARS = 200


def read(path: Path, defaults: Defaults) -> list[Document]:
    text = path.read_text(encoding="utf-8").replace("\r\n", "\n").strip()
    if not text:
        raise IngestError(path, "the file is empty")
    first, _, rest = text.partition("\n")
    title: str | None = None
    first = first.strip()
    if rest.strip() and len(first) <= MAX_TITLE_CHARS and not first.endswith((".", ",", ";")):
        title, text = first, rest.strip()
    return [
        build_document(path, {}, [Section(heading=None, text=text)], title=title, defaults=defaults)
    ]
