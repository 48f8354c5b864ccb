"""Date queries in any of our languages, as the English form the liturgy engine
already reads (an ISO date, "next sunday", "ash wednesday 2027", "3 sunday of
lent 2027").

``resolve`` is what the date skills call: the engine reads the query first, so
everything it read before (English) resolves exactly as before; only what it
cannot read comes here. In order, each step from a table or a library:
  1. a celebration named with every word it was typed with ("Jueves Santo",
     "Chúa Nhật Lễ Lá", "Nochebuena"), before the filler words come off: "santo" and
     "lá" are fillers, and what would be left is a weekday;
  2. a weekday made relative ("próximo domingo", "nächsten Sonntag", "다음 주일",
     "次の日曜日", "下周日") and the day words dateparser lacks (Tagalog "bukas",
     "pasado mañana", "este fin de semana"), from ``calendar-words.yaml``;
  3. a celebration named whole ("Miércoles de Ceniza 2027", "Pfingstsonntag 2027",
     "Noël", "復活祭", "성탄절"), from romcal's locales and ``celebrations.yaml``;
  4. an ordinal Sunday of a season ("3er domingo de Cuaresma", "사순 제3주일") and a
     weekday of a season's week ("lunes de la segunda semana de Cuaresma");
  5. a saint's day by the saint's name ("Dzień Świętego Patryka", "성 파트리치오
     축일"), from the saints' names of ``saints.yaml`` and romcal (``saints.saint_id``);
  6. a numeric date written with 年月日 / 년월일 ("2026年12月25日", "3월 19일"), or with
     the year first and any separator ("2027/1/6", "2027.2.14"), read here: dateparser
     1.5.0 reads "12月25日" as 25 December 2012 and "3 月 19 日" as 13 August; such a
     date that is no date ("2026年13月1日") is not read at all;
  7. anything else to dateparser, restricted to our languages of the query's
     script (the detected one first), for absolute dates and its relative days
     ("25 de diciembre de 2026", "19. März 2027", "ngày 25 tháng 12 năm 2026",
     "mañana", "明天"), if the query has a digit or is short; its answer is kept
     only when the day (and year) it read are numbers the query holds. A day number
     with an ordinal mark it does not read ("ika-8 ng Disyembre") is given to it as
     the number, and a word elided against a number ("dell'11 aprile") apart.
A date without a year is in the current year, as the engine reads "December 25".
The query is capped as the engine caps it (``MAX_QUERY_CHARS``), so no step sees
more than 300 characters.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime, timedelta
from functools import cache
from typing import Any

from magisterium_a2a.skills.language.celebrations import (
    celebration_id,
    ordinal_sunday,
    ordinal_weekday,
    whole_form,
    whole_name,
)
from magisterium_a2a.skills.language.detect import detect
from magisterium_a2a.skills.language.phrases import (
    cjk_fillers,
    is_cjk,
    match_form,
    matched,
    phrase,
    split_year,
)
from magisterium_a2a.skills.language.saints import saint_id
from magisterium_a2a.skills.language.scripts import clean, has_han, key, simplified
from magisterium_a2a.skills.language.tables import authored

MAX_QUERY_CHARS = 300
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# dateparser's names for our languages (Latin it does not read).
DATEPARSER_LANGUAGES = {
    "es": "es", "pt": "pt", "it": "it", "fr": "fr", "de": "de", "pl": "pl", "ja": "ja",
    "ko": "ko", "zh-Hans": "zh", "zh-Hant": "zh-Hant", "vi": "vi", "tl": "tl",
}  # fmt: skip
_CJK_DATE = re.compile(
    r"(?:(?P<year>\d{4})\s*[年년]\s*)?(?P<month>\d{1,2})\s*[月월]\s*(?P<day>\d{1,2})\s*[日일号號]?"
)
# A date of numbers with the year first, any separator ("2027/1/6", "2027.2.14", the
# Korean "2026. 12. 25."): its order is beyond doubt.
_YMD = re.compile(
    r"(?<!\d)(?P<year>\d{4})\s*[/.-]\s*(?P<month>\d{1,2})\s*[/.-]\s*(?P<day>\d{1,2})(?!\d)\.?"
)
# A word elided against what follows ("dell'11", "l'Ascension").
_ELISION = re.compile(r"(?<=\w)['\u2019](?=\w)")
_NUMBER = re.compile(r"\d+")
# A date of numbers alone: year first (ISO's shape, the engine's to read or refuse), or
# day and month first in an order only a reader's country would say.
_YEAR_FIRST = re.compile(r"\d{4}\s*[/.-]\s*\d{1,2}\s*[/.-]\s*\d{1,2}")
_NUMERIC = re.compile(r"(?P<a>\d{1,2})\s*[/.-]\s*(?P<b>\d{1,2})\s*[/.-]\s*\d{2,4}")
# The most words of filler a date query starts with ("lecturas de la misa del").
LEADING_WORDS = 8
# Longest query without a digit handed to dateparser (its relative days: "mañana", "明天").
WORDS_ALONE = 40


def resolve(query: str, today: date, read: Callable[[str], date | None]) -> date | None:
    """The date ``read`` (the engine) finds for the query, else for its English form."""
    found = read(query)
    if found is None:
        english = english_form(query, today)
        if english is not None:
            found = read(english)
    return found


def english_form(query: str, today: date) -> str | None:
    """The engine's English form of a date query in another language, or None."""
    if len(query) > MAX_QUERY_CHARS:
        return None
    text = clean(query)
    split = split_year(text) if text else None
    if split is None:
        return None
    folded, year = split
    if year is None:
        folded, year = _relative_year(folded, today)
    form = matched(folded)
    if not form:
        return None
    suffix = f" {year}" if year is not None else ""
    for whole in _whole_forms(folded):
        if (ident := whole_name(whole)) is not None:
            return ident.replace("_", " ") + suffix
    if year is None and (relative := _relative(form, today)) is not None:
        return relative
    if (ident := celebration_id(form)) is not None:
        return ident.replace("_", " ") + suffix
    if (proper := ordinal_sunday(form) or ordinal_weekday(form)) is not None:
        return proper + suffix
    if (saint := _saint_day(folded, form)) is not None:
        return saint.replace("_", " ") + suffix
    if year is None and not phrase(folded) and _names_a_topic(folded):
        return "today"  # "santo del día", "聖人", "bài đọc": what the skill answers, no day
    numeric = _numeric_date(text, today)
    if numeric is not None:
        return numeric or None  # "": a date in numbers that is no date, not read further
    return _dateparser(_day_numbers(text), today)


