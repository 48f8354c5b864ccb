"""The built-in catalogue of principal magisterial documents.

The entries live in ``skills/data/catalogue/*.yaml`` (package data), written
by the maintainers: the facts of each document (title, author, year, kind,
official URL) and a short abstract in our own words, never text of the
document itself. A catalogue entry is searchable and fetchable like any
document, with ``full_text`` false; an operator who ingests the full text
under the same id replaces it, and deleting that ingested document brings the
entry back.
"""

from __future__ import annotations

import functools
import hashlib
from importlib import resources
from importlib.resources.abc import Traversable

import yaml
from pydantic import BaseModel, ConfigDict, Field

from magisterium_a2a.skills.knowledge.model import Document, DocumentKind, Origin, Section

# Bump when the conversion of entries into documents changes.
CATALOGUE_FORMAT = "1"


class CatalogueEntry(BaseModel):
    """One entry of a catalogue file, as the maintainers write it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    title: str
    author: str
    year: int = Field(ge=1, le=2100)
    kind: DocumentKind
    genre: str
    url: str | None = None
    """The document's own page (on the Holy See's site where it has one); omitted
    rather than pointing at an index page that only lists the document."""
    abstract: str = Field(min_length=40)
    ref: str | None = None
    aliases: tuple[str, ...] = ()
    """Other names readers use for the document: its English title ("Faith and
    Reason"), its nickname ("the Syllabus"); ``document_fetch`` and search know them."""

    def document(self) -> Document:
        return Document(
            id=self.id,
            title=self.title,
            author=self.author,
            ref=self.ref or self.title,
            url=self.url,
            year=self.year,
            kind=self.kind,
            genre=self.genre,
            language="en",
            full_text=False,
            sections=[
                Section(heading=f"{self.genre}, {self.author}, {self.year}", text=self.abstract)
            ],
            origin=Origin.CATALOGUE,
        )


def _files() -> list[Traversable]:
    folder = resources.files("magisterium_a2a.skills.data").joinpath("catalogue")
    return sorted((f for f in folder.iterdir() if f.name.endswith(".yaml")), key=lambda f: f.name)


def catalogue_hash() -> str:
    """A hash of the catalogue files and their conversion: cheap, read at every start."""
    digest = hashlib.sha256(CATALOGUE_FORMAT.encode())
    for file in _files():
        digest.update(file.name.encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()


@functools.cache
def load_entries() -> tuple[CatalogueEntry, ...]:
    """Every entry as written; a malformed file stops start-up with its name."""
    entries: dict[str, CatalogueEntry] = {}
    for file in _files():
        try:
            raw = yaml.load(file.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
            found = [CatalogueEntry.model_validate(item) for item in raw or []]
        except (yaml.YAMLError, ValueError) as exc:
            raise ValueError(f"built-in catalogue file {file.name}: {exc}") from exc
        for entry in found:
            if entry.id in entries:
                raise ValueError(f"built-in catalogue file {file.name}: duplicate id {entry.id}")
            entries[entry.id] = entry
    return tuple(entries.values())


def load_catalogue() -> list[Document]:
    """Every entry as a document."""
    return [entry.document() for entry in load_entries()]


def aliases() -> dict[str, tuple[str, ...]]:
    """The other names of catalogue documents, by id (they stay valid when an
    operator ingests the full text under the same id)."""
    return {entry.id: entry.aliases for entry in load_entries() if entry.aliases}


@functools.cache
def names_in_languages() -> dict[str, tuple[str, ...]]:
    """The catalogue's documents as each language's Catholic press names them
    (``data/titles-i18n.yaml``: "La alegría del Evangelio", 「福音の喜び」), by id;
    entries naming no catalogue document are left out."""
    source = resources.files("magisterium_a2a.skills.data").joinpath("titles-i18n.yaml")
    data = yaml.load(source.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader) or {}
    known = {entry.id for entry in load_entries()}
    found: dict[str, tuple[str, ...]] = {}
    for document_id, by_language in data.items():
        if document_id not in known or not isinstance(by_language, dict):
            continue
        names = [str(n) for forms in by_language.values() for n in (forms or [])]
        found[str(document_id)] = tuple(dict.fromkeys(names))
    return found
