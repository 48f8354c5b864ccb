"""Markdown: YAML front matter gives the metadata, headings become sections.

Parsed with markdown-it-py, so emphasis, links and code become plain text.
A list made only of in-page links (a table of contents) is navigation, not
content, and is dropped, as is a section left with nothing else.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import frontmatter
import yaml
from frontmatter.default_handlers import YAMLHandler
from markdown_it import MarkdownIt
from markdown_it.token import Token

from magisterium_a2a.skills.imports import load_yaml
from magisterium_a2a.skills.knowledge.ingest.fields import Defaults, IngestError, build_document
from magisterium_a2a.skills.knowledge.model import Document, Section

_PARSER = MarkdownIt("commonmark").enable("table")


class _FrontMatter(YAMLHandler):
    """Front matter without YAML aliases, as every imported file (``imports``)."""

    def load(self, fm: str, **kwargs: object) -> Any:
        return load_yaml(fm)


def read(path: Path, defaults: Defaults) -> list[Document]:
    raw = path.read_text(encoding="utf-8")
    try:
        post = frontmatter.loads(raw, handler=_FrontMatter())
    except yaml.YAMLError as exc:
        raise IngestError(path, f"invalid YAML front matter ({exc})") from None
    meta: dict[str, Any] = dict(post.metadata)
    h1, sections = parse(post.content)
    if not sections:
        raise IngestError(path, "no text in the file")
    return [build_document(path, meta, sections, title=h1, defaults=defaults)]


def _inline_text(token: Token) -> str:
    out: list[str] = []
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            out.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif child.type == "image":
            out.append(child.content)
    return " ".join("".join(out).split())


def _link_only(tokens: list[Token], start: int, end: int) -> bool:
    """True when the list between start and end holds only in-page links."""
    saw_link = False
    for token in tokens[start:end]:
        if token.type != "inline":
            continue
        children = [c for c in token.children or [] if c.type != "softbreak"]
        stripped = [c for c in children if not (c.type == "text" and not c.content.strip())]
        if not stripped or stripped[0].type != "link_open":
            return False
        href = str(stripped[0].attrs.get("href", ""))
        if not href.startswith("#") or stripped[-1].type != "link_close":
            return False
        saw_link = True
    return saw_link


def parse(markdown: str) -> tuple[str | None, list[Section]]:
    """(the first level-1 heading, the sections) of a Markdown text."""
    tokens = _PARSER.parse(markdown)
    sections: list[Section] = []
    heading: str | None = None
    paragraphs: list[str] = []
    first_h1: str | None = None

    def flush() -> None:
        text = "\n\n".join(paragraphs)
        if text:
            sections.append(Section(heading=heading, text=text))
        paragraphs.clear()

    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.type == "heading_open":
            flush()
            heading = _inline_text(tokens[i + 1]) or None
            if token.tag == "h1" and first_h1 is None:
                first_h1 = heading
            i += 3
            continue
        if token.type in ("bullet_list_open", "ordered_list_open"):
            end = _closing(tokens, i)
            if _link_only(tokens, i, end):
                i = end + 1
                continue
        if token.type == "inline":
            text = _inline_text(token)
            if text:
                paragraphs.append(text)
        elif token.type in ("fence", "code_block"):
            text = token.content.strip()
            if text:
                paragraphs.append(text)
        i += 1
    flush()
    return first_h1, sections


def _closing(tokens: list[Token], start: int) -> int:
    """The index of the token closing the block opened at ``start``."""
    depth = 0
    for j in range(start, len(tokens)):
        depth += tokens[j].nesting
        if depth == 0:
            return j
    return len(tokens) - 1
