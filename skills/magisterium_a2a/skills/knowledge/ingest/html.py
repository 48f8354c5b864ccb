"""HTML: the main text without navigation, headers, footers or scripts, and
the page's real title.

trafilatura does the boilerplate removal and finds the title (it prefers the
page's main heading to a ``<title>`` shared by a whole site); its Markdown
output then goes through the Markdown reader, so headings become sections.
Footnote markers (a ``<sup>`` holding an in-page link) are removed first so
they do not glue digits onto words; the notes themselves are kept.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import lxml.html
import trafilatura
from lxml.etree import ParserError

from magisterium_a2a.skills.knowledge.ingest import markdown
from magisterium_a2a.skills.knowledge.ingest.fields import Defaults, IngestError, build_document
from magisterium_a2a.skills.knowledge.model import Document


def read(path: Path, defaults: Defaults) -> list[Document]:
    raw = path.read_bytes()
    if not raw.strip():
        raise IngestError(path, "the file is empty")
    try:
        tree = lxml.html.fromstring(raw)
    except (ParserError, ValueError) as exc:
        raise IngestError(path, f"not readable as HTML ({exc})") from None
    for marker in tree.xpath("//sup[.//a[starts-with(@href, '#')]]"):
        marker.drop_tree()
    headings = _headings(tree)
    text = trafilatura.extract(
        tree,
        output_format="markdown",
        favor_recall=True,
        include_tables=True,
        include_comments=False,
        include_images=False,
        include_links=False,
    )
    if not text or not text.strip():
        raise IngestError(path, "no main text found in the page")
    found = trafilatura.extract_metadata(tree)
    h1, sections = markdown.parse(text)
    if not sections:
        raise IngestError(path, "no main text found in the page")
    meta: dict[str, Any] = {}
    if found is not None:
        if found.author:
            meta["author"] = found.author
        if found.url:
            meta["url"] = found.url
    title = _clean_title(found.title if found is not None else None) or h1
    if title is None:
        heads = tree.xpath("//title")
        title = _clean_title(heads[0].text_content()) if heads else None
    subtitle = headings.get(title) if title else None
    if title and subtitle:
        title = f"{title}: {subtitle}"
    return [build_document(path, meta, sections, title=title, defaults=defaults)]


_DATE_NOTE = re.compile(r"[\s.,]*\ba\.?\s?d\.?\s*\d{1,4}\s*\.?$", re.IGNORECASE)
_SUBTITLE_MAX_WORDS = 30


def _headings(tree: lxml.html.HtmlElement) -> dict[str, str]:
    """Each top heading's subtitle: the short title-like line printed right
    under it (old editions print "Epistle LI." and then "To Antonianus About
    Cornelius and Novatian."). Read before trafilatura, which keeps only one."""
    found: dict[str, str] = {}
    for heading in tree.xpath("//h1|//h2"):
        title = _clean_title(heading.text_content())
        following = heading.getnext()
        while following is not None and not " ".join(following.text_content().split()):
            following = following.getnext()
        if title is None or following is None or following.tag not in _SUBTITLE_TAGS:
            continue
        subtitle = _clean_title(_DATE_NOTE.sub("", " ".join(following.text_content().split())))
        if subtitle and _title_like(subtitle) and subtitle not in title:
            found.setdefault(title, subtitle)
    return found


_SUBTITLE_TAGS = {"p", "h2", "h3", "h4", "h5", "h6"}


def _title_like(line: str) -> bool:
    """Short, and its longer words capitalised as in a title, unlike a sentence."""
    words = line.split()
    if len(words) > _SUBTITLE_MAX_WORDS:
        return False
    long_words = [w for w in words if len(w.strip(",.;:")) > 3]
    capitalised = [w for w in long_words if w[:1].isupper()]
    return bool(long_words) and len(capitalised) >= 0.6 * len(long_words)


def _clean_title(title: str | None) -> str | None:
    if not title:
        return None
    cleaned = " ".join(title.split()).rstrip(" .")
    return cleaned or None
