"""Plain-language date queries, read relative to an injected "today".

Absolute dates go to ``dateutil``; what it cannot know is ours: relative days
("next Sunday" is the next one after today, "this Sunday" the one of the
current Sunday-to-Saturday week, "last Sunday" the one before today), the days
of the Proper of Time by ordinal ("3rd Sunday of Lent", "Monday of the second
week of Advent"), and named celebrations, looked up in romcal's calendar by id,
by localized name, by common English name, and finally by close fuzzy match.
A name without a year means its next occurrence on or after today.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from datetime import date, datetime, timedelta

from dateutil import parser as dateutil_parser
from dateutil.easter import easter
from dateutil.relativedelta import TH, relativedelta
from rapidfuzz import fuzz, process

from magisterium_a2a.skills.liturgy.calendar import (
    FIRST_YEAR,
    LAST_YEAR,
    CalendarError,
    LiturgicalCalendar,
    bundled_resources,
)

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTH_NAME = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*"
MONTHS = re.compile(rf"\b{MONTH_NAME}\b", re.IGNORECASE)
SEASONS = {
    "advent": "advent",
    "lent": "lent",
    "easter": "easter_time",
    "eastertide": "easter_time",
    "easter time": "easter_time",
    "ordinary time": "ordinary_time",
}
# Common English names of celebrations, beside romcal's own names and ids.
ALIASES: dict[str, str] = {
    "christmas": "nativity_of_the_lord",
    "christmas day": "nativity_of_the_lord",
    "nativity": "nativity_of_the_lord",
    "easter": "easter_sunday",
    "easter day": "easter_sunday",
    "ash wednesday": "ash_wednesday",
    "palm sunday": "palm_sunday_of_the_passion_of_the_lord",
    "passion sunday": "palm_sunday_of_the_passion_of_the_lord",
    "holy thursday": "thursday_of_the_lords_supper",
    "maundy thursday": "thursday_of_the_lords_supper",
    "good friday": "friday_of_the_passion_of_the_lord",
    "holy saturday": "holy_saturday",
    "easter vigil": "holy_saturday",
    "pentecost": "pentecost_sunday",
    "ascension": "ascension_of_the_lord",
    "trinity sunday": "most_holy_trinity",
    "holy trinity": "most_holy_trinity",
    "corpus christi": "most_holy_body_and_blood_of_christ",
    "body and blood of christ": "most_holy_body_and_blood_of_christ",
    "sacred heart": "most_sacred_heart_of_jesus",
    "christ the king": "our_lord_jesus_christ_king_of_the_universe",
    "all saints": "all_saints",
    "all saints day": "all_saints",
    "all souls": "commemoration_of_all_the_faithful_departed",
    "all souls day": "commemoration_of_all_the_faithful_departed",
    "assumption": "assumption_of_the_blessed_virgin_mary",
    "immaculate conception": "immaculate_conception_of_the_blessed_virgin_mary",
    "epiphany": "epiphany_of_the_lord",
    "baptism of the lord": "baptism_of_the_lord",
    "holy family": "holy_family_of_jesus_mary_and_joseph",
    "mary mother of god": "mary_mother_of_god",
    "solemnity of mary": "mary_mother_of_god",
    "divine mercy sunday": "divine_mercy_sunday",
    "presentation of the lord": "presentation_of_the_lord",
    "candlemas": "presentation_of_the_lord",
    "annunciation": "annunciation_of_the_lord",
    "transfiguration": "transfiguration_of_the_lord",
    "saint joseph": "joseph_spouse_of_mary",
    "st joseph": "joseph_spouse_of_mary",
    "saints peter and paul": "peter_and_paul_apostles",
    "sts peter and paul": "peter_and_paul_apostles",
    "gaudete sunday": "advent_3_sunday",
    "laetare sunday": "lent_4_sunday",
    "good shepherd sunday": "easter_time_4_sunday",
    "pentecost vigil": "pentecost_sunday",
}
# Days named by a rule rather than by what the calendar keeps on them. "Ascension
# Thursday" is the fortieth day after Easter even where (most of the USA) the Ascension
# is kept on the Sunday after; that day's answer gives both. Thanksgiving Day is the
# fourth Thursday of November (the US proper Mass).
NAMED_DAYS: dict[str, Callable[[int], date]] = {
    "ascension thursday": lambda year: easter(year) + timedelta(days=39),
    "christmas eve": lambda year: date(year, 12, 24),
    "new year": lambda year: date(year, 1, 1),
    "new year eve": lambda year: date(year, 12, 31),
    "independence": lambda year: date(year, 7, 4),
    "thanksgiving": lambda year: date(year, 11, 1) + relativedelta(weekday=TH(4)),
}
FILLER = {
    "please",
    "what",
    "are",
    "is",
    "show",
    "me",
    "give",
    "the",
    "mass",
    "readings",
    "reading",
    "saints",
    "saint's",
    "martyrology",
    "for",
    "on",
    "of",
    "day",
}
# Words a query may end with that name no date ("today's Mass readings, please").
TRAILING = {"please", "thanks", "mass", "readings", "reading"}
RELATIVE_DAYS = {
    "today": 0,
    "tonight": 0,
    "tomorrow": 1,
    "after tomorrow": 2,  # "the day after tomorrow", its leading "the day" dropped
    "yesterday": -1,
    "before yesterday": -2,
}
# 2026/12/25, 12/25/2026, 25/12/2026: read only when the order is beyond doubt (a part
# over 12, or a four-digit year first); 12/08/2026 is December or August, so not read.
SLASHED = re.compile(r"(\d{1,4})/(\d{1,2})(?:/(\d{2,4}))?")
FUZZY_CUTOFF = 90.0
GENERIC = {"saint", "saints", "blessed", "lady", "feast", "sunday", "week", "time", "lord"}


def _ordinals() -> dict[str, int]:
    """Ordinal words and numerals (``third``, ``3rd``, ``3``) from romcal's English data."""
    table: dict[str, int] = {}
    for resource in bundled_resources():
        if resource.locale != "en" or resource.metadata is None:
            continue
        meta = resource.metadata.model_dump(mode="json")
        for key in ("ordinals_letters", "ordinals_numeric"):
            for number, word in (meta.get(key) or {}).items():
                table[str(word).lower()] = int(number)
    table.update({str(n): n for n in range(1, 35)})
    return table


