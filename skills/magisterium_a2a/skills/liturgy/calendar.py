"""The liturgical calendar: romcal's General Roman Calendar and its particular
calendars, turned into our own small, typed days and cached per year.

romcal computes a Gregorian year in about 0.1 s; each year is built once per
engine (on first use) and kept, so a request only looks a date up. The last
``YEARS_KEPT`` years used are kept (a year is about 1.6 MB; all 8,417 would be
14 GB, and any caller can ask for any of them). Two romcal
instances are built: the configured calendar, and the bare Proper of Time,
which names the weekday behind a memorial (``ordinary_time_15_tuesday`` under
Saint Kateri) so its weekday readings can be found.

What romcal 4.0.0b6 returns is corrected, each correction checked by the tests:
the Sunday and weekday cycles are computed from the liturgical year (romcal gives
Advent and Christmas the cycle of the ending year); what romcal leaves out of a
year is put back from romcal's own calendar definitions (the whole Proper of
Saints from the First Sunday of Advent to 31 December, and elsewhere the
solemnities and feasts of the Lord it drops where they are impeded or should
win); and every day is then sorted out by the rules of precedence of the
General Norms (``precedence``): no memorial on the days that exclude one, only
a commemoration on the privileged weekdays, an impeded solemnity transferred.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from datetime import date, timedelta
from functools import cache, cached_property
from typing import Any, Literal

import romcal
from cachetools import LRUCache
from pydantic import BaseModel, ConfigDict

from magisterium_a2a.skills.liturgy.precedence import (
    COMMEMORATION,
    LAST_SOLEMNITY_ROW,
    PREVAILING_MEMORIALS,
    corrected,
    is_memorial,
    occurrence,
    outranks,
    table_row,
    takes_transfer,
    transfer_date,
)

SundayCycle = Literal["A", "B", "C"]
WeekdayCycle = Literal["I", "II"]

FIRST_YEAR = 1583
LAST_YEAR = 9999
YEARS_KEPT = 32

# The fixed dates of romcal's date functions (its other date functions move with Easter,
# or carry romcal's own transfer: the Annunciation's).
DATE_FUNCTIONS: dict[str, tuple[int, int]] = {
    "all_saints": (11, 1),
    "assumption": (8, 15),
    "exaltation_of_the_holy_cross": (9, 14),
    "immaculate_conception_of_mary": (12, 8),
    "nativity_of_john_the_baptist": (6, 24),
    "peter_and_paul_apostles": (6, 29),
    "presentation_of_the_lord": (2, 2),
    "transfiguration": (8, 6),
}
# The memorials of Mary that follow a moveable celebration: (that celebration, days after).
FOLLOWING: dict[str, tuple[str, int]] = {
    "mary_mother_of_the_church": ("pentecost_sunday", 1),
    "immaculate_heart_of_mary": ("most_sacred_heart_of_jesus", 1),
}
# Outside Advent only what romcal wrongly drops is put back: solemnities, feasts of the
# Lord, and the memorials of Mary that prevail over a saint's.
RESTORED_ROWS = 5
# Proper of Time days that romcal names otherwise (the names a query may use).
ID_ALIASES: dict[str, str] = {
    "ordinary_time_3_sunday": "sunday_of_the_word_of_god",
    "easter_time_1_sunday": "easter_sunday",
    "easter_time_2_sunday": "divine_mercy_sunday",
    "lent_6_sunday": "palm_sunday_of_the_passion_of_the_lord",
}
RANK_NAMES = {
    "solemnity": "Solemnity",
    "sunday": "Sunday",
    "feast": "Feast",
    "memorial": "Memorial",
    "optional_memorial": "Optional memorial",
    COMMEMORATION: "Commemoration",
    "weekday": "Weekday",
}


class CalendarError(ValueError):
    """The calendar cannot be built as configured (unknown calendar id, say)."""


class Person(BaseModel):
    """A saint, blessed or group honoured by a celebration, as romcal knows it."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    fullname: str | None = None
    canonization_level: str | None = None
    titles: tuple[str, ...] = ()
    date_of_death: str | None = None


