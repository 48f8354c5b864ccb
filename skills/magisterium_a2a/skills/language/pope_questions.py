"""Questions about popes that name none, in any of our languages, as the English
question ``pope_lookup`` reads (``people.questions``): "¿quién fue el papa antes
de Francisco?" is "the pope before Francis", "現在の教皇は誰ですか" "the current
pope", "Wer hat das Zweite Vatikanische Konzil einberufen?" "the pope who
convoked the Second Vatican Council", "¿Quién escribió Rerum Novarum?" "who
wrote rerum novarum", "「찬미받으소서」를 쓴 교황" "who wrote laudato si", "le 264e
pape" "the 264th pope".

``pope-questions.yaml`` gives what is asked (its forms in each language), the
councils' names and the words of a question; a pope named inside is read by
``popes.english_name`` (or left as typed, when it is already English). What is
asked is read first, then a document's title the table knows (before the words
around it, so that "Deus caritas est" keeps its "est"), then the words around them
are dropped: the question must hold nothing else, so a sentence the table does not
understand gives None and the engine reads the query as it always did. A place in
the list ("le 264e pape") is read before all of these.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from magisterium_a2a.skills.language.names import (
    KOREAN_PARTICLES,
    Stripper,
    unspaced,
    without_particles,
)
from magisterium_a2a.skills.language.phrases import take
from magisterium_a2a.skills.language.popes import english_name
from magisterium_a2a.skills.language.scripts import clean, key
from magisterium_a2a.skills.language.tables import authored

MAX_QUERY_CHARS = 300
ROLES = {"convoked": "convoked", "opened": "opened", "closed": "closed"}
_NUMBER = re.compile(r"(?<!\d)\d{1,3}(?!\d)")
# The marks written against a place in the list: 264e, 264eme, 264o (NFKC's 264º), 264th ...
_SUFFIX = re.compile(r"(?<!\d)(\d{1,3})(?:eme|er|e|o|a|th|st|nd|rd)\b")
# ... and the CJK ones around it: 第264代, 제264대, 第264任, 264번째.
_CJK_MARKS = re.compile(r"(?:第|제)?\s*#\s*(?:代|대|任|位|번째|번|째)?")


def english_question(query: str) -> str | None:
    """The English form of a question about a pope that names none, or None."""
    if len(query) > MAX_QUERY_CHARS:
        return None
    folded = key(clean(query))
    numbered = _numbered(folded)
    if numbered is not None:
        return f"the {_ordinal(numbered)} pope"
    council, folded = take(folded, _councils())
    asked, folded = take(folded, _asks())
    if asked is None and council is None:
        return None
    document = None
    if asked == "wrote":
        document, folded = take(folded, _documents())
    rest = _rest(folded)
    if asked in {"current", "first"}:
        return f"the {asked} pope" if not rest else None
    if asked == "how_many":
        return "how many popes" if not rest else None
    if asked in {"before", "after"}:
        if not rest or council is not None:
            return None
        return f"the pope {asked} {english_name(rest) or rest}"
    if asked == "wrote":
        if council is not None or (document is not None and rest):
            return None
        return f"who wrote {document or rest}" if document or rest else None
    if council is None:
        return None
    if asked in ROLES:
        return f"the pope who {ROLES[asked]} the {council}"
    return f"the pope during the {council}" if asked in {None, "during"} and not rest else None


def _ordinal(number: int) -> str:
    """264th, 1st, 22nd, 13th: the English ordinal the engine reads."""
    last = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{last}"


def _numbered(folded: str) -> int | None:
    """The place in the list a question asks for ("le 264e pape", "第264代教皇"), or None."""
    numbers = _NUMBER.findall(folded)
    if len(numbers) != 1:
        return None
    marked = _CJK_MARKS.sub(" ", _NUMBER.sub("#", _SUFFIX.sub(r"\1", folded), count=1), count=1)
    pope_words = _pope_words()
    if pope_words(marked) == " ".join(marked.split()):
        return None  # no word for a pope: "264" alone is not a question about one
    if _rest(_numbered_words()(pope_words(marked))):
        return None
    number = int(numbers[0])
    return number if number >= 1 else None


def _rest(folded: str) -> str:
    """What is left once the words of a question are dropped: a pope's name, a title."""
    return unspaced(without_particles(_fillers()(folded)))


@cache
def _asks() -> tuple[tuple[str, str], ...]:
    return _longest_first(
        (key(str(form)), str(meaning))
        for meaning, forms in authored("pope-questions")["asks"].items()
        for form in forms
    )


@cache
def _councils() -> tuple[tuple[str, str], ...]:
    table = authored("pope-questions")["councils"]
    pairs = [(key(str(form)), str(english)) for english, forms in table.items() for form in forms]
    pairs += [(key(str(english)), str(english)) for english in table]
    return _longest_first(pairs)


def _longest_first(pairs: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """Forms longest first; a CJK form also without its spaces (users write both)."""
    found: dict[str, str] = {}
    for form, meaning in pairs:
        for variant in (form, unspaced(form)):
            if variant:
                found.setdefault(variant, meaning)
    return tuple(sorted(found.items(), key=lambda item: -len(item[0])))


@cache
def _documents() -> tuple[tuple[str, str], ...]:
    table = authored("pope-questions")["documents"]
    return _longest_first(
        (key(str(form)), key(str(title))) for title, forms in table.items() for form in forms
    )


@cache
def _pope_words() -> Stripper:
    return Stripper(authored("pope-questions")["pope_words"])


@cache
def _numbered_words() -> Stripper:
    return Stripper(authored("pope-questions")["numbered"])


@cache
def _fillers() -> Stripper:
    words = [
        str(w) for w in authored("pope-questions")["fillers"] if str(w) not in KOREAN_PARTICLES
    ]
    return Stripper([*words, *authored("popes")["titles"]])
