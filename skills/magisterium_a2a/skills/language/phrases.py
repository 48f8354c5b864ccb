"""Date phrases in the form they are matched in: the script-folded key (see
``scripts.key``) without the filler words of ``calendar-words.yaml`` ("lecturas
del", "の朗読") and, in Chinese, Japanese and Korean, without spaces (users write
"성탄 대축일" and "성탄대축일" alike); a name made of filler words only is kept
whole. Table entries and queries go through the same function, so a filler
dropped from one is dropped from the other.

The year is taken out first: one four-digit number, with its 年/년 if any.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from typing import TypeVar

from magisterium_a2a.skills.language.scripts import has_han, has_hangul, has_kana, key
from magisterium_a2a.skills.language.tables import authored

YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)\s*(?:年|년)?")


def split_year(text: str) -> tuple[str, int | None] | None:
    """The key without its year, and the year; None when it holds several years."""
    folded = key(text)
    years = YEAR.findall(folded)
    if len(years) > 1:
        return None
    if not years:
        return folded, None
    return YEAR.sub(" ", folded), int(years[0])


def phrase(folded: str) -> str:
    """A folded text (``scripts.key``) as it is matched: fillers out, CJK unspaced."""
    cjk, words, phrases = _fillers()
    for filler in cjk:
        folded = folded.replace(filler, " ")
    padded = f" {folded} "
    for filler in phrases:
        padded = padded.replace(f" {filler} ", " ")
    tokens = [t for t in padded.split() if t not in words]
    text = " ".join(tokens)
    if is_cjk(text):
        text = text.replace(" ", "")
    return text


def matched(folded: str) -> str:
    """The matched form of a folded text: ``phrase``, or, when a name is made of filler
    words only (Vietnamese "Lễ Lá" folds to two of them), the whole text."""
    found = phrase(folded)
    if found:
        return found
    whole = " ".join(folded.split())
    return whole.replace(" ", "") if is_cjk(whole) else whole


def match_form(text: str) -> str:
    """A table entry's matched form."""
    return matched(key(text))


def cjk_fillers() -> tuple[str, ...]:
    """The CJK fillers (folded: Simplified characters), longest first."""
    return _fillers()[0]


def is_cjk(text: str) -> bool:
    return has_han(text) or has_kana(text) or has_hangul(text)


@cache
def _fillers() -> tuple[tuple[str, ...], frozenset[str], tuple[str, ...]]:
    """(CJK fillers, longest first; one-word fillers; several-word fillers)."""
    cjk: list[str] = []
    words: set[str] = set()
    phrases: list[str] = []
    for raw in authored("calendar-words")["filler"]:
        folded = key(str(raw))
        if is_cjk(folded):
            cjk.append(folded)
        elif " " in folded:
            phrases.append(folded)
        else:
            words.add(folded)
    cjk.sort(key=len, reverse=True)
    phrases.sort(key=len, reverse=True)
    return tuple(cjk), frozenset(words), tuple(phrases)


Meaning = TypeVar("Meaning")


def take(text: str, forms: Iterable[tuple[str, Meaning]]) -> tuple[Meaning | None, str]:
    """The meaning of the first of ``forms`` found in a folded text, and the text
    without it: a CJK form anywhere (those scripts do not space their words), any
    other as a whole word. The tables pass their forms longest first, so "Erzbistum"
    is taken before "Bistum"."""
    padded = f" {text} "
    for form, meaning in forms:
        if is_cjk(form):
            if form in text:
                return meaning, text.replace(form, " ", 1)
        elif f" {form} " in padded:
            return meaning, padded.replace(f" {form} ", " ", 1).strip()
    return None, text
