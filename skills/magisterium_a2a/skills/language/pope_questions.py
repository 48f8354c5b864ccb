"""Questions about popes that name none, in any of our languages, as the English
question ``pope_lookup`` reads (``people.questions``): "¿quién fue el papa antes
de Francisco?" is "the pope before Francis", "現在の教皇は誰ですか" "the current
pope", "Wer hat das Zweite Vatikanische Konzil einberufen?" "the pope who
convoked the Second Vatican Council", "¿Quién escribió Rerum Novarum?" "who
wrote rerum novarum".

``pope-questions.yaml`` gives what is asked (its forms in each language), the
councils' names and the words of a question; a pope named inside is read by
``popes.english_name`` (or left as typed, when it is already English). What is
asked is read first, then the words around it are dropped: the question must hold
nothing else, so a sentence the table does not understand gives None and the
engine reads the query as it always did.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from magisterium_a2a.skills.language.names import (
    KOREAN_PARTICLES,
    Stripper,
    unspaced,
    without_particles,
)
from magisterium_a2a.skills.language.phrases import is_cjk
from magisterium_a2a.skills.language.popes import english_name
from magisterium_a2a.skills.language.scripts import clean, key
from magisterium_a2a.skills.language.tables import authored

MAX_QUERY_CHARS = 300
ROLES = {"convoked": "convoked", "opened": "opened", "closed": "closed"}


def english_question(query: str) -> str | None:
    """The English form of a question about a pope that names none, or None."""
    if len(query) > MAX_QUERY_CHARS:
        return None
    folded = key(clean(query))
    council, folded = _take(folded, _councils())
    asked, folded = _take(folded, _asks())
    if asked is None and council is None:
        return None
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
        return f"who wrote {rest}" if rest and council is None else None
    if council is None:
        return None
    if asked in ROLES:
        return f"the pope who {ROLES[asked]} the {council}"
    return f"the pope during the {council}" if asked is None and not rest else None


def _take(folded: str, forms: tuple[tuple[str, str], ...]) -> tuple[str | None, str]:
    """The first (longest) form found in the text, and the text without it."""
    padded = f" {folded} "
    for form, meaning in forms:
        if is_cjk(form):
            if form in folded:
                return meaning, folded.replace(form, " ", 1)
        elif f" {form} " in padded:
            return meaning, padded.replace(f" {form} ", " ", 1).strip()
    return None, folded


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
def _fillers() -> Stripper:
    words = [
        str(w) for w in authored("pope-questions")["fillers"] if str(w) not in KOREAN_PARTICLES
    ]
    return Stripper([*words, *authored("popes")["titles"]])
