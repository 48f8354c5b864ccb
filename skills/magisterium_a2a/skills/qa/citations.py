"""Checking a draft against its sources: the footnotes a client can trust.

Whatever wrote the draft, the answer keeps only footnotes that point at a
numbered source, renumbers them ``[1]``, ``[2]``, ... in order of first use,
and carries exactly the cited sources as citations, ``document_index`` being
the footnote number minus one. A bibliography the writer appended is dropped:
the citations part is the only list of sources, and it is built from the
retrieved passages alone, so a reference the model invented cannot reach the
client.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from magisterium_a2a.skills.qa.provider import Draft, Source

MAX_RELATED = 5
MAX_RELATED_CHARS = 200

# [1], [^1], [1, 2], [1; 3], [2-4]: one or more numbers in brackets.
_GROUP = re.compile(r"\[\^?(\d+(?:\s*[,;\u2013-]\s*\^?\d+)*)\]")
_MARKER = re.compile(r"[ \t]*\[(\d+)\]")
_BIBLIOGRAPHY = re.compile(
    r"^[ \t]*(?:#+[ \t]*)?[*_]*(?:sources|references|citations|footnotes|bibliography|notes)"
    r"[*_]*[ \t]*:?[*_]*[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)
_NOTE_LINE = re.compile(r"^[ \t]*[-*]?[ \t]*\[\^?\d+\][:.)]?[ \t]+\S")


@dataclass(frozen=True, slots=True)
class Answer:
    """The checked answer: what the artifact carries."""

    text: str
    citations: list[dict[str, Any]] = field(default_factory=list)
    related_questions: list[str] = field(default_factory=list)


def _expand(group: re.Match[str]) -> str:
    numbers: list[int] = []
    for item in re.split(r"\s*[,;]\s*", group.group(1)):
        bounds = [int(n) for n in re.split(r"\s*[\u2013-]\s*\^?", item.lstrip("^"))]
        if len(bounds) == 2 and 0 < bounds[1] - bounds[0] < 10:
            numbers.extend(range(bounds[0], bounds[1] + 1))
        else:
            numbers.extend(bounds)
    return "".join(f"[{n}]" for n in numbers)


def _last(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    found = list(pattern.finditer(text))
    return found[-1] if found else None


def _without_bibliography(text: str) -> str:
    heading = _last(_BIBLIOGRAPHY, text)
    if heading is not None and heading.start() > 0:
        text = text[: heading.start()]
    lines = text.rstrip().split("\n")
    while len(lines) > 1 and _NOTE_LINE.match(lines[-1]):
        lines.pop()
    return "\n".join(lines)


def _tidy(text: str) -> str:
    text = re.sub(r"[ \t]+([.,;:!?])", r"\1", text)
    text = re.sub(r"[ \t]{2,}", " ", text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return "\n".join(line.rstrip() for line in text.strip().split("\n"))


def check(draft: Draft, sources: Sequence[Source], question: str = "") -> Answer:
    """The draft with its footnotes checked and renumbered, and its citations."""
    by_number = {source.number: source for source in sources}
    text = _GROUP.sub(_expand, _without_bibliography(draft.text))
    order: dict[int, int] = {}

    def renumber(marker: re.Match[str]) -> str:
        number = int(marker.group(1))
        if number not in by_number:
            return ""
        new = order.setdefault(number, len(order) + 1)
        return f"[{new}]" if marker.group(0).startswith("[") else f" [{new}]"

    text = _MARKER.sub(renumber, text)
    text = re.sub(r"(\[\d+\])(?:\s*\1)+", r"\1", text)
    citations = []
    for number, new in sorted(order.items(), key=lambda item: item[1]):
        source = by_number[number]
        citation = source.hit.citation(new - 1)
        citation["cited_text"] = source.quote
        citations.append(citation)
    return Answer(_tidy(text), citations, related(draft.related_questions, question))


def related(candidates: Sequence[str], question: str = "") -> list[str]:
    """Suggested questions, cleaned: no footnotes, no repeats, not the question itself."""
    seen = {" ".join(question.lower().split())}
    kept: list[str] = []
    for candidate in candidates:
        cleaned = " ".join(_MARKER.sub("", _GROUP.sub("", candidate)).split())
        key = cleaned.lower()
        if not cleaned or len(cleaned) > MAX_RELATED_CHARS or key in seen:
            continue
        seen.add(key)
        kept.append(cleaned)
        if len(kept) == MAX_RELATED:
            break
    return kept
