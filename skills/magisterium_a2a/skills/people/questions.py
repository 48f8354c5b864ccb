"""The questions people ask about popes without naming one: "the current pope",
"the first pope", "the 264th pope", "the pope before Francis", "who succeeded
Leo XIII", "the pope who opened the Second Vatican Council", "the pope who wrote
Rerum Novarum".

Every answer is derived from authored facts, never guessed: the order of the
list of the Roman pontiffs (``popes.yaml``: the current pope is the one whose
pontificate has no end; a predecessor is the number before), the councils
(``councils.yaml``), and the papal documents of the built-in catalogue
(``data/catalogue``, each with its author). A question that none of these
settles is left to the name search.

The matching takes English text in the canonical forms (a language layer in
front of the skills maps other languages to them).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict

from magisterium_a2a.skills.knowledge.catalogue import load_catalogue
from magisterium_a2a.skills.people.popes import Pope, PopeIndex
from magisterium_a2a.skills.people.requests import ordinal_suffix
from magisterium_a2a.skills.text import fold

Role = Literal["convoked", "opened", "closed"]


class Council(BaseModel):
    """One ecumenical council as ``councils.yaml`` states it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    name: str
    aliases: list[str]
    years: str
    convoked_by: str | None
    convoked_by_other: str | None
    opened_by: str | None
    closed_by: str | None
    popes: list[str]
    note: str | None


@dataclass(frozen=True, slots=True)
class Resolved:
    """The popes a question is about, in order, and one sentence saying why."""

    popes: tuple[Pope, ...]
    because: str


@cache
def builtin_councils() -> tuple[Council, ...]:
    text = files("magisterium_a2a.skills").joinpath("data/people/councils.yaml").read_text("utf-8")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return tuple(Council.model_validate(entry) for entry in yaml.load(text, Loader=loader))


def plain(text: str) -> str:
    """Lower case, no accents, possessives and apostrophes dropped, other punctuation
    as spaces: "John Paul II's predecessor" -> "john paul ii predecessor"."""
    text = re.sub(r"'s\b", "", fold(text).replace("\u2019", "'")).replace("'", "")
    return " ".join(re.sub(r"[^\w\s]", " ", text).split())


_ROLES: dict[str, Role] = {
    **dict.fromkeys(
        ("convoked", "convoke", "convened", "convene", "called", "summoned"), "convoked"
    ),
    **dict.fromkeys(("opened", "open", "began", "begin", "started", "inaugurated"), "opened"),
    **dict.fromkeys(("closed", "close", "concluded", "conclude", "ended", "finished"), "closed"),
}
_ROLE_WORDS = {"convoked": "convoked", "opened": "opened", "closed": "closed"}
_DOCUMENT_WORDS = frozenset(
    (
        "wrote",
        "write",
        "written",
        "writer",
        "author",
        "authored",
        "issued",
        "published",
        "promulgated",
        "signed",
        "encyclical",
        "exhortation",
        "bull",
        "constitution",
        "document",
    )
)
_FILLER = frozenset(
    (
        "who", "what", "which", "was", "is", "the", "a", "of", "pope", "popes", "pontiff",
        "roman", "catholic", "church", "ever", "holy", "father", "name", "tell", "me", "about",
        "were", "that", "in", "history",
    )
)  # fmt: skip
_NOW = frozenset(
    ("current", "present", "reigning", "now", "today", "todays", "latest", "newest", "new")
)
_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10,
}  # fmt: skip
_BEFORE = (
    re.compile(r"^(?:who (?:was|is|came) )?(?:the )?pope (?:before|preceding|prior to) (?P<n>.+)$"),
    re.compile(r"^who (?:came|was|reigned) (?:pope )?(?:right |just )?before (?P<n>.+)$"),
    re.compile(r"^who preceded (?:pope )?(?P<n>.+)$"),
    re.compile(r"^(?:who (?:was|is) )?(?:the )?predecessor (?:of|to) (?P<n>.+)$"),
    re.compile(r"^(?:who (?:was|is) )?(?P<n>.+) predecessor$"),
)
_AFTER = (
    re.compile(
        r"^(?:who (?:was|is|came) )?(?:the )?pope (?:after|following|succeeding) (?P<n>.+)$"
    ),
    re.compile(r"^who (?:came|was|reigned) (?:pope )?(?:right |just )?after (?P<n>.+)$"),
    re.compile(r"^who (?:succeeded|followed) (?:pope )?(?P<n>.+)$"),
    re.compile(r"^(?:who (?:was|is) )?(?:the )?successor (?:of|to) (?P<n>.+)$"),
    re.compile(r"^(?:who (?:was|is) )?(?P<n>.+) successor$"),
)
_NUMBERED = re.compile(
    r"^(?:the )?(?P<n>\d{1,3})(?:st|nd|rd|th)? pope$|^pope (?:number|no) (?P<m>\d{1,3})$"
)


def _names(texts: Iterable[str | None]) -> list[str]:
    return [plain(t) for t in texts if t and plain(t)]


def _contains(haystack: str, needle: str) -> bool:
    return re.search(rf"(?:^| ){re.escape(needle)}(?: |$)", haystack) is not None


