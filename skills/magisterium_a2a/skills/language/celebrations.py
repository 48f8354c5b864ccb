"""Celebrations and ordinal Sundays named in any of our languages, as the English
form the liturgy engine reads.

Names come from romcal's own locales (``romcal-names.tsv``, generated; its Latin
abbreviations written out, its "A/B" alternatives split) and the team's table for
the languages romcal lacks and the everyday names it does not carry
(``celebrations.yaml``, which also names the engine's rule days: "Nochebuena" is
"christmas eve"). A phrase must be a whole name (with fillers and a year around
it): "Lunes de Pascua" is not "Pascua", and nothing is guessed. A name is looked
up whole first (``whole_name``), then without the filler words (``celebration_id``),
so a name holding a filler ("Jueves Santo": "santo" is one) is not read as what is
left of it (the weekday "jueves").
The ordinal Sundays of Advent, Lent, Easter Time and Ordinary Time are read from
three parts in any order, each from the tables: a season's name, the word for
Sunday and an ordinal ("3er domingo de Cuaresma", "사순 제3주일", "四旬期第三主日",
"Chúa Nhật III Mùa Chay", "3. Fastensonntag"); a weekday of a season's week from a
weekday's name, an ordinal, a season and perhaps the word for week ("lunes de la
segunda semana de Cuaresma", "사순 제2주간 월요일", "四旬節第2月曜日", "Montag der 2.
Fastenwoche").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from magisterium_a2a.skills.language.numerals import number_of
from magisterium_a2a.skills.language.phrases import is_cjk, match_form, take
from magisterium_a2a.skills.language.scripts import key
from magisterium_a2a.skills.language.tables import authored, romcal_rows

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

# Ordinal prefixes of Chinese, Japanese (第) and Korean (제), and the ordinal suffixes
# the Latin-script languages write after a number (3º is "3o" once NFKC has read it).
_CJK_ORDINAL = re.compile(r"^(?:第|제)?(\d{1,2}|[一二三四五六七八九十]{1,3})$")
_NUMBER_SUFFIX = re.compile(r"^(\d{1,2})(?:o|a|er|re|e|eme|nd|rd|th|st|te|ste)?$")


def celebration_id(phrase: str) -> str | None:
    """romcal's id of the celebration a matched phrase names whole (or the engine's
    words for a rule day: "christmas eve"), or None."""
    return _names().get(phrase)


def whole_name(whole: str) -> str | None:
    """Like ``celebration_id``, for a folded text with every word kept (``whole_form``)."""
    return _whole_names().get(whole)


def whole_form(folded: str) -> str:
    """A folded text (``scripts.key``) with single spaces, or none in CJK."""
    text = " ".join(folded.split())
    return text.replace(" ", "") if is_cjk(text) else text


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


def ordinal_weekday(phrase: str) -> str | None:
    """The engine's "WEEKDAY of the N week of SEASON" for a matched phrase, or None:
    a weekday's name, a season's (or a word naming a season's week) and an ordinal,
    the word for week between them or not."""
    # Names of one language's weekday are words of another's ("segunda" is Monday in
    # Portuguese, an ordinal in Spanish; "linggo" is Sunday and week in Tagalog): each
    # weekday name the phrase holds is tried, the longest first.
    for name, weekday in _weekday_names().items():
        if not _holds(phrase, name):
            continue
        _, rest = _take(phrase, {name: weekday})
        season, rest = _take(rest, _week_compounds())
        if season is None:
            season, rest = _take(rest, _seasons())
            if season is None:
                continue
            _, rest = _take(rest, dict.fromkeys(_weeks(), "week"))
        number = _ordinal(rest)
        if number is not None and 1 <= number <= 34:
            return f"{weekday} of the {number} week of {season}"
    return None


def _holds(text: str, word: str) -> bool:
    return word in text if is_cjk(word) else f" {word} " in f" {text} "


def _take(text: str, table: dict[str, str]) -> tuple[str | None, str]:
    """The value of the longest table key in ``text`` (``phrases.take``), and the
    text without it."""
    meaning, rest = take(text, sorted(table.items(), key=lambda item: len(item[0]), reverse=True))
    return meaning, rest.strip()


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
    kept only when one id is the other's base (a patron's variant of one feast). A name
    that is a weekday's once its fillers are off ("Jueves Santo" is "jueves") is only
    found whole: "jueves 2027" names no celebration."""
    weekdays = _weekday_names()
    return {form: ident for form, ident in _index(match_form).items() if form not in weekdays}


@cache
def _whole_names() -> dict[str, str]:
    """Whole name (every word kept) -> id, as ``_names``."""
    return _index(lambda name: whole_form(key(name)))


def _index(form_of: Callable[[str], str]) -> dict[str, str]:
    found: dict[str, set[str]] = {}
    for language, ident, name in romcal_rows("name"):
        if language == "en":
            continue  # the engine's own
        for variant in _romcal_variants(language, name):
            form = form_of(variant)
            if form:
                found.setdefault(form, set()).add(ident)
    names: dict[str, str] = {}
    for form, idents in found.items():
        base = min(idents, key=len)
        if all(i.startswith(base) for i in idents):
            names[form] = base
    table = authored("celebrations")
    for section in ("celebrations", "days"):
        for ident, languages in table[section].items():
            for forms in languages.values():
                for name in forms:
                    form = form_of(str(name))
                    if form:
                        names[form] = str(ident)
    return names


def _romcal_variants(language: str, name: str) -> list[str]:
    """``variants`` of a romcal name and of each of its "A/B" alternatives ("Sabbato
    Sancto/Vigilia paschalis"), each also with its abbreviations written out."""
    found: list[str] = []
    for part in [name, *name.split("/")] if "/" in name else [name]:
        for variant in variants(part.strip()):
            found.append(variant)
            expanded = _expanded(language, variant)
            if expanded != key(variant):
                found.append(expanded)
    return found


def _expanded(language: str, name: str) -> str:
    """The folded name with the language's abbreviations (``celebrations.yaml``)
    written out: "Ss.mæ Trinitatis" is "sanctissimae trinitatis"."""
    folded = key(name)
    table = _abbreviations().get(language)
    if not table:
        return folded
    words = folded.split()
    out: list[str] = []
    at = 0
    while at < len(words):
        for size in (4, 3, 2, 1):
            short = " ".join(words[at : at + size])
            if len(words) - at >= size and short in table:
                out.append(table[short])
                at += size
                break
        else:
            out.append(words[at])
            at += 1
    return " ".join(out)


@cache
def _abbreviations() -> dict[str, dict[str, str]]:
    table = authored("celebrations").get("abbreviations") or {}
    return {
        str(language): {key(str(short)): str(full) for short, full in forms.items()}
        for language, forms in table.items()
    }


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
def _weekday_names() -> dict[str, str]:
    """A weekday's matched name in any language -> its English name, longest first."""
    table: dict[str, str] = {}
    for days in authored("calendar-words")["weekdays"].values():
        for number, names in enumerate(days):
            for name in names:
                table.setdefault(match_form(str(name)), WEEKDAYS[number])
    return {k: table[k] for k in sorted(table, key=len, reverse=True) if k}


@cache
def _weeks() -> tuple[str, ...]:
    return tuple(match_form(str(w)) for w in authored("calendar-words")["week"])


@cache
def _week_compounds() -> dict[str, str]:
    return {match_form(k): str(v) for k, v in authored("calendar-words")["week_of"].items()}


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
