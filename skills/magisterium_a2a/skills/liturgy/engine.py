"""The liturgy engine shared by the three calendar skills: the calendar, the
date parser, the layered lectionary and the imported martyrologies, built once
per server (``env.shared``). Imported data lives under
``<data_dir>/liturgy/`` (``lectionary/*.json``, ``martyrology/*.json``).
"""

from __future__ import annotations

import re
from datetime import date, datetime
from importlib.resources import files
from pathlib import Path
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict

from magisterium_a2a.plugin import Clock
from magisterium_a2a.skills.liturgy.calendar import Celebration, Day, LiturgicalCalendar
from magisterium_a2a.skills.liturgy.dates import DateQueryParser
from magisterium_a2a.skills.liturgy.lectionary import Lectionary, MassReadings, Table
from magisterium_a2a.skills.liturgy.lectionary_format import parse_text
from magisterium_a2a.skills.liturgy.martyrology import Martyrology
from magisterium_a2a.skills.liturgy.settings import LiturgySettings

BUILTIN_NAME = "built-in"
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
SAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]+")


class DayReadings(BaseModel):
    """What ``liturgical_readings`` answers for one date."""

    model_config = ConfigDict(frozen=True)

    day: Day
    masses: tuple[MassReadings, ...]
    memorials: tuple[tuple[Celebration, tuple[MassReadings, ...]], ...]

    @property
    def complete(self) -> bool:
        if not self.masses:
            return False
        principal = self.day.principal
        octave = principal.precedence.startswith("weekday_of_easter_octave")
        weighty = self.day.date.weekday() == 6 or (principal.rank == "solemnity" and not octave)
        return all(m.complete(weighty and m.mass != "easter_vigil") for m in self.masses)


def builtin_table() -> Table:
    text = (
        files("magisterium_a2a.skills").joinpath("data/lectionary.txt").read_text(encoding="utf-8")
    )
    return parse_text(text, BUILTIN_NAME)


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
        self.calendar = LiturgicalCalendar(settings.liturgy_calendar, settings.liturgy_locale)
        self.parser = DateQueryParser(self.calendar)
        self.lectionary = Lectionary([builtin_table(), *self._imported_tables()])
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
        return self.parser.parse(query, self.today(clock))

    def readings(self, when: date) -> DayReadings:
        day = self.calendar.day(when)
        cycles = (day.sunday_cycle, day.weekday_cycle)
        masses: list[MassReadings] = []
        for celebration in day.celebrations:
            if celebration.optional:
                continue
            masses.extend(self._masses(self._lectionary_day(day, celebration), cycles))
        if day.temporal_id == "holy_saturday":
            vigil = self.lectionary.lookup("easter_sunday", cycles, "easter_vigil")
            if vigil is not None:
                masses.append(vigil)
        memorials = tuple(
            (celebration, tuple(self._masses(celebration.id, cycles)))
            for celebration in day.celebrations
            if celebration.rank in {"memorial", "optional_memorial"}
        )
        return DayReadings(day=day, masses=tuple(masses), memorials=memorials)

    def _lectionary_day(self, day: Day, celebration: Celebration) -> str:
        """A memorial's Mass takes the weekday's readings; its propers are listed apart."""
        if celebration.rank in {"memorial", "optional_memorial"}:
            return day.temporal_id
        return celebration.id

    def _masses(self, day_id: str, cycles: tuple[str, str]) -> list[MassReadings]:
        found: list[MassReadings] = []
        names = self.lectionary.masses_of(day_id)
        for mass in sorted(names, key=lambda m: MASS_ORDER.index(m) if m in MASS_ORDER else 99):
            readings = self.lectionary.lookup(day_id, cycles, mass)  # type: ignore[arg-type]
            if readings is not None and readings.readings:
                found.append(readings)
        return found