class PopeQuestions:
    """Answers the descriptive questions above from the list, the councils and the
    catalogue's papal documents."""

    def __init__(self, index: PopeIndex, councils: tuple[Council, ...] | None = None) -> None:
        self.index = index
        self.by_number = {p.number: pope for pope in index.popes for p in pope.pontificates}
        self.councils = councils if councils is not None else builtin_councils()
        self._council_names = sorted(
            ((name, c) for c in self.councils for name in _names([c.name, *c.aliases])),
            key=lambda item: -len(item[0]),
        )
        by_name = {plain(p.name): p for p in index.popes}
        self._documents: list[tuple[str, str, Pope]] = []
        for document in load_catalogue():
            author = by_name.get(plain(document.author or ""))
            if author is None:
                continue
            title = document.title
            inner = re.findall(r"\(([^)]+)\)", title)
            outer = re.sub(r"\s*\([^)]*\)", "", title)
            label = f"{title} ({document.genre}, {document.year})"
            for name in _names([outer, *inner]):
                self._documents.append((name, label, author))
        self._documents.sort(key=lambda item: -len(item[0]))

    def resolve(self, query: str) -> Resolved | None:
        text = plain(query)
        if not text:
            return None
        return (
            self._now(text)
            or self._numbered(text)
            or self._succession(text)
            or self._council(text)
            or self._document(text)
        )

    def current(self) -> Pope:
        """The pope whose last pontificate has no end (the list's last)."""
        return self.by_number[max(self.by_number)]

    def _now(self, text: str) -> Resolved | None:
        words = set(text.split())
        asks_now = words & {"pope", "pontiff"} and words & _NOW
        if not (asks_now and words <= _FILLER | _NOW | {"right"}) and text not in (
            "who is pope",
            "who is the pope",
        ):
            return None
        pope = self.current()
        last = pope.pontificates[-1]
        if last.ended is None and last.end is None:
            return Resolved((pope,), f"The reigning pope is {pope.name}.")
        return Resolved(
            (pope,),
            f"The list ends with {pope.name}, whose pontificate ended "
            f"{last.ended or 'on a date not recorded'}; no successor is recorded.",
        )

    def _numbered(self, text: str) -> Resolved | None:
        number: int | None = None
        found = _NUMBERED.match(text)
        if found:
            number = int(found["n"] or found["m"])
        else:
            words = text.split()
            if "pope" in words and set(words) <= _FILLER | set(_ORDINALS):
                ordinals = [w for w in words if w in _ORDINALS]
                if len(ordinals) == 1 and words.index(ordinals[0]) < words.index("pope"):
                    number = _ORDINALS[ordinals[0]]
        pope = self.by_number.get(number) if number else None
        if pope is None:
            return None
        return Resolved((pope,), f"The {ordinal_suffix(number or 0)} pope is {pope.name}.")

    def _succession(self, text: str) -> Resolved | None:
        for patterns, step in ((_BEFORE, -1), (_AFTER, 1)):
            for pattern in patterns:
                found = pattern.match(text)
                if found is None:
                    continue
                answer = self.index.search(found["n"])
                if not answer.popes:
                    return None
                if not answer.single:
                    word = "before" if step < 0 else "after"
                    return Resolved(
                        tuple(p for p, _ in answer.popes),
                        f"{found['n'].title()!r} fits several popes: ask for the pope {word} "
                        "one of these by its full name or id.",
                    )
                pope = answer.popes[0][0]
                numbers = [p.number for p in pope.pontificates]
                number = min(numbers) - 1 if step < 0 else max(numbers) + 1
                other = self.by_number.get(number)
                if other is None:
                    said = "the first pope: none came before him" if step < 0 else "the last pope"
                    return Resolved((pope,), f"{pope.name} is {said} in the list.")
                relation = "predecessor" if step < 0 else "successor"
                return Resolved((other,), f"The {relation} of {pope.name} was {other.name}.")
        return None

    def _council(self, text: str) -> Resolved | None:
        council = next((c for name, c in self._council_names if _contains(text, name)), None)
        if council is None:
            return None
        words = set(text.split())
        roles = {_ROLES[w] for w in words if w in _ROLES}
        if not roles and not words & {"council", "during", "pope", "popes"}:
            return None
        title = f"The {council.name} ({council.years})"
        popes = tuple(p for i in council.popes if (p := self.index.get(i)) is not None)
        if len(roles) == 1:
            (role,) = roles
            ident = {"convoked": council.convoked_by, "opened": council.opened_by}.get(
                role, council.closed_by
            )
            pope = self.index.get(ident) if ident else None
            if pope is not None:
                return Resolved((pope,), f"{title} was {_ROLE_WORDS[role]} by {pope.name}.")
            if role == "convoked" and council.convoked_by_other:
                names = " and ".join(p.name for p in popes)
                return Resolved(
                    popes,
                    f"{title} was convoked by {council.convoked_by_other}, not by a pope; "
                    f"the pope at the time was {names}.",
                )
        names = ", ".join(p.name for p in popes[:-1])
        names = f"{names} and {popes[-1].name}" if names else popes[-1].name
        sentence = f"{title} sat under {names}."
        return Resolved(popes, f"{sentence} {council.note}" if council.note else sentence)

    def _document(self, text: str) -> Resolved | None:
        words = set(text.split())
        for name, label, author in self._documents:
            if not _contains(text, name):
                continue
            rest = set(text.replace(name, " ").split())
            if words & _DOCUMENT_WORDS or rest <= _FILLER:
                return Resolved((author,), f"{label} is by {author.name}.")
        return None
