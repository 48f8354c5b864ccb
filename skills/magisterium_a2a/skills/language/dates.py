"""Date queries in any of our languages, as the English form the liturgy engine
already reads (an ISO date, "next sunday", "ash wednesday 2027", "3 sunday of
lent 2027").

``resolve`` is what the date skills call: the engine reads the query first, so
everything it read before (English) resolves exactly as before; only what it
cannot read comes here. In order, each step from a table or a library:
  1. a weekday made relative ("próximo domingo", "nächsten Sonntag", "다음 주일",
     "次の日曜日", "下周日") and the day words dateparser lacks (Tagalog "bukas"),
     from ``calendar-words.yaml``;
  2. a celebration named whole ("Miércoles de Ceniza 2027", "Pfingstsonntag 2027",
     "Noël", "復活祭", "성탄절"), from romcal's locales and ``celebrations.yaml``;
  3. an ordinal Sunday of a season ("3er domingo de Cuaresma", "사순 제3주일");
  4. a numeric date written with 年月日 / 년월일 ("2026年12月25日", "3월 19일"), read
     here: dateparser 1.5.0 reads "12月25日" as 25 December 2012 and "3 月 19 日" as
     13 August;
  5. anything else to dateparser, restricted to our languages of the query's
     script (the detected one first), for absolute dates and its relative days
     ("25 de diciembre de 2026", "19. März 2027", "ngày 25 tháng 12 năm 2026",
     "mañana", "明天"), if the query has a digit or is short; its answer is kept
     only when the day (and year) it read are numbers the query holds.
A date without a year is in the current year, as the engine reads "December 25".
The query is capped as the engine caps it (``MAX_QUERY_CHARS``), so no step sees
more than 300 characters.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime, timedelta
from functools import cache

from magisterium_a2a.skills.language.celebrations import celebration_id, ordinal_sunday
from magisterium_a2a.skills.language.detect import detect
from magisterium_a2a.skills.language.phrases import (
    cjk_fillers,
    is_cjk,
    match_form,
    matched,
    phrase,
    split_year,
)
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
    form = matched(folded)
    if not form:
        return None
    suffix = f" {year}" if year is not None else ""
    if year is None and (relative := _relative(form, today)) is not None:
        return relative
    if (ident := celebration_id(form)) is not None:
        return ident.replace("_", " ") + suffix
    if (sunday := ordinal_sunday(form)) is not None:
        return sunday + suffix
    if (numeric := _cjk_date(text, today)) is not None:
        return numeric
    return _dateparser(text, today)


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


def _cjk_date(text: str, today: date) -> str | None:
    found = _CJK_DATE.search(text)
    if found is None:
        return None
    rest = split_year(text[: found.start()] + " " + text[found.end() :])
    if rest is None or phrase(rest[0]):
        return None
    year = int(found["year"]) if found["year"] else today.year
    try:
        return date(year, int(found["month"]), int(found["day"])).isoformat()
    except ValueError:
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
    parser = DateDataParser(
        languages=order,
        settings={
            "RELATIVE_BASE": datetime(today.year, today.month, today.day),
            "PREFER_DATES_FROM": "current_period",
            "REQUIRE_PARTS": ["day", "month"],
            "PARSERS": ["relative-time", "absolute-time"],
        },
    )
    found = None
    for candidate in dict.fromkeys((text, *_without_fillers(text))):
        try:
            found = parser.get_date_data(candidate).date_obj
        except (ValueError, TypeError, OverflowError, KeyError, IndexError):
            found = None
        if found is not None:
            break
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
