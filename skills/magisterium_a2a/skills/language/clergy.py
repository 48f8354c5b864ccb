"""Clergy named or asked for in any of our languages, as the English query
``person_lookup`` reads: "cardenal Cobo" is "Cardinal cobo", "Erzbischof von
Köln" "Archbishop of Cologne", "Secretario de Estado del Vaticano" "Secretary of
State", "菊地功枢機卿" the id ``tarcisio-isao-kikuchi`` (``clergy.yaml``).

The parts are read apart, in any order (CJK writes the see before the title): a
cardinal's name in another script or a nickname, an office, a title, a see; the
words of a question around them are dropped; what is left is passed on as typed
(a Latin-script name: "kardynał Dziwisz" is "Cardinal dziwisz"). Another
language's question words or article ("¿Quién es Pietro Parolin?", "le cardinal
Parolin") say the query is not English, the name left is looked up alone. A pope
named in another language ("papa Francisco", "教皇レオ14世") is asked for as
"Pope Francis" (the pope layer reads the name). A query with nothing foreign in
it gives None: the engine reads English as it always did.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from magisterium_a2a.skills.language import popes
from magisterium_a2a.skills.language.names import (
    KOREAN_PARTICLES,
    Stripper,
    unspaced,
    without_particles,
)
from magisterium_a2a.skills.language.phrases import take
from magisterium_a2a.skills.language.scripts import clean, key
from magisterium_a2a.skills.language.tables import authored

MAX_QUERY_CHARS = 300
POPE = "Pope"
Forms = tuple[tuple[str, tuple[str, bool]], ...]


def english_query(query: str) -> str | None:
    """The English query (or a person's id) for clergy asked for in another language."""
    if len(query) > MAX_QUERY_CHARS:
        return None
    cleaned = clean(query)
    folded = key(cleaned)
    article = _article(cleaned)
    if article is not None:
        folded = folded.split(" ", 1)[1] if " " in folded else ""
    person, folded = take(folded, _forms("names"))
    office, folded = take(folded, _forms("offices"))
    title, folded = take(folded, _forms("titles"))
    see, folded = take(folded, _forms("sees"))
    question, folded = take(folded, _forms("questions"))
    rest = unspaced(without_particles(_fillers()(folded)))
    if (person, office, see) == (None, None, None) and (title is None or title[0] == POPE):
        pope = popes.english_name(query)
        if pope is not None:
            return f"{POPE} {pope}"
    found = [part for part in (person, office, title, see, question, article) if part is not None]
    if not any(foreign for _, foreign in found):
        return None
    if person is not None:
        return person[0] if not rest else None
    words = [office[0]] if office is not None else []
    if title is not None:
        words.append(title[0])
    if rest:  # a name before its see: "Cardinal cupich of Chicago"
        words.append(rest)
    if see is not None:
        words.append(f"of {see[0]}")
    return " ".join(words)


def _article(cleaned: str) -> tuple[str, bool] | None:
    """Another language's article as the first word of the query ("o camerlengo")."""
    first, space, _ = cleaned.partition(" ")
    if space and key(first) in _articles():
        return ("", True)
    return None


@cache
def _articles() -> frozenset[str]:
    return frozenset(key(str(word)) for word in authored("clergy")["articles"])


@cache
def _forms(kind: str) -> Forms:
    """A table's forms, longest first, each with (its English or id, whether foreign)."""
    table = authored("clergy")[kind]
    if isinstance(table, list):  # words that stand for nothing but another language
        table = {"": table}
    found: dict[str, tuple[str, bool]] = {}
    for english, forms in table.items():
        plain = key(str(english))
        for form in (str(f) for f in forms):
            for variant in _variants(key(form)):
                # A person's name is always read (it stands for an id), a title only
                # when it is not English.
                found.setdefault(variant, (str(english), kind == "names" or variant != plain))
    return tuple(sorted(found.items(), key=lambda item: -len(item[0])))


def _variants(form: str) -> Iterable[str]:
    """A form, and a CJK one also without its spaces (users write both)."""
    return dict.fromkeys((form, unspaced(form))) if form else ()


@cache
def _fillers() -> Stripper:
    words = authored("clergy")["fillers"]
    return Stripper(str(w) for w in words if str(w) not in KOREAN_PARTICLES)
