"""The liturgy engine shared by the three calendar skills: the calendar, the
date parser, the layered lectionary and the imported martyrologies, built once
per server (``env.shared``). Imported data lives under
``<data_dir>/liturgy/`` (``lectionary/*.json``, ``martyrology/*.json``).
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from importlib.resources import files
from pathlib import Path
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict

from magisterium_a2a.plugin import Clock
from magisterium_a2a.skills.liturgy.calendar import Celebration, Day, LiturgicalCalendar
from magisterium_a2a.skills.liturgy.commons import COMMON_NAMES, builtin_pointers, commons_by_titles
from magisterium_a2a.skills.liturgy.dates import MAX_QUERY_CHARS, DateQueryParser
from magisterium_a2a.skills.liturgy.lectionary import Lectionary, MassReadings, Table, mass_order
from magisterium_a2a.skills.liturgy.lectionary_format import parse_text
from magisterium_a2a.skills.liturgy.martyrology import Martyrology
from magisterium_a2a.skills.liturgy.precedence import COMMEMORATION
from magisterium_a2a.skills.liturgy.settings import LiturgySettings

BUILTIN_NAME = "built-in"
DERIVED_NAME = "built-in (derived)"
MASS_ORDER = (
    "previous_evening_mass",
    "easter_vigil",
    "night_mass",
    "mass_at_dawn",
    "morning_mass",
    "chrism_mass",
    "evening_mass_of_the_lords_supper",
    "celebration_of_the_passion",
    "mass_of_the_passion",
    "day_mass",
)
# liturgy_ascension -> LiturgicalCalendar's ascension_on_sunday (None: the calendar's rule).
ASCENSION_RULES: dict[str, bool | None] = {"calendar": None, "thursday": False, "sunday": True}
SAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]+")


# Calendars whose bishops let each ecclesiastical province choose the Ascension's day:
# (where it is kept on Thursday, where on the Seventh Sunday of Easter).
PROVINCIAL_ASCENSION: dict[str, tuple[str, str]] = {
    "united_states": (
        "the provinces of Boston, Hartford, New York, Newark, Omaha and Philadelphia",
        "the other provinces",
    ),
}
THANKSGIVING_NOTE = (
    "or other readings from the Masses In Thanksgiving to God (Lectionary for Mass, nos. 943-947)"
)
INDEPENDENCE_NOTE = (
    "readings from the Masses For the Country or a City (Lectionary for Mass, nos. 882-886) "
    "or For Peace and Justice (nos. 887-891)"
)
# Ranks on which a national proper Mass may replace the day's Mass.
PROPER_MASS_RANKS = {"weekday", "memorial", "optional_memorial"}


class MemorialReadings(BaseModel):
    """A memorial of the day: its proper readings, else the commons it may take."""

    model_config = ConfigDict(frozen=True)

    celebration: Celebration
    masses: tuple[MassReadings, ...]
    commons: tuple[str, ...] = ()


class OtherCelebration(BaseModel):
    """Readings of a celebration offered beside the day's own, clearly labelled: the
    Ascension where a province keeps it on the other day, a national proper Mass."""

    model_config = ConfigDict(frozen=True)

    label: str
    name: str
    masses: tuple[MassReadings, ...]
    note: str | None = None


class DayReadings(BaseModel):
    """What ``liturgical_readings`` answers for one date."""

    model_config = ConfigDict(frozen=True)

    day: Day
    masses: tuple[MassReadings, ...]
    memorials: tuple[MemorialReadings, ...] = ()
    commemorations: tuple[Celebration, ...] = ()
    """Memorials on a privileged weekday: the Mass is of the day (GIRM 355a)."""
    others: tuple[OtherCelebration, ...] = ()
    commons: tuple[tuple[str, MassReadings], ...] = ()

    @property
    def complete(self) -> bool:
        if not self.masses:
            return False
        principal = self.day.principal
        octave = principal.precedence.startswith("weekday_of_easter_octave")
        weighty = self.day.date.weekday() == 6 or (principal.rank == "solemnity" and not octave)
        return all(m.complete(weighty and m.mass != "easter_vigil") for m in self.masses)


def builtin_table() -> Table:
    """The team's table, from the US Lectionary for Mass; it takes precedence."""
    return _packaged_table("data/lectionary.txt", BUILTIN_NAME)


