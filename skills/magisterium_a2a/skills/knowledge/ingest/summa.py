"""The ``summa.json`` layout of the Summa Theologiae: one JSON file per
question (``{"id", "part", "title", "outer", "article": {...}}``), or a
treatise file holding several (``{"questions": {...}}``).

Each question becomes one document, id ``summa-theologiae-<part>-q<n>``, ref
``Summa Theologiae I q.2``; each article becomes a section whose ref is
``Summa Theologiae I q.2 a.3``, so a citation can point at the article.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from magisterium_a2a.skills.knowledge.ingest.fields import Defaults, IngestError, build_document
from magisterium_a2a.skills.knowledge.model import Document, DocumentKind, Section

AUTHOR = "Thomas Aquinas"
TITLE = "Summa Theologiae"
# Part code -> (how the part is cited, id fragment, year the part was finished).
PARTS: dict[str, tuple[str, str, int]] = {
    "FP": ("I", "i", 1268),
    "FS": ("I-II", "i-ii", 1271),
    "SS": ("II-II", "ii-ii", 1272),
    "TP": ("III", "iii", 1273),
    "XP": ("Suppl.", "suppl", 1273),
}
_ARTICLE_ORDER = (("objections", None), ("counter", None), ("body", None), ("replies", None))


def looks_like_summa(data: Any) -> bool:
    if not isinstance(data, dict):
        return False
    if "questions" in data and isinstance(data["questions"], dict):
        return all(looks_like_summa(q) for q in data["questions"].values())
    return "part" in data and "outer" in data and "article" in data


def read(path: Path, data: dict[str, Any], defaults: Defaults) -> list[Document]:
    if "questions" in data:
        return [_question(path, q, defaults) for _, q in sorted(_numbered(data["questions"]))]
    return [_question(path, data, defaults)]


def _numbered(items: dict[str, Any]) -> list[tuple[int, Any]]:
    out = []
    for key, value in items.items():
        try:
            out.append((int(key), value))
        except ValueError:
            continue
    return out


def _lines(value: Any) -> list[str]:
    if isinstance(value, list):
        return [" ".join(str(v).split()) for v in value if str(v).strip()]
    if isinstance(value, str) and value.strip():
        return [" ".join(value.split())]
    return []


def _question(path: Path, data: dict[str, Any], defaults: Defaults) -> Document:
    try:
        number = int(data["id"])
        cited, slug, year = PARTS[str(data["part"])]
        title = " ".join(str(data["title"]).split())
    except (KeyError, TypeError, ValueError):
        raise IngestError(
            path, "a Summa question needs an integer id, a known part and a title"
        ) from None
    ref = f"{TITLE} {cited} q.{number}"
    sections: list[Section] = []
    outer = data.get("outer") or {}
    intro = _lines(outer.get("text"))
    if intro:
        sections.append(Section(heading=None, text="\n\n".join(intro), ref=ref))
    for article_no, article in sorted(_numbered(data.get("article") or {})):
        heading_lines = _lines(article.get("title"))
        heading = f"Article {article_no}. {heading_lines[0]}" if heading_lines else None
        paragraphs: list[str] = []
        for key, _ in _ARTICLE_ORDER:
            value = article.get(key)
            if isinstance(value, dict):
                for _, item in sorted(_numbered(value)):
                    paragraphs.extend(_lines(item.get("text") if isinstance(item, dict) else item))
            else:
                paragraphs.extend(_lines(value))
        if paragraphs:
            sections.append(
                Section(heading=heading, text="\n\n".join(paragraphs), ref=f"{ref} a.{article_no}")
            )
    meta = {
        "id": f"summa-theologiae-{slug}-q{number}",
        "title": f"{TITLE} {cited}, q. {number}: {title}",
        "author": AUTHOR,
        "ref": ref,
        "year": year,
        "kind": DocumentKind.THEOLOGY.value,
    }
    return build_document(path, meta, sections, title=None, defaults=defaults)