def _whole_forms(folded: str) -> list[str]:
    """The folded text with every word kept, and without the filler words at its start
    or its end ("lecturas del Jueves Santo", "la veille de Noël", "2027年の諸聖人の日")."""
    whole = whole_form(folded)
    forms = [whole]
    if is_cjk(whole):
        trimmed = whole
        for _ in range(4):  # a few fillers at each edge at most
            before = trimmed
            for filler in cjk_fillers():
                trimmed = trimmed.removeprefix(filler).removesuffix(filler)
            if trimmed == before:
                break
        forms.append(trimmed)
        return [f for f in dict.fromkeys(forms) if f]
    words = whole.split()
    first, last = 0, len(words)
    while first < last and not phrase(words[first]):
        first += 1
    while last > first and not phrase(words[last - 1]):
        last -= 1
    forms.append(" ".join(words[first:]))
    forms.append(" ".join(words[first:last]))
    return [f for f in dict.fromkeys(forms) if f]


def _saint_day(folded: str, form: str) -> str | None:
    """The id of the saint whose day the query names: it holds a word of ``saint_day``
    ("축일", "の日", "araw ni", "dzień") and a saint's name, looked up in the saints'
    names once those words are off the matched phrase; None otherwise."""
    whole = whole_form(folded)
    padded = f" {whole} "
    words = _saint_day_words()
    if not any((p in whole) if is_cjk(p) else (f" {p} " in padded) for _, p in words):
        return None
    candidates = [form]
    for word, _ in words:
        if is_cjk(word) and form.endswith(word):
            candidates.append(form.removesuffix(word))
        elif word and not is_cjk(word) and form.startswith(f"{word} "):
            candidates.append(form.removeprefix(f"{word} "))
    for candidate in candidates:
        if candidate and (ident := saint_id(candidate)) is not None:
            return ident
    return None


