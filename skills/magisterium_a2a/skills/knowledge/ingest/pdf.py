"""PDF (with pypdf): the text layer of each page becomes a section headed
``Page N``; the title is the PDF's own metadata title, or the file name.
A PDF without a text layer (a scan) is an error: there is nothing to index."""

from __future__ import annotations

from pathlib import Path

from pypdf import PdfReader
from pypdf.errors import PdfReadError

from magisterium_a2a.skills.knowledge.ingest.fields import Defaults, IngestError, build_document
from magisterium_a2a.skills.knowledge.model import Document, Section


def read(path: Path, defaults: Defaults) -> list[Document]:
    try:
        reader = PdfReader(path)
        if reader.is_encrypted:
            raise IngestError(path, "the PDF is encrypted")
        pages = [page.extract_text() or "" for page in reader.pages]
        info = reader.metadata
    except PdfReadError as exc:
        raise IngestError(path, f"not a readable PDF ({exc})") from None
    sections = [
        Section(heading=f"Page {n}", text=text.strip())
        for n, text in enumerate(pages, start=1)
        if text.strip()
    ]
    if not sections:
        raise IngestError(path, "the PDF has no text layer (a scan?); nothing to index")
    meta: dict[str, object] = {}
    if info is not None:
        if info.title and info.title.strip():
            meta["title"] = info.title
        if info.author and info.author.strip():
            meta["author"] = info.author
    return [build_document(path, meta, sections, title=None, defaults=defaults)]