def derived_table() -> Table:
    """The table derived from the Tamil Lectionary (``lectionary_build``)."""
    return _packaged_table("data/lectionary-derived.txt", DERIVED_NAME)


def _packaged_table(path: str, name: str) -> Table:
    text = files("magisterium_a2a.skills").joinpath(path).read_text(encoding="utf-8")
    return parse_text(text, name)


def content_dir(settings: LiturgySettings) -> Path:
    return settings.data_dir / "liturgy"


def safe_name(name: str) -> str:
    return SAFE_NAME.sub("-", name).strip("-") or "import"


def save_lectionary(settings: LiturgySettings, table: Table) -> Path:
    folder = content_dir(settings) / "lectionary"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{safe_name(table.name)}.json"
    target.write_text(table.model_dump_json(), encoding="utf-8")
    return target


def save_martyrology(settings: LiturgySettings, martyrology: Martyrology) -> Path:
    folder = content_dir(settings) / "martyrology"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{safe_name(martyrology.name)}.json"
    target.write_text(martyrology.model_dump_json(), encoding="utf-8")
    return target


class LiturgyEngine:
    """Everything the calendar skills read, loaded once."""

    def __init__(self, settings: LiturgySettings) -> None:
        self.settings = settings
        self.zone = ZoneInfo(settings.timezone)
        self.ascension_on_sunday = ASCENSION_RULES[settings.liturgy_ascension]
        self.calendar = LiturgicalCalendar(
            settings.liturgy_calendar,
            settings.liturgy_locale,
            ascension_on_sunday=self.ascension_on_sunday,
        )
        # Where provinces differ on the Ascension, the other rule's calendar, built now
        # (about 0.15 s) rather than inside the first request that needs it.
        self._other_rule: LiturgicalCalendar | None = None
        if self.calendar.calendar in PROVINCIAL_ASCENSION:
            self._other_calendar()
        self.parser = DateQueryParser(self.calendar)
        self.lectionary = Lectionary([builtin_table(), derived_table(), *self._imported_tables()])
        self.pointers = builtin_pointers()
        self.martyrologies = self._imported_martyrologies()
        self._particular: dict[tuple[int, int], list[tuple[str, list[str]]]] | None = None

    def _imported_tables(self) -> list[Table]:
        folder = content_dir(self.settings) / "lectionary"
        if not folder.is_dir():
            return []
        return [
            Table.model_validate_json(path.read_text(encoding="utf-8"))
            for path in sorted(folder.glob("*.json"))
        ]

    def _imported_martyrologies(self) -> list[Martyrology]:
        folder = content_dir(self.settings) / "martyrology"
        if not folder.is_dir():
            return []
        return [
            Martyrology.model_validate_json(path.read_text(encoding="utf-8"))
            for path in sorted(folder.glob("*.json"))
        ]

    def particular(self, month: int, day: int) -> list[tuple[str, list[str]]]:
        """Fixed-date celebrations of every other romcal calendar: (id, calendars)."""
        if self._particular is None:
            index: dict[tuple[int, int], dict[str, list[str]]] = {}
            skip = {self.calendar.calendar, "general_roman", "temporal_cycle"}
            for calendar_id, definition in sorted(self.calendar.definitions.items()):
                if calendar_id in skip:
                    continue
                raw = definition.model_dump(mode="json").get("days_definitions") or {}
                for day_id, spec in raw.items():
                    when = (spec or {}).get("date_def") or {}
                    if isinstance(when.get("month"), int) and isinstance(when.get("date"), int):
                        slot = index.setdefault((when["month"], when["date"]), {})
                        slot.setdefault(day_id, []).append(calendar_id)
            self._particular = {k: list(v.items()) for k, v in index.items()}
        return self._particular.get((month, day), [])

    def today(self, clock: Clock) -> date:
        return datetime.fromtimestamp(clock.now(), self.zone).date()

    def resolve(self, query: str, clock: Clock) -> date | None:
        """The date a query names, or None; a query over ``MAX_QUERY_CHARS`` is not read."""
        if len(query) > MAX_QUERY_CHARS:
            return None
        return self.parser.parse(query, self.today(clock))

    def readings(self, when: date) -> DayReadings:
        day = self.calendar.day(when)
        cycles = (day.sunday_cycle, day.weekday_cycle)
        memorials = tuple(
            self._memorial(day, celebration, cycles)
            for celebration in day.celebrations
            if celebration.rank in {"memorial", "optional_memorial"}
        )
        commons: dict[str, MassReadings] = {}
        for memorial in memorials:
            for common in memorial.commons:
                if common not in commons:
                    found = self._common(common, day, cycles)
                    if found is not None:
                        commons[common] = found
        return DayReadings(
            day=day,
            masses=tuple(self._day_masses(day)),
            memorials=memorials,
            commemorations=tuple(c for c in day.celebrations if c.rank == COMMEMORATION),
            others=(*self._christmas_eve(day), *self._transferred(day), *self._proper_masses(day)),
            commons=tuple(commons.items()),
        )

    def _day_masses(self, day: Day) -> list[MassReadings]:
        """The day's Masses; the weekday's is always there when only memorials are kept."""
        cycles = (day.sunday_cycle, day.weekday_cycle)
        days: list[str] = []
        for celebration in day.celebrations:
            if not celebration.optional:
                days.append(self._lectionary_day(day, celebration))
        if not days:
            days.append(day.temporal_id)
        masses: list[MassReadings] = []
        for day_id in dict.fromkeys(days):
            masses.extend(self._masses(day_id, cycles))
        if day.temporal_id == "holy_saturday":
            vigil = self.lectionary.lookup("easter_sunday", cycles, "easter_vigil")
            if vigil is not None:
                masses.append(vigil)
        # In the order they are celebrated, whichever celebration brought them (the
        # morning's Chrism Mass before the evening Mass of the Lord's Supper).
        masses.sort(key=lambda m: _mass_rank(m.mass))
        return masses

    def _memorial(
        self, day: Day, celebration: Celebration, cycles: tuple[str, str]
    ) -> MemorialReadings:
        masses = tuple(self._masses(celebration.id, cycles))
        if masses:
            return MemorialReadings(celebration=celebration, masses=masses)
        titles = {*celebration.titles, *(t for p in celebration.people for t in p.titles)}
        found = self.pointers.get(celebration.id) or commons_by_titles(celebration.id, titles)
        return MemorialReadings(celebration=celebration, masses=(), commons=found)

    def _common(self, common: str, day: Day, cycles: tuple[str, str]) -> MassReadings | None:
        """A common's options; in Easter Time its first readings are the New Testament ones."""
        found = self.lectionary.lookup(common, cycles)  # type: ignore[arg-type]
        if found is None:
            return None
        if day.season == "easter_time":
            easter = self.lectionary.lookup(common, cycles, "easter_time")  # type: ignore[arg-type]
            if easter is not None:
                first = {r.slot for r in easter.readings}
                kept = [r for r in found.readings if r.slot not in first]
                readings = mass_order(easter.readings, kept)
                found = found.model_copy(update={"readings": readings})
        return found.model_copy(update={"title": COMMON_NAMES.get(common, common)})

    def _christmas_eve(self, day: Day) -> list[OtherCelebration]:
        """On 24 December, the Vigil Mass of the Nativity said that evening: what people
        ask for as "Christmas Eve" (the day's own Mass is the morning's)."""
        if (day.date.month, day.date.day) != (12, 24):
            return []
        christmas = self.calendar.day(day.date + timedelta(days=1))
        cycles = (christmas.sunday_cycle, christmas.weekday_cycle)
        vigil = self.lectionary.lookup(christmas.principal.id, cycles, "previous_evening_mass")
        if vigil is None:
            return []
        principal = christmas.principal
        name = f"{principal.name} ({principal.rank_name})"
        return [OtherCelebration(label="In the evening", name=name, masses=(vigil,))]

    def _transferred(self, day: Day) -> list[OtherCelebration]:
        """The Ascension's two days, where provinces differ: the other rule's celebration."""
        provinces = PROVINCIAL_ASCENSION.get(self.calendar.calendar)
        easter = self.calendar.dates_of("easter_sunday", day.date.year)
        if provinces is None or not easter:
            return []
        thursday, sunday = easter[0] + timedelta(days=39), easter[0] + timedelta(days=42)
        if day.date not in (thursday, sunday):
            return []
        other_day = self._other_calendar().day(day.date)
        other_keeps_thursday = self.calendar.ascension_on_sunday
        where = provinces[0] if other_keeps_thursday else provinces[1]
        kept = "Thursday" if other_keeps_thursday else "the Seventh Sunday of Easter"
        return [
            OtherCelebration(
                label=f"Where the Ascension is kept on {kept} ({where})",
                name=f"{other_day.principal.name} ({other_day.principal.rank_name})",
                masses=tuple(self._day_masses(other_day)),
            )
        ]

    def _other_calendar(self) -> LiturgicalCalendar:
        """The same calendar with the Ascension on its other day (built once)."""
        if self._other_rule is None:
            self._other_rule = LiturgicalCalendar(
                self.calendar.calendar,
                self.calendar.locale,
                ascension_on_sunday=not self.calendar.ascension_on_sunday,
            )
        return self._other_rule

    def _proper_masses(self, day: Day) -> list[OtherCelebration]:
        """The US proper Masses a parish may say: Thanksgiving Day, Independence Day."""
        if self.calendar.calendar != "united_states":
            return []
        if day.principal.rank not in PROPER_MASS_RANKS:
            return []
        when = day.date
        cycles = (day.sunday_cycle, day.weekday_cycle)
        label = "Proper Mass for the United States"
        if when.month == 11 and 22 <= when.day <= 28 and when.weekday() == 3:
            masses = tuple(self._masses("thanksgiving_day", cycles))
            return [
                OtherCelebration(
                    label=label, name="Thanksgiving Day", masses=masses, note=THANKSGIVING_NOTE
                )
            ]
        if (when.month, when.day) == (7, 4):
            masses = tuple(self._masses("independence_day", cycles))
            return [
                OtherCelebration(
                    label=label, name="Independence Day", masses=masses, note=INDEPENDENCE_NOTE
                )
            ]
        return []

    def _lectionary_day(self, day: Day, celebration: Celebration) -> str:
        """A memorial's Mass takes the weekday's readings; its propers are listed apart."""
        if celebration.rank in {"memorial", "optional_memorial"}:
            return day.temporal_id
        return celebration.id

    def _masses(self, day_id: str, cycles: tuple[str, str]) -> list[MassReadings]:
        found: list[MassReadings] = []
        names = self.lectionary.masses_of(day_id)
        for mass in sorted(names, key=_mass_rank):
            readings = self.lectionary.lookup(day_id, cycles, mass)  # type: ignore[arg-type]
            if readings is not None and readings.readings:
                found.append(readings)
        return found


def _mass_rank(mass: str) -> int:
    """A Mass's place in the day (``MASS_ORDER``); unknown Masses come last."""
    return MASS_ORDER.index(mass) if mass in MASS_ORDER else len(MASS_ORDER)
