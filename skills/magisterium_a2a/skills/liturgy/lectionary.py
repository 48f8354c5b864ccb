"""The lectionary: the readings of each Mass, keyed by liturgical day and cycle.

A day is a romcal id (``advent_1_sunday``, ``ordinary_time_15_tuesday``,
``joseph_spouse_of_mary``); a cycle is ``A``/``B``/``C`` (Sundays and some
solemnities), ``I``/``II`` (weekday first readings and psalms), or empty for
what every year shares. Each entry holds one Mass (``day_mass``, or romcal's
other Mass keys: ``previous_evening_mass``, ``night_mass``, ``mass_at_dawn``,
``easter_vigil``, ``chrism_mass``, ...). Several tables are layered: the
built-in one first, then imported ones, each only filling the readings the
earlier ones lack. Citations use US Lectionary (NABRE) numbering.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

ReadingKind = Literal[
    "procession_gospel", "reading", "psalm", "epistle", "sequence", "alleluia", "gospel"
]
Cycle = Literal["", "A", "B", "C", "I", "II"]
CYCLES: tuple[Cycle, ...] = ("", "A", "B", "C", "I", "II")

# Where a kind sits in a Mass; readings, psalms and the epistle keep their order.
KIND_RANK: dict[str, int] = {
    "procession_gospel": 0,
    "reading": 1,
    "psalm": 1,
    "epistle": 1,
    "sequence": 2,
    "alleluia": 3,
    "gospel": 4,
}
MASS_TITLES: dict[str, str] = {
    "day_mass": "Mass during the Day",
    "previous_evening_mass": "Vigil Mass",
    "night_mass": "Mass during the Night",
    "mass_at_dawn": "Mass at Dawn",
    "morning_mass": "Morning Mass",
    "easter_vigil": "Easter Vigil in the Holy Night",
    "chrism_mass": "Chrism Mass",
    "evening_mass_of_the_lords_supper": "Evening Mass of the Lord's Supper",
    "celebration_of_the_passion": "Celebration of the Passion of the Lord",
    "mass_of_the_passion": "Mass",
}
ORDINAL_NAMES = ("First", "Second", "Third", "Fourth", "Fifth", "Sixth", "Seventh")


class Reading(BaseModel):
    """One slot of a Mass with its citation, alternatives and shorter form."""

    model_config = ConfigDict(frozen=True)

    kind: ReadingKind
    number: int | None = Field(None, ge=1, le=7, description="1-7 for kind 'reading'")
    citation: str = Field(min_length=1)
    alternatives: tuple[str, ...] = ()
    shorter: str | None = None

    @property
    def slot(self) -> tuple[str, int | None]:
        return (self.kind, self.number if self.kind == "reading" else None)

    @property
    def label(self) -> str:
        if self.kind == "reading":
            number = self.number or 1
            return f"{ORDINAL_NAMES[number - 1]} reading"
        return {
            "procession_gospel": "Gospel at the procession with palms",
            "psalm": "Responsorial psalm",
            "epistle": "Epistle",
            "sequence": "Sequence",
            "alleluia": "Alleluia / Verse before the Gospel",
            "gospel": "Gospel",
        }[self.kind]


class LectionaryEntry(BaseModel):
    """The readings one table gives a (day, cycle, Mass)."""

    model_config = ConfigDict(frozen=True)

    day: str = Field(min_length=1, description="romcal celebration id")
    cycle: Cycle = ""
    mass: str = "day_mass"
    number: str | None = Field(None, description="US Lectionary number")
    readings: tuple[Reading, ...]


class Table(BaseModel):
    """A named lectionary table (the built-in one, or one import)."""

    name: str
    entries: list[LectionaryEntry]


class MassReadings(BaseModel):
    """The resolved readings of one Mass, in order."""

    mass: str
    title: str
    readings: tuple[Reading, ...]
    sources: tuple[str, ...]
    day: str = ""
    """The lectionary day (romcal id) the readings were found under."""

    def complete(self, needs_second_reading: bool) -> bool:
        slots = {r.slot for r in self.readings}
        has = {("reading", 1), ("psalm", None), ("gospel", None)} <= slots
        if not has:
            return False
        return not needs_second_reading or ("reading", 2) in slots or ("epistle", None) in slots


class Lectionary:
    """Layered tables, looked up by day, cycles and Mass."""

    def __init__(self, tables: Iterable[Table] = ()) -> None:
        self.tables: list[Table] = []
        self._index: dict[tuple[str, str, str], list[tuple[str, LectionaryEntry]]] = {}
        self._masses: dict[str, list[str]] = {}
        for table in tables:
            self.add(table)

    def add(self, table: Table) -> None:
        self.tables.append(table)
        for entry in table.entries:
            key = (entry.day, entry.cycle, entry.mass)
            self._index.setdefault(key, []).append((table.name, entry))
            masses = self._masses.setdefault(entry.day, [])
            if entry.mass not in masses:
                masses.append(entry.mass)

    def masses_of(self, day: str) -> list[str]:
        return list(self._masses.get(day, ()))

    def knows(self, day: str) -> bool:
        return day in self._masses

    def lookup(
        self, day: str, cycles: Sequence[Cycle], mass: str = "day_mass"
    ) -> MassReadings | None:
        """The readings of ``day``'s ``mass`` for the given cycles (most specific first)."""
        layers: list[tuple[str, LectionaryEntry]] = []
        for cycle in [*cycles, ""]:
            layers.extend(self._index.get((day, cycle, mass), ()))
        if not layers:
            return None
        # Tables in order of precedence; within a table, cycle-specific before common.
        order = {table.name: i for i, table in enumerate(self.tables)}
        layers.sort(key=lambda item: order[item[0]])
        chosen: list[Reading] = []
        taken: set[tuple[str, int | None]] = set()
        sources: list[str] = []
        for source, entry in layers:
            fresh = [r for r in entry.readings if r.slot not in taken]
            if not fresh:
                continue
            chosen.extend(fresh)
            taken.update(r.slot for r in fresh)
            if source not in sources:
                sources.append(source)
        chosen.sort(key=lambda r: KIND_RANK[r.kind])
        return MassReadings(
            day=day,
            mass=mass,
            title=MASS_TITLES.get(mass, mass.replace("_", " ").capitalize()),
            readings=tuple(chosen),
            sources=tuple(sources),
        )