class Celebration(BaseModel):
    """One celebration of a day, in the configured calendar and locale."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    rank: str
    rank_name: str
    precedence: str
    colors: tuple[str, ...]
    masses: tuple[str, ...]
    titles: tuple[str, ...] = ()
    people: tuple[Person, ...] = ()
    calendar: str
    optional: bool = False


class Day(BaseModel):
    """A civil date of the liturgical year with what is celebrated on it."""

    model_config = ConfigDict(frozen=True)

    date: date
    celebrations: tuple[Celebration, ...]
    temporal_id: str
    """The Proper of Time day behind the celebration (its weekday or Sunday)."""
    temporal_name: str = ""
    season: str | None
    season_name: str | None
    week_of_season: int | None
    psalter_week: str | None
    liturgical_year: int
    """The year in which this liturgical year ends (Advent 2026 belongs to 2027)."""
    sunday_cycle: SundayCycle
    weekday_cycle: WeekdayCycle

    @property
    def principal(self) -> Celebration:
        return self.celebrations[0]

    @property
    def optional(self) -> tuple[Celebration, ...]:
        return self.celebrations[1:]


class Year(BaseModel):
    """One Gregorian year of days, with every celebration id's dates."""

    model_config = ConfigDict(frozen=True)

    year: int
    days: dict[date, Day]
    dates_by_id: dict[str, tuple[date, ...]]


def sunday_cycle(liturgical_year: int) -> SundayCycle:
    """Year A when the ending year leaves remainder 1 on division by 3."""
    cycles: tuple[SundayCycle, SundayCycle, SundayCycle] = ("C", "A", "B")
    return cycles[liturgical_year % 3]


def weekday_cycle(liturgical_year: int) -> WeekdayCycle:
    return "I" if liturgical_year % 2 else "II"


@cache
def bundled_definitions() -> tuple[romcal.CalendarDefinition, ...]:
    """romcal's bundled calendar definitions (read once per process)."""
    return tuple(romcal.get_bundled_calendar_definitions())


@cache
def bundled_resources() -> tuple[romcal.Resources, ...]:
    return tuple(romcal.get_bundled_resources())


def calendar_ids() -> list[str]:
    return sorted(d.id for d in bundled_definitions())


def _value(item: Any) -> str:
    return str(getattr(item, "value", item))