@cache
def _saint_day_words() -> tuple[tuple[str, str], ...]:
    """``saint_day``'s words, longest first: (matched form, folded form)."""
    words = {
        (match_form(str(w)), whole_form(key(str(w))))
        for w in authored("calendar-words")["saint_day"]
    }
    return tuple(sorted(words, key=lambda pair: len(pair[1]), reverse=True))


def _day_numbers(text: str) -> str:
    """The text with the day numbers of ``day_number`` as numbers ("ika-8" is "8") and
    elided words apart from what follows them ("dell'11" is "dell' 11")."""
    text = _ELISION.sub("' ", text)
    for pattern in _day_number_patterns():
        text = pattern.sub(lambda m: m["n"], text)
    return text


@cache
def _day_number_patterns() -> tuple[re.Pattern[str], ...]:
    patterns = []
    for form in authored("calendar-words")["day_number"]:
        body = re.escape(str(form)).replace(re.escape("{n}"), r"(?P<n>\d{1,2})")
        patterns.append(re.compile(rf"(?i)(?<!\w){body}(?!\d)"))
    return tuple(patterns)


def _relative_year(folded: str, today: date) -> tuple[str, int | None]:
    """The folded text without a "next year" of ``calendar-words.yaml``, and that year."""
    padded = f" {folded} "
    for words, shift in _relative_years():
        if is_cjk(words) and words in folded:
            return folded.replace(words, " ", 1), today.year + shift
        if f" {words} " in padded:
            return padded.replace(f" {words} ", " ", 1).strip(), today.year + shift
    return folded, None


@cache
def _relative_years() -> tuple[tuple[str, int], ...]:
    """(folded phrase, shift in years), longest first."""
    found = {
        key(str(words)): int(shift)
        for shift, phrases in authored("calendar-words")["years"].items()
        for words in phrases
    }
    return tuple(sorted(found.items(), key=lambda item: -len(item[0])))


def _names_a_topic(folded: str) -> bool:
    """The folded text holds a word of ``topic`` (readings, saints ... in our languages)."""
    padded = f" {folded} "
    return any((word in folded) if is_cjk(word) else (f" {word} " in padded) for word in _topics())


@cache
def _topics() -> tuple[str, ...]:
    return tuple(key(str(word)) for word in authored("calendar-words")["topic"])


def _relative(matched: str, today: date) -> str | None:
    found = _relative_forms().get(matched)
    if found is None:
        return None
    kind, weekday = found
    if weekday < 0:
        return kind
    if kind in {"next", "this", "last"}:
        return f"{kind} {WEEKDAYS[weekday]}"
    monday = today - timedelta(days=today.weekday())
    shift = 7 if kind == "next_week" else -7
    return (monday + timedelta(days=shift + weekday)).isoformat()


@cache
def _relative_forms() -> dict[str, tuple[str, int]]:
    """Matched form -> (next/this/last/next_week/last_week, weekday), or (the engine's
    words, -1) for a fixed phrase."""
    words = authored("calendar-words")
    forms: dict[str, tuple[str, int]] = {}
    for language, days in words["weekdays"].items():
        for weekday, names in enumerate(days):
            for name in names:
                forms.setdefault(match_form(str(name)), ("this", weekday))
                for kind in ("next", "this", "last", "next_week", "last_week"):
                    for pattern in words[kind].get(language, ()):
                        form = match_form(str(pattern).replace("{d}", str(name)))
                        forms.setdefault(form, (kind, weekday))
    for fixed in words["fixed"].values():
        for english, names in fixed.items():
            for name in names:
                forms[match_form(str(name))] = (str(english), -1)
    forms.pop("", None)
    return forms


def _numeric_date(text: str, today: date) -> str | None:
    """A date of numbers the query holds with fillers only around it: written with
    年月日 / 년월일 (the year perhaps left out: this year), or with the year first and any
    separator. Its ISO form; "" when it is no date ("2026年13月1日", "2027.2.30"); None
    when the query holds no such date."""
    for pattern in (_CJK_DATE, _YMD):
        found = pattern.search(text)
        if found is None:
            continue
        rest = split_year(text[: found.start()] + " " + text[found.end() :])
        if rest is None or phrase(rest[0]):
            continue
        year = int(found["year"]) if found["year"] else today.year
        try:
            return date(year, int(found["month"]), int(found["day"])).isoformat()
        except ValueError:
            return ""
    return None


