"""Reading source files into documents, one module per format.

``read_file`` turns one file into its documents (most formats give one; JSON
Lines and JSON collections give several) or raises ``IngestError`` naming the
file and what is wrong with it. ``discover`` expands the paths given on the
command line into the supported files under them, in a stable order.
Nothing here writes: ``skills.knowledge.ingestion`` applies the result.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from fnmatch import fnmatch
from pathlib import Path

from magisterium_a2a.skills.knowledge.ingest.fields import Defaults, IngestError
from magisterium_a2a.skills.knowledge.model import Document

__all__ = ["SUPPORTED_SUFFIXES", "Defaults", "IngestError", "discover", "read_file"]

Reader = Callable[[Path, Defaults], list[Document]]


def _readers() -> dict[str, Reader]:
    # Imported here so a server, which never ingests, never loads the parsers.
    from magisterium_a2a.skills.knowledge.ingest import html, jsonl, markdown, pdf, text

    return {
        ".md": markdown.read,
        ".markdown": markdown.read,
        ".txt": text.read,
        ".text": text.read,
        ".html": html.read,
        ".htm": html.read,
        ".xhtml": html.read,
        ".jsonl": jsonl.read_jsonl,
        ".json": jsonl.read_json,
        ".pdf": pdf.read,
    }


SUPPORTED_SUFFIXES: tuple[str, ...] = (
    ".md",
    ".markdown",
    ".txt",
    ".text",
    ".html",
    ".htm",
    ".xhtml",
    ".jsonl",
    ".json",
    ".pdf",
)


def discover(paths: Iterable[Path], include: str | None = None) -> tuple[list[Path], list[Path]]:
    """(supported files, skipped files) under the given files and directories.

    Hidden files and directories are ignored, and with ``include`` (a glob such
    as ``*.html``) files under a directory whose name does not match; a path
    that does not exist is an ``IngestError``.
    """
    found: list[Path] = []
    skipped: list[Path] = []
    for path in paths:
        if not path.exists():
            raise IngestError(path, "no such file or directory")
        candidates = (
            sorted(p for p in path.rglob("*") if p.is_file() and not _hidden(p, path))
            if path.is_dir()
            else [path]
        )
        if path.is_dir() and include:
            candidates = [c for c in candidates if fnmatch(c.name, include)]
        for candidate in candidates:
            target = found if candidate.suffix.lower() in SUPPORTED_SUFFIXES else skipped
            target.append(candidate)
    unique = list(dict.fromkeys(p.resolve() for p in found))
    return unique, skipped


def _hidden(path: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(root).parts)


def read_file(path: Path, defaults: Defaults | None = None) -> list[Document]:
    reader = _readers().get(path.suffix.lower())
    if reader is None:
        raise IngestError(path, f"unsupported file type {path.suffix or '(none)'}")
    try:
        return reader(path, defaults or Defaults())
    except IngestError:
        raise
    except UnicodeDecodeError:
        raise IngestError(path, "not valid UTF-8 text") from None
    except OSError as exc:
        raise IngestError(path, f"cannot read it ({exc.strerror or exc})") from None
