"""Agreement of the built-in lectionary with the Tamil Lectionary table, by day class.

For every date of 2026-2028 on the US calendar, each Mass the built-in lectionary
gives (a fresh data directory: the team's table and the table derived from the
Tamil dump) is compared, slot by slot (first reading, psalm, second reading,
gospel), with what the Tamil table alone gives the same day, cycle and Mass after
its verse numbers are converted to the US Lectionary's. "Same passage" means the
same book, chapter and first verse (what the issue measured); "same citation"
means the same text. Usage: python bench/lectionary_agreement.py DUMP.sql
"""

from __future__ import annotations

import sys
import tempfile
from collections import Counter, defaultdict
from datetime import date, timedelta
from pathlib import Path

from magisterium_a2a.skills.liturgy.calendar import Day
from magisterium_a2a.skills.liturgy.engine import LiturgyEngine
from magisterium_a2a.skills.liturgy.lectionary import Cycle, Lectionary, MassReadings, Reading
from magisterium_a2a.skills.liturgy.lectionary_build import citation_key
from magisterium_a2a.skills.liturgy.settings import LiturgySettings
from magisterium_a2a.skills.liturgy.tamil import celebration_names, parse_dump

SLOTS = {("reading", 1): "R1", ("psalm", None): "PS", ("reading", 2): "R2", ("gospel", None): "GO"}
CLASSES = (
    "Sundays",
    "Solemnities",
    "Feasts",
    "Advent and Christmas weekdays",
    "Lent and Holy Week weekdays",
    "Easter weekdays",
    "Ordinary Time weekdays",
)


def day_class(day: Day) -> str:
    rank = day.principal.rank
    if day.date.weekday() == 6 or rank == "sunday":
        return "Sundays"
    if rank == "solemnity":
        return "Solemnities"
    if rank == "feast":
        return "Feasts"
    season = day.season or ""
    if season in {"advent", "christmas_time"}:
        return "Advent and Christmas weekdays"
    if season in {"lent", "paschal_triduum"}:
        return "Lent and Holy Week weekdays"
    if season == "easter_time":
        return "Easter weekdays"
    return "Ordinary Time weekdays"


class Tally:
    """Counts by day class, the slots the Tamil table lacks, and the differing slots."""

    def __init__(self) -> None:
        self.by_class: dict[str, Counter[str]] = defaultdict(Counter)
        self.absent: Counter[tuple[str, str, str]] = Counter()
        self.differ: dict[tuple[str, str, str], tuple[str, str, set[date]]] = {}

    def compare(
        self, when: date, cls: str, mass: MassReadings, theirs: MassReadings | None
    ) -> None:
        # A slot can repeat (the Vigil's psalms): pair the n-th of ours with the n-th of theirs.
        their_slots: dict[tuple[str, int | None], list[Reading]] = defaultdict(list)
        for candidate in theirs.readings if theirs else ():
            their_slots[candidate.slot].append(candidate)
        seen: Counter[tuple[str, int | None]] = Counter()
        counts = self.by_class[cls]
        for reading in mass.readings:
            if reading.slot not in SLOTS:
                continue
            index = seen[reading.slot]
            seen[reading.slot] += 1
            candidates = their_slots.get(reading.slot, [])
            counts["compared"] += 1
            if index >= len(candidates):
                counts["absent"] += 1
                self.absent[(mass.day, mass.mass, SLOTS[reading.slot])] += 1
                continue
            other = candidates[index]
            ours = {citation_key(c) for c in (reading.citation, *reading.alternatives)}
            if citation_key(other.citation) in ours:
                counts["passage"] += 1
                counts["citation"] += other.citation == reading.citation
                continue
            label = mass.day + (f" @{mass.mass}" if mass.mass != "day_mass" else "")
            key = (label, SLOTS[reading.slot], reading.citation)
            self.differ.setdefault(key, (reading.citation, other.citation, set()))[2].add(when)


def main() -> None:
    dump = Path(sys.argv[1]).read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as fresh:
        settings = LiturgySettings(_env_file=None, data_dir=Path(fresh))
        engine = LiturgyEngine(settings)
    tamil_table, _ = parse_dump(dump, celebration_names(engine.calendar))
    tamil = Lectionary([tamil_table])
    tally = Tally()
    when = date(2026, 1, 1)
    while when <= date(2028, 12, 31):
        found = engine.readings(when)
        cycles: tuple[Cycle, Cycle] = (found.day.sunday_cycle, found.day.weekday_cycle)
        for mass in found.masses:
            theirs = tamil.lookup(mass.day, cycles, mass.mass)
            tally.compare(when, day_class(found.day), mass, theirs)
        when += timedelta(days=1)
    print("| day class | slots compared | same passage | same citation | Tamil has none |")
    print("| --- | --- | --- | --- | --- |")
    total: Counter[str] = Counter()
    for cls in CLASSES:
        total.update(tally.by_class[cls])
        print(_row(cls, tally.by_class[cls]))
    print(_row("all days", total))
    print()
    print("Slots the Tamil table does not give (day, Mass, slot: dates):")
    for (day, mass_name, slot), count in sorted(tally.absent.items()):
        print(f"- {day} ({mass_name}) {slot}: {count}")
    print()
    print("| day | slot | built-in (US) | Tamil, converted | dates |")
    print("| --- | --- | --- | --- | --- |")
    for (day, slot, _), (ours, other, dates) in sorted(tally.differ.items()):
        print(f"| {day} | {slot} | {ours} | {other} | {len(dates)} |")


def _row(name: str, c: Counter[str]) -> str:
    present = c["compared"] - c["absent"]
    passage = f"{c['passage']}/{present} ({100 * c['passage'] / max(present, 1):.1f}%)"
    citation = f"{c['citation']}/{present} ({100 * c['citation'] / max(present, 1):.1f}%)"
    return f"| {name} | {c['compared']} | {passage} | {citation} | {c['absent']} |"


if __name__ == "__main__":
    main()