class LiturgicalCalendar:
    """The configured calendar, one cached ``Year`` at a time."""

    def __init__(
        self,
        calendar: str = "united_states",
        locale: str = "en",
        *,
        ascension_on_sunday: bool | None = None,
        years_kept: int = YEARS_KEPT,
    ) -> None:
        """``ascension_on_sunday`` overrides the calendar's own rule when given."""
        definitions = {d.id: d for d in bundled_definitions()}
        if calendar not in definitions:
            known = ", ".join(calendar_ids())
            raise CalendarError(f"unknown liturgical calendar {calendar!r}; romcal ships: {known}")
        resources: list[romcal.Resources | dict[Any, Any]] = [
            r for r in bundled_resources() if r.locale in {locale, "en"}
        ]
        if not any(r.locale == locale for r in bundled_resources()):
            locales = ", ".join(sorted(r.locale for r in bundled_resources()))
            raise CalendarError(f"unknown liturgical locale {locale!r}; romcal ships: {locales}")
        self.calendar = calendar
        self.locale = locale
        config = self._particular_config(definitions, calendar)
        epiphany = config.get("epiphany_on_sunday", False)
        ascension = config.get("ascension_on_sunday", False)
        self.ascension_by_rule = ascension
        if ascension_on_sunday is not None:
            ascension = ascension_on_sunday
        self.ascension_on_sunday = ascension
        corpus_christi = config.get("corpus_christi_on_sunday", True)
        all_definitions: list[romcal.CalendarDefinition | dict[Any, Any]] = list(
            definitions.values()
        )
        self._romcal = romcal.Romcal(
            calendar=calendar,
            locale=locale,
            calendar_definitions=all_definitions,
            resources=resources,
            epiphany_on_sunday=epiphany,
            ascension_on_sunday=ascension,
            corpus_christi_on_sunday=corpus_christi,
        )
        self._temporal = romcal.Romcal(
            locale=locale,
            resources=resources,
            epiphany_on_sunday=epiphany,
            ascension_on_sunday=ascension,
            corpus_christi_on_sunday=corpus_christi,
        )
        self._definitions = definitions
        self._entities = self._entity_table(resources, locale)
        self._years: LRUCache[int, Year] = LRUCache(maxsize=years_kept)
        self._lock = threading.Lock()

    @staticmethod
    def _particular_config(
        definitions: dict[str, romcal.CalendarDefinition], calendar: str
    ) -> dict[str, bool]:
        """Epiphany/Ascension/Corpus Christi on Sunday as the calendar (or a parent) says."""
        config: dict[str, bool] = {}
        chain = [calendar]
        while chain:
            definition = definitions.get(chain.pop())
            if definition is None:
                continue
            raw = definition.model_dump(mode="json").get("particular_config") or {}
            for key in ("epiphany_on_sunday", "ascension_on_sunday", "corpus_christi_on_sunday"):
                if key not in config and isinstance(raw.get(key), bool):
                    config[key] = raw[key]
            chain.extend(definition.parent_calendar_ids or [])
        return config

    @staticmethod
    def _entity_table(
        resources: Iterable[romcal.Resources | dict[Any, Any]], locale: str
    ) -> dict[str, Any]:
        table: dict[str, Any] = {}
        typed = [r for r in resources if isinstance(r, romcal.Resources)]
        for resource in sorted(typed, key=lambda r: r.locale == locale):
            entities = resource.model_dump(mode="json").get("entities") or {}
            table.update(entities)
        return table

    def entities(self) -> dict[str, Any]:
        return self._entities

    def entity(self, entity_id: str) -> dict[str, Any] | None:
        found: dict[str, Any] | None = self._entities.get(entity_id)
        return found

    @property
    def definitions(self) -> dict[str, romcal.CalendarDefinition]:
        return self._definitions

    def year(self, year: int) -> Year:
        """The Gregorian year's days, built on first use and then kept (the LRU cache is
        not thread-safe, hence the lock; the skills call this from worker threads)."""
        if not FIRST_YEAR <= year <= LAST_YEAR:
            raise CalendarError(f"year {year} is outside {FIRST_YEAR}-{LAST_YEAR}")
        with self._lock:
            cached = self._years.get(year)
            if cached is None:
                cached = self._build(year)
                self._years[year] = cached
        return cached

    def day(self, when: date) -> Day:
        return self.year(when.year).days[when]

    def dates_of(self, celebration_id: str, year: int) -> tuple[date, ...]:
        """Where a celebration is kept in ``year``; where it is not kept (a memorial on a
        Sunday, a feast under a solemnity), its own date, which then answers for the day."""
        ident = ID_ALIASES.get(celebration_id, celebration_id)
        kept = self.year(year).dates_by_id.get(ident, ())
        if kept:
            return kept
        definition = self._sanctoral_chain.get(ident)
        natural = _natural_date(definition, year) if definition else None
        return (natural,) if natural is not None else ()

    def _build(self, year: int) -> Year:
        main = self._romcal.liturgical_calendar(year)
        temporal = self._temporal.liturgical_calendar(year)
        days: dict[date, Day] = {}
        weekdays: dict[date, Celebration] = {}
        for key, entries in sorted(main.items()):
            when = date.fromisoformat(key)
            base = temporal.get(key) or entries
            weekdays[when] = self._celebration(base[0])
            first = entries[0]
            start = date.fromisoformat(str(first.start_of_liturgical_year))
            liturgical_year = start.year + 1
            days[when] = Day(
                date=when,
                celebrations=tuple(self._celebration(entry) for entry in entries),
                temporal_id=base[0].id,
                temporal_name=_capitalised(base[0].fullname),
                season=_value(first.season) if first.season else None,
                season_name=first.season_name,
                week_of_season=first.week_of_season,
                psalter_week=first.psalter_week_name,
                liturgical_year=liturgical_year,
                sunday_cycle=sunday_cycle(liturgical_year),
                weekday_cycle=weekday_cycle(liturgical_year),
            )
        self._restore_omitted(days, weekdays)
        dates_by_id: dict[str, list[date]] = {}
        for when, day in days.items():
            kept, commemorated = occurrence(day.celebrations, weekdays[when])
            celebrations = (*kept, *(c.model_copy(update=_AS_COMMEMORATION) for c in commemorated))
            if celebrations != day.celebrations:
                day = days[when] = day.model_copy(update={"celebrations": celebrations})
            for ident in dict.fromkeys((*(c.id for c in day.celebrations), day.temporal_id)):
                dates_by_id.setdefault(ident, []).append(when)
        return Year(
            year=year,
            days=days,
            dates_by_id={k: tuple(v) for k, v in dates_by_id.items()},
        )

    def _celebration(self, entry: romcal.LiturgicalDay) -> Celebration:
        rank, precedence = corrected(entry.id, _value(entry.rank), _value(entry.precedence))
        rank_name = RANK_NAMES.get(rank, entry.rank_name)
        if precedence.startswith("triduum"):
            rank_name = "Solemnity" if entry.id == "easter_sunday" else "Paschal Triduum"
            rank = "solemnity" if entry.id == "easter_sunday" else rank
        people = tuple(
            Person(
                id=p.id,
                name=p.name or p.fullname or p.id,
                fullname=p.fullname,
                canonization_level=_value(p.canonization_level) if p.canonization_level else None,
                titles=tuple(_value(t) for t in _items(p.titles)),
                date_of_death=_date_text(p.date_of_death),
            )
            for p in entry.entities
            if _value(p.type) == "person"
        )
        return Celebration(
            id=entry.id,
            name=_capitalised(entry.fullname),
            rank=rank,
            rank_name=rank_name,
            precedence=precedence,
            colors=tuple(c.name for c in entry.colors),
            masses=tuple(_value(m.type) for m in entry.masses),
            titles=tuple(_value(t) for t in _items(entry.titles)),
            people=people,
            calendar=entry.from_calendar_id,
            optional=rank == "optional_memorial",
        )

    @cached_property
    def _sanctoral_chain(self) -> dict[str, dict[str, Any]]:
        """The calendar's day definitions, general_roman first, each child merged over it."""
        order: list[str] = []
        pending = [self.calendar]
        while pending:
            ident = pending.pop()
            if ident in order or ident not in self._definitions:
                continue
            order.append(ident)
            pending.extend(self._definitions[ident].parent_calendar_ids or [])
        order = ["general_roman", *[i for i in reversed(order) if i != "general_roman"]]
        merged: dict[str, dict[str, Any]] = {}
        for ident in order:
            raw = self._definitions[ident].model_dump(mode="json")
            for day_id, definition in (raw.get("days_definitions") or {}).items():
                entry = merged.setdefault(day_id, {"calendar": ident})
                entry.update({k: v for k, v in definition.items() if v is not None})
                entry["calendar"] = ident
        return merged

    def _restore_omitted(self, days: dict[date, Day], weekdays: dict[date, Celebration]) -> None:
        """Put back, by the rules of precedence, what romcal left out of the year: the
        whole Proper of Saints from the First Sunday of Advent to 31 December (romcal
        leaves it out, so no Immaculate Conception, no Saint Stephen), and elsewhere the
        solemnities and feasts of the Lord it drops (St Joseph on a Sunday of Lent, the
        Lateran on a Sunday). Weightiest first, so a transfer sees what is already kept."""
        present = {c.id for day in days.values() for c in day.celebrations}
        year = next(iter(days)).year
        advent = min(
            (d for d, day in days.items() if day.temporal_id == "advent_1_sunday"), default=None
        )
        anchors = {day.principal.id: when for when, day in days.items()}
        found: list[tuple[int, date, Celebration, bool]] = []
        for day_id, definition in self._sanctoral_chain.items():
            if day_id in present or definition.get("drop") or "precedence" not in definition:
                continue
            natural = _natural_date(definition, year)
            if day_id in FOLLOWING and FOLLOWING[day_id][0] in anchors:
                anchor, after = FOLLOWING[day_id]
                natural = anchors[anchor] + timedelta(days=after)
            if natural is None or natural not in days:
                continue
            celebration = self._defined_celebration(day_id, definition, weekdays[natural])
            row = table_row(celebration.precedence)
            restored = row <= RESTORED_ROWS or day_id in PREVAILING_MEMORIALS
            if not restored and (advent is None or natural < advent):
                continue
            found.append((row, natural, celebration, bool(definition.get("date_exceptions"))))
        for _, natural, celebration, has_exceptions in sorted(found, key=lambda f: f[:2]):
            self._place(days, weekdays, natural, celebration, has_exceptions)

    @staticmethod
    def _place(
        days: dict[date, Day],
        weekdays: dict[date, Celebration],
        natural: date,
        celebration: Celebration,
        has_exceptions: bool,
    ) -> None:
        """One left-out celebration on its day, transferred (a solemnity impeded there),
        or beside the day's (a memorial, for ``occurrence`` to sort out), or nowhere (a
        feast impeded is omitted that year, GNLY 60)."""
        day = days[natural]
        if outranks(celebration, day.celebrations, weekdays[natural]):
            # Date exceptions are a calendar's own moves (England's All Saints off a
            # Saturday), romcal's to apply: such a celebration is not put back here.
            if not has_exceptions:
                lesser = tuple(c for c in day.celebrations if is_memorial(c))
                days[natural] = day.model_copy(update={"celebrations": (celebration, *lesser)})
            return
        if table_row(celebration.precedence) <= LAST_SOLEMNITY_ROW:

            def free(when: date) -> bool:
                return when in days and takes_transfer(days[when].celebrations, weekdays[when])

            target = transfer_date(natural, day.principal, free)
            if target is not None:
                there = days[target]
                lesser = tuple(c for c in there.celebrations if is_memorial(c))
                days[target] = there.model_copy(update={"celebrations": (celebration, *lesser)})
            return
        if is_memorial(celebration):
            days[natural] = day.model_copy(
                update={"celebrations": (*day.celebrations, celebration)}
            )

    def _defined_celebration(
        self, day_id: str, definition: dict[str, Any], temporal: Celebration
    ) -> Celebration:
        rank, precedence = corrected(
            day_id, _rank_of(str(definition["precedence"])), str(definition["precedence"])
        )
        locale_id = str(definition.get("custom_locale_id") or day_id)
        entity = self.entity(locale_id) or self.entity(day_id) or {}
        color = definition.get("colors")
        colors = tuple(color) if isinstance(color, list) else (color,) if color else temporal.colors
        people = []
        for person_id in definition.get("entities") or [day_id]:
            found = self.entity(str(person_id))
            if (
                found
                and found.get("type", "person") == "person"
                and found.get("canonization_level")
            ):
                people.append(_person(str(person_id), found))
        return Celebration(
            id=day_id,
            name=str(entity.get("fullname") or day_id.replace("_", " ").capitalize()),
            rank=rank,
            rank_name=RANK_NAMES[rank],
            precedence=precedence,
            colors=tuple(str(c) for c in colors),
            masses=("day_mass",),
            people=tuple(people),
            calendar=str(definition["calendar"]),
            optional=rank == "optional_memorial",
        )