ORDINALS = _ordinals()
ORDINAL = r"(?:\d{1,2}(?:st|nd|rd|th)?|[a-z]+(?:-[a-z]+)?)"
PROPER_SUNDAY = re.compile(
    rf"^(?P<n>{ORDINAL}) sunday (?:of|in) (?:the )?(?P<season>advent|lent|easter(?: time)?|"
    r"eastertide|ordinary time)$"
)
PROPER_WEEKDAY = re.compile(
    rf"^(?P<wd>{'|'.join(WEEKDAYS)}) (?:of|in) the (?P<n>{ORDINAL}) week (?:of|in) "
    r"(?P<season>advent|lent|easter(?: time)?|eastertide|ordinary time)$"
)
RELATIVE = re.compile(
    rf"^(?P<rel>next|this|last|coming|past|previous) (?P<wd>{'|'.join(WEEKDAYS)})$"
)
YEAR = re.compile(r"\d{4}")
DAY_NUMBER = re.compile(r"(?P<day>\d{1,2})(?:st|nd|rd|th)?")
MONTH_WORD = re.compile(MONTH_NAME)
DATE_WORDS = {"of", "the", *WEEKDAYS}
# Longer queries are not read at all: no date needs more, and every step stays cheap.
MAX_QUERY_CHARS = 300


def normalise(text: str) -> str:
    """Lower case, no punctuation, no possessive ("St. Patrick's Day": st patrick day)."""
    text = text.lower().replace("\u2019", "'").replace("st.", "st")
    text = re.sub(r"[^\w\s'-]", " ", text)
    text = re.sub(r"'s\b|\b'|'\B", "", text)
    return re.sub(r"\s+", " ", text).strip()