def _names_a_weekday(text: str) -> bool:
    matched = match_form(text)
    return any(name in matched for name in _weekday_forms())


@cache
def _weekday_forms() -> tuple[str, ...]:
    days = authored("calendar-words")["weekdays"].values()
    return tuple(match_form(str(name)) for week in days for names in week for name in names)


def _without_fillers(text: str) -> tuple[str, str, str]:
    """The text without its leading fillers ("lecturas del 25 de diciembre" -> "25 de
    diciembre"), without any ("25 diciembre"), as typed; and in Simplified characters
    without the CJK fillers written against the words ("明天的讀經" -> "明天")."""
    words = text.split()
    keys = [key(word) for word in words]
    first = 0
    for end in range(1, min(len(words), LEADING_WORDS) + 1):
        if phrase(" ".join(keys[:end])) == "":
            first = end
    every = [
        word for word, folded in zip(words, keys, strict=True) if phrase(folded) or word.isdigit()
    ]
    unwrapped = simplified(text) if has_han(text) else text
    for filler in cjk_fillers():
        unwrapped = unwrapped.replace(filler, " ")
    return " ".join(words[first:]), " ".join(every), " ".join(unwrapped.split())


def _searched(text: str, languages: list[str], settings: dict[str, Any]) -> datetime | None:
    """The one date dateparser's search finds inside a longer query, words of a
    question around it ("Thánh ngày 24 tháng 11"); None when it finds none or several,
    or when the query holds a number outside it."""
    from dateparser.search import search_dates

    try:
        found = search_dates(text, languages=languages, settings=settings)
    except (ValueError, TypeError, OverflowError, KeyError, IndexError):
        return None
    if not found or len({when.date() for _, when in found}) != 1:
        return None
    # Every number of the query is part of the date found: "santo 4 y 5 de octubre" is two.
    inside = {n for typed, _ in found for n in _NUMBER.findall(typed)}
    return found[0][1] if set(_NUMBER.findall(text)) <= inside else None


def _dateparser(text: str, today: date) -> str | None:
    if len(text) > WORDS_ALONE and not any(c.isdigit() for c in text):
        return None  # no day number, and longer than any word for a day ("pasado mañana")
    if _YEAR_FIRST.fullmatch(text.strip()):
        return None  # "2026-13-01" is no date: the engine refused it, nothing reads it again
    numeric = _NUMERIC.fullmatch(text.strip())
    if (
        numeric
        and max(int(numeric["a"]), int(numeric["b"])) <= 12
        and (int(numeric["a"]) != int(numeric["b"]))
    ):
        return None  # 12/08/2026: 12 August or 8 December; never guessed (the engine agrees)
    from dateparser.date import DateDataParser

    detected = detect(text)
    cjk = {"ja", "ko", "zh", "zh-Hant"}
    order = [c for c in DATEPARSER_LANGUAGES.values() if (c in cjk) == is_cjk(text)]
    if detected in DATEPARSER_LANGUAGES:
        first = DATEPARSER_LANGUAGES[detected]
        order = [first, *(code for code in order if code != first)]
    settings = {
        "RELATIVE_BASE": datetime(today.year, today.month, today.day),
        "PREFER_DATES_FROM": "current_period",
        "REQUIRE_PARTS": ["day", "month"],
        "PARSERS": ["relative-time", "absolute-time"],
    }
    parser = DateDataParser(languages=order, settings=settings)
    found = None
    for candidate in dict.fromkeys((text, *_without_fillers(text))):
        try:
            found = parser.get_date_data(candidate).date_obj
        except (ValueError, TypeError, OverflowError, KeyError, IndexError):
            found = None
        if found is not None:
            break
    if found is None and any(c.isdigit() for c in text):
        found = _searched(text, order, settings)
    if found is None:
        return None
    numbers = [int(n) for n in _NUMBER.findall(text) if len(n) <= 4]
    if not numbers and _names_a_weekday(text):
        return None  # dateparser's relative weekdays are English-only (see step 1)
    if numbers and found.day not in numbers:
        return None
    years = [n for n in numbers if n >= 1000]
    if years and found.year not in years:
        return None
    return str(found.date().isoformat())