# A memorial on a privileged weekday: named, its Mass not said (GIRM 355a).
_AS_COMMEMORATION: dict[str, Any] = {
    "rank": COMMEMORATION,
    "rank_name": RANK_NAMES[COMMEMORATION],
    "optional": True,
}


def _rank_of(precedence: str) -> str:
    """The rank a romcal precedence of the Proper of Saints names."""
    if "solemnity" in precedence:
        return "solemnity"
    if "feast" in precedence:
        return "feast"
    return "optional_memorial" if precedence.startswith("optional") else "memorial"


def _natural_date(definition: dict[str, Any], year: int) -> date | None:
    """The fixed date a calendar definition gives its celebration in ``year``, if any."""
    spec = definition.get("date_def") or {}
    month_day = DATE_FUNCTIONS.get(str(spec.get("date_fn")))
    if (
        month_day is None
        and isinstance(spec.get("month"), int)
        and isinstance(spec.get("date"), int)
    ):
        month_day = (spec["month"], spec["date"])
    if month_day is None or spec.get("day_offset"):
        return None
    try:
        return date(year, *month_day)
    except ValueError:  # 29 February in a common year
        return None


def _person(ident: str, entity: dict[str, Any]) -> Person:
    death = entity.get("date_of_death")
    return Person(
        id=ident,
        name=str(entity.get("name") or entity.get("fullname") or ident),
        fullname=entity.get("fullname"),
        canonization_level=entity.get("canonization_level"),
        titles=tuple(str(t) for t in entity.get("titles") or ()),
        date_of_death=str(death) if death is not None else None,
    )


def _items(value: object) -> list[object]:
    """A romcal list, whether given plain or wrapped in a root model."""
    inner = getattr(value, "root", value)
    return list(inner) if isinstance(inner, list | tuple) else []


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def _date_text(value: object) -> str | None:
    if value is None:
        return None
    inner: object = value
    while hasattr(inner, "root"):
        inner = inner.root
    return str(inner)
