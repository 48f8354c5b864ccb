"""Celebrations and ordinal Sundays named in any of our languages, as the English
form the liturgy engine reads.

Names come from romcal's own locales (``romcal-names.tsv``, generated) and the
team's table for the languages romcal lacks and the everyday names it does not
carry (``celebrations.yaml``). A phrase must be a whole name (with fillers and a
year around it): "Lunes de Pascua" is not "Pascua", and nothing is guessed.
The ordinal Sundays of Advent, Lent, Easter Time and Ordinary Time are read from
three parts in any order, each from the tables: a season's name, the word for
Sunday and an ordinal ("3er domingo de Cuaresma", "사순 제3주일", "四旬期第三主日",
"Chúa Nhật III Mùa Chay", "3. Fastensonntag").
"""

from __future__ import annotations

import re
from functools import cache

from magisterium_a2a.skills.language.numerals import number_of
from magisterium_a2a.skills.language.phrases import is_cjk, match_form
from magisterium_a2a.skills.language.tables import authored, romcal_rows

# Ordinal prefixes of Chinese, Japanese (第) and Korean (제), and the ordinal suffixes
# the Latin-script languages write after a number (3º is "3o" once NFKC has read it).
_CJK_ORDINAL = re.compile(r"^(?:第|제)?(\d{1,2}|[一二三四五六七八九十]{1,3})$")
_NUMBER_SUFFIX = re.compile(r"^(\d{1,2})(?:o|a|er|re|e|eme|nd|rd|th|st|te|ste)?$")


def celebration_id(phrase: str) -> str | None:
    """romcal's id of the celebration a matched phrase names whole, or None."""
    return _names().get(phrase)


def ordinal_sunday(phrase: str) -> str | None:
    """The engine's "N sunday of SEASON" for a matched phrase, or None."""
    season, rest = _take(phrase, _seasons())
    if season is None:
        compound, rest = _take(phrase, _compounds())
        if compound is None:
            return None
        season = compound
    else:
        sunday, rest = _take(rest, dict.fromkeys(_sundays(), "sunday"))
        if sunday is None:
            return None
    number = _ordinal(rest)
    if number is None or not 1 <= number <= 34:
        return None
    return f"{number} sunday of {season}"


def _take(text: str, table: dict[str, str]) -> tuple[str | None, str]:
    """The value of the longest table key in ``text`` (whole words outside CJK), and
    the text without it."""
    for word in sorted(table, key=len, reverse=True):
        if is_cjk(word):
            if word in text:
                return table[word], text.replace(word, " ", 1).strip()
        else:
            padded = f" {text} "
            if f" {word} " in padded:
                return table[word], padded.replace(f" {word} ", " ", 1).strip()
    return None, text


def _ordinal(rest: str) -> int | None:
    rest = rest.strip()
    if not rest or " " in rest:
        return None
    if is_cjk(rest):
        found = _CJK_ORDINAL.match(rest)
        return number_of(found.group(1)) if found else None
    numbered = _NUMBER_SUFFIX.match(rest)
    if numbered:
        return int(numbered.group(1))
    return _ordinal_words().get(rest) or number_of(rest, roman=True)


@cache
def _names() -> dict[str, str]:
    """Matched name -> id: the team's names first; a romcal name that two ids share is
    kept only when one id is the other's base (a patron's variant of one feast)."""
    found: dict[str, set[str]] = {}
    for language, ident, name in romcal_rows("name"):
        if language == "en":
            continue  # the engine's own
        for variant in variants(name):
            form = match_form(variant)
            if form:
                found.setdefault(form, set()).add(ident)
    names: dict[str, str] = {}
    for form, idents in found.items():
        base = min(idents, key=len)
        if all(i.startswith(base) for i in idents):
            names[form] = base
    for ident, languages in authored("celebrations")["celebrations"].items():
        for forms in languages.values():
            for name in forms:
                form = match_form(str(name))
                if form:
                    names[form] = str(ident)
    return names


def variants(name: str) -> list[str]:
    """A romcal name, and its part before the first comma ("San Ignacio de Loyola,
    presbítero")."""
    head = name.split(",")[0].strip()
    return [name, head] if head and head != name else [name]


@cache
def _seasons() -> dict[str, str]:
    table: dict[str, str] = {}
    for _, season, name in romcal_rows("season"):
        table[match_form(name)] = season
    for season, names in authored("calendar-words")["seasons"].items():
        for name in names:
            table[match_form(str(name))] = str(season)
    return {k: v for k, v in table.items() if k}


@cache
def _compounds() -> dict[str, str]:
    return {match_form(k): str(v) for k, v in authored("calendar-words")["sunday_of"].items()}


@cache
def _sundays() -> tuple[str, ...]:
    return tuple(match_form(str(w)) for w in authored("calendar-words")["sunday"])


@cache
def _ordinal_words() -> dict[str, int]:
    table: dict[str, int] = {}
    for _, number, word in romcal_rows("ordinal"):
        form = match_form(word)
        if form and " " not in form and number.isdigit():
            table[form] = int(number)
    for word, number in authored("calendar-words")["ordinals"].items():
        table[match_form(str(word)).replace(" ", "")] = int(number)
    return table