class DateQueryParser:
    """Reads a query into a date of the configured calendar, or ``None``."""

    def __init__(self, calendar: LiturgicalCalendar) -> None:
        self.calendar = calendar
        self._names: dict[str, str] | None = None
        self._lock = threading.Lock()

    def parse(self, query: str, today: date) -> date | None:
        slashed = SLASHED.fullmatch(query.strip())
        if slashed:
            found = _slashed(*slashed.groups(), today=today)
            return found if found is not None and FIRST_YEAR <= found.year <= LAST_YEAR else None
        text = normalise(query)
        words = text.split()
        while words and words[0] in FILLER:
            words.pop(0)
        while words and words[-1] in TRAILING:
            words.pop()
        text = " ".join(words)
        if not text:
            return None
        try:
            found = self._parse(text, today)
        except (CalendarError, ValueError, OverflowError):
            return None
        if found is None or not FIRST_YEAR <= found.year <= LAST_YEAR:
            return None
        return found

    def _parse(self, text: str, today: date) -> date | None:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            return date.fromisoformat(text)
        if text in RELATIVE_DAYS:
            return today + timedelta(days=RELATIVE_DAYS[text])
        text = re.sub(r"\bweekend$", "sunday", text)  # the weekend's Mass is the Sunday's
        relative = RELATIVE.match(text)
        if relative:
            return _relative(relative["rel"], WEEKDAYS.index(relative["wd"]), today)
        if text in WEEKDAYS:
            return _relative("this", WEEKDAYS.index(text), today)
        year: int | None = None
        head, _, last = text.rpartition(" ")
        if head and YEAR.fullmatch(last):
            year = int(last)
            text = head
        if MONTHS.search(text) and re.search(r"\d", text):
            return _absolute(text, year if year is not None else today.year)
        named = NAMED_DAYS.get(text.removesuffix(" day"))
        if named is not None:
            return _next_named(named, year, today)
        ident = self._celebration_id(text, today.year)
        if ident is not None:
            return self._occurrence(ident, year, today)
        return None

    def _celebration_id(self, text: str, this_year: int) -> str | None:
        proper = PROPER_SUNDAY.match(text)
        if proper:
            number = ORDINALS.get(proper["n"])
            return f"{SEASONS[proper['season']]}_{number}_sunday" if number else None
        proper = PROPER_WEEKDAY.match(text)
        if proper:
            number = ORDINALS.get(proper["n"])
            season = SEASONS[proper["season"]]
            return f"{season}_{number}_{proper['wd']}" if number else None
        text = re.sub(r"^(the|feast of|solemnity of|memorial of) ", "", text)
        # "All Saints Day", "St Patrick's Day": the name without "day", "st" as "saint".
        bare = re.sub(r"^sts? ", lambda m: "saints " if m[0] == "sts " else "saint ", text)
        bare = bare.removesuffix(" day") if bare.startswith("saint ") else bare
        names = self._name_index(this_year)
        for form in dict.fromkeys((text, text.removesuffix(" day"), bare)):
            if form in ALIASES:
                return ALIASES[form]
            if form in names:
                return names[form]
        # A "... Day" no name matched is another kind of day (Mother's Day, Labor Day):
        # only a saint's day goes on to the fuzzy match.
        if text.endswith(" day") and not bare.startswith("saint"):
            return None
        if not [w for w in bare.split() if len(w) >= 4 and w not in GENERIC]:
            return None
        match = process.extractOne(
            bare, list(names), scorer=fuzz.token_set_ratio, score_cutoff=FUZZY_CUTOFF
        )
        return names[match[0]] if match else None

    def _occurrence(self, ident: str, year: int | None, today: date) -> date | None:
        if year is not None:
            found = self.calendar.dates_of(ident, year)
            return found[0] if found else None
        for candidate_year in (today.year, today.year + 1):
            for when in self.calendar.dates_of(ident, candidate_year):
                if when >= today:
                    return when
        return None

    def _name_index(self, this_year: int) -> dict[str, str]:
        """Every celebration id and name of the calendar (two years, to see every one)."""
        if self._names is not None:
            return self._names
        with self._lock:
            if self._names is None:
                names: dict[str, str] = {}
                for year in (this_year, this_year + 1):
                    for day in self.calendar.year(year).days.values():
                        for celebration in day.celebrations:
                            names.setdefault(normalise(celebration.name), celebration.id)
                            names.setdefault(celebration.id.replace("_", " "), celebration.id)
                        names.setdefault(day.temporal_id.replace("_", " "), day.temporal_id)
                self._names = names
        return self._names


def _next_named(rule: Callable[[int], date], year: int | None, today: date) -> date:
    """The named day of ``year``, else its next occurrence from today."""
    if year is not None:
        return rule(year)
    this_year = rule(today.year)
    return this_year if this_year >= today else rule(today.year + 1)


def _slashed(first: str, second: str, third: str | None, *, today: date) -> date | None:
    """A numeric date with slashes, when its order is beyond doubt (see ``SLASHED``)."""
    if len(first) == 4:
        if third is None or len(third) > 2:
            return None
        year, month, day = int(first), int(second), int(third)
    else:
        if third is not None and len(third) != 4:
            return None
        a, b = int(first), int(second)
        if a <= 12 and b <= 12 and a != b:
            return None
        month, day = (a, b) if a <= 12 else (b, a)
        year = int(third) if third else today.year
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _relative(rel: str, weekday: int, today: date) -> date:
    ahead = (weekday - today.weekday()) % 7
    if rel in {"next", "coming"}:
        return today + timedelta(days=ahead or 7)
    if rel == "this":
        return today + timedelta(days=ahead)
    behind = (today.weekday() - weekday) % 7
    return today - timedelta(days=behind or 7)


def _absolute(text: str, year: int) -> date | None:
    """A month name and one day number (1-31), perhaps a weekday: nothing else. dateutil
    would read any other number as a year ("march 32" as 1 March 2032)."""
    months = days = 0
    for word in text.split():
        number = DAY_NUMBER.fullmatch(word)
        if number and 1 <= int(number["day"]) <= 31:
            days += 1
        elif MONTH_WORD.fullmatch(word):
            months += 1
        elif word not in DATE_WORDS:
            return None
    if months != 1 or days != 1:
        return None
    try:
        parsed = dateutil_parser.parse(text, default=datetime(year, 1, 1), fuzzy=False)
    except (dateutil_parser.ParserError, ValueError, OverflowError):
        return None
    return parsed.date()
