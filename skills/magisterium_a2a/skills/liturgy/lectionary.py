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

# Where each kind sits in a Mass (see ``mass_order``): the gospel at the procession with
# palms, the readings 1-7 each followed by its psalm, the epistle (8, at the Easter Vigil)
# and its psalm, then the sequence, the acclamation and the Gospel.
EPISTLE_PLACE = 8
KIND_PLACE: dict[str, int] = {
    "procession_gospel": 0,
    "epistle": EPISTLE_PLACE,
    "sequence": 9,
    "alleluia": 10,
    "gospel": 11,
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


def mass_order(*groups: Sequence[Reading]) -> tuple[Reading, ...]:
    """The readings of one Mass in the order they are proclaimed.

    Each group is one table entry's readings, in the entry's own order. A reading's
    place is fixed by its kind and number alone, except a responsorial psalm's, which
    follows the reading it answers: the last reading or epistle before it in its own
    entry (the first reading when the entry has none). Places are therefore never
    taken from the order in which layered entries were merged, which let a cycle's
    "Second reading" print before the shared "First reading"."""
    placed: list[tuple[tuple[int, int], int, Reading]] = []
    for group in groups:
        answered = 1
        for reading in group:
            if reading.kind == "reading":
                answered = reading.number or 1
                place = (answered, 0)
            elif reading.kind == "psalm":
                place = (answered, 1)
            else:
                place = (KIND_PLACE[reading.kind], 0)
                if reading.kind == "epistle":
                    answered = EPISTLE_PLACE
            placed.append((place, len(placed), reading))
    return tuple(reading for _, _, reading in sorted(placed, key=lambda item: item[:2]))


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
        chosen: list[list[Reading]] = []
        taken: set[tuple[str, int | None]] = set()
        sources: list[str] = []
        for source, entry in layers:
            fresh = [r for r in entry.readings if r.slot not in taken]
            if not fresh:
                continue
            chosen.append(fresh)
            taken.update(r.slot for r in fresh)
            if source not in sources:
                sources.append(source)
        return MassReadings(
            day=day,
            mass=mass,
            title=MASS_TITLES.get(mass, mass.replace("_", " ").capitalize()),
            readings=mass_order(*chosen),
            sources=tuple(sources),
        )
