"""Build the derived built-in lectionary (``data/lectionary-derived.txt``) from
the public-domain Tamil Lectionary table.

The team's own table (``data/lectionary.txt``, US Lectionary for Mass) covers
the Sundays, solemnities, feasts and seasonal weekdays; what it lacks (the
Ordinary Time weekdays of both cycles, alleluia verses, the commons) is taken
from the Tamil dump with its RSV verse numbers converted to the US Lectionary's
(see ``tamil.py``). Anything the team's table already gives for a day is left
out: where the two disagree, the US Lectionary (the team's table) decides, and
the derived file lists those days in its header. Rerun after changing either::

    python -m magisterium_a2a.skills.liturgy.lectionary_build DUMP.sql [OUTPUT]

The output is deterministic (sorted), so a rerun on the same inputs changes nothing.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path

from magisterium_a2a.skills.liturgy.calendar import LiturgicalCalendar
from magisterium_a2a.skills.liturgy.lectionary import LectionaryEntry, Reading, Table
from magisterium_a2a.skills.liturgy.lectionary_format import CODES, parse_text
from magisterium_a2a.skills.liturgy.tamil import (
    ROW,
    celebration_names,
    convert_citation,
    parse_dump,
    resolver,
)

SOURCE = "https://github.com/jayarathina/Tamil-Catholic-Lectionary"
SOURCE_FILE = "MySQL/liturgy_lectionary_table_readings__list.sql"
SOURCE_COMMIT = "c6c9d79d0f56721f6cc17fb8370d089f0dcd5fd2"
OUTPUT = "lectionary-derived.txt"
# Tamil common keys -> our common ids.
TAMIL_COMMONS = {
    "_Church": "common_dedication_of_a_church",
    "_Mary": "common_blessed_virgin_mary",
    "_Martyr": "common_martyrs",
    "_Pastor": "common_pastors",
    "_Doctor": "common_doctors",
    "_Virgin": "common_virgins",
    "_Saint": "common_holy_men_and_women",
}
# Slot of each Tamil common type: 1 Old Testament, 2 New Testament (Easter Time),
# 3 psalm, 4 second (New Testament) reading, 5 alleluia, 6 gospel.
COMMON_TYPES = {1: "R1", 2: "R1", 3: "PS", 4: "R2", 5: "AL", 6: "GO"}
POINTER = re.compile(r"_(Church|Mary|Martyr|Pastor|Doctor|Virgin|Saint)\b")


@dataclass
class BuildReport:
    """What the build kept, left to the team's table, and could not place."""

    entries: int = 0
    readings: int = 0
    overridden: list[str] = field(default_factory=list)
    pointers: int = 0


def builtin_team_table() -> Table:
    package = files("magisterium_a2a.skills")
    text = package.joinpath("data/lectionary.txt").read_text(encoding="utf-8")
    return parse_text(text, "built-in")


def derive(
    dump: str, calendar: LiturgicalCalendar
) -> tuple[Table, dict[str, list[str]], BuildReport]:
    """The derived table (days and commons) and the memorials' commons."""
    names = celebration_names(calendar)
    tamil, _ = parse_dump(dump, names)
    team = builtin_team_table()
    report = BuildReport()
    pointers = memorial_commons(dump, resolver(names))
    report.pointers = len(pointers)
    proper_days = _proper_days(dump, pointers, names)
    entries = [*_missing(tamil, team, proper_days, report), *commons(dump)]
    entries.sort(key=lambda e: (_order(e.day), e.day, e.cycle, e.mass))
    report.entries = len(entries)
    report.readings = sum(len(e.readings) for e in entries)
    return Table(name="built-in", entries=entries), pointers, report


def _proper_days(dump: str, pointers: dict[str, list[str]], names: dict[str, str]) -> set[str]:
    """Days whose Tamil rows are a proper Mass (not readings picked from a common)."""
    tamil_days = {key for key, _, _ in ROW.findall(dump)}
    resolve = resolver(names)
    picked = {resolve(key) for key in tamil_days if not key.startswith(("_", "IN "))}
    return {day for day in picked if day and day not in pointers}


def _missing(
    tamil: Table, team: Table, proper_days: set[str], report: BuildReport
) -> Iterable[LectionaryEntry]:
    """Tamil entries, less every slot the team's table gives the same day.

    Sanctoral days come in only when the team's table has the day (to fill a slot it
    leaves empty, the alleluia verse mostly): the Tamil table also lists readings it
    picked from a common, which the US Lectionary does not make proper.
    """
    have: dict[tuple[str, str, str], dict[tuple[str, int | None], Reading]] = {}
    team_days = {entry.day for entry in team.entries}
    for entry in team.entries:
        slots = have.setdefault((entry.day, entry.cycle, entry.mass), {})
        slots.update({r.slot: r for r in entry.readings})
    for entry in tamil.entries:
        temporal = _order(entry.day) < SANCTORAL
        if not temporal and (entry.day not in proper_days or entry.day not in team_days):
            continue
        taken = {
            **have.get((entry.day, "", entry.mass), {}),
            **have.get((entry.day, entry.cycle, entry.mass), {}),
        }
        if entry.cycle == "":
            # A cycle-free Tamil slot is shadowed only when every cycle of the team has it.
            for cycles in (("A", "B", "C"), ("I", "II")):
                tables = [have.get((entry.day, c, entry.mass)) for c in cycles]
                if all(t is not None for t in tables):
                    common = set.intersection(*(set(t) for t in tables if t is not None))
                    taken.update({slot: tables[0][slot] for slot in common if tables[0]})
        for reading in entry.readings:
            ours = taken.get(reading.slot)
            if ours is not None and not agrees(ours, reading):
                label = f"{entry.day} {entry.cycle}".strip()
                report.overridden.append(
                    f"{label} {CODES[reading.slot]}: {ours.citation} (Tamil: {reading.citation})"
                )
        fresh = tuple(r for r in entry.readings if r.slot not in taken)
        if fresh:
            yield entry.model_copy(update={"readings": fresh})


CITATION_KEY = re.compile(
    r"^(?:cf\. )?(?P<book>(?:\d )?[A-Za-z]+) (?:(?P<chapter>\d+):)?(?P<verse>\d+)"
)


def citation_key(citation: str) -> tuple[str, int, int] | None:
    """(book, chapter, first verse): what two editions must share to cite one passage."""
    match = CITATION_KEY.match(citation.strip())
    if not match:
        return None
    return match["book"], int(match["chapter"] or 1), int(match["verse"])


def agrees(ours: Reading, theirs: Reading) -> bool:
    """Their citation is our reading, or one of its alternatives (by book, chapter, verse)."""
    keys = {citation_key(c) for c in (ours.citation, *ours.alternatives)}
    return citation_key(theirs.citation) in keys


def commons(dump: str) -> list[LectionaryEntry]:
    """The seven commons, each slot's options as alternatives; Easter Time apart."""
    options: dict[str, dict[str, list[tuple[int, str, bool]]]] = {}
    for key, type_text, ref in ROW.findall(dump):
        common = TAMIL_COMMONS.get(key)
        if common is None:
            continue
        kind = int(float(type_text))
        code = COMMON_TYPES.get(kind)
        citation = convert_citation(ref)
        if code is None or citation is None:
            continue
        digits = (type_text.split(".")[1] if "." in type_text else "").ljust(3, "0")
        number, shorter = int(digits[:2]), digits[2] == "1"
        slot = "EASTER" if kind == 2 else code
        options.setdefault(common, {}).setdefault(slot, []).append((number, citation, shorter))
    entries: list[LectionaryEntry] = []
    for common, slots in sorted(options.items()):
        readings = [_options(code, slots[code]) for code in ("R1", "PS", "R2", "AL", "GO")]
        entries.append(
            LectionaryEntry(day=common, readings=tuple(r for r in readings if r is not None))
        )
        easter = _options("R1", slots.get("EASTER", []))
        if easter is not None:
            entries.append(LectionaryEntry(day=common, mass="easter_time", readings=(easter,)))
    return entries


def _options(code: str, found: Sequence[tuple[int, str, bool]]) -> Reading | None:
    """One slot: the first option, the others as alternatives (shorter forms dropped
    when they shorten a later option: a slot has one shorter form)."""
    full = [citation for _, citation, shorter in sorted(found, key=lambda f: f[0]) if not shorter]
    if not full:
        return None
    first_number = min(number for number, _, shorter in found if not shorter)
    short = next((c for n, c, s in found if s and n == first_number), None)
    kind, number = _slot(code)
    return Reading(
        kind=kind,
        number=number,
        citation=full[0],
        alternatives=tuple(dict.fromkeys(full[1:])),
        shorter=short,
    )


def _slot(code: str) -> tuple[str, int | None]:
    return next(slot for slot, c in CODES.items() if c == code)


def memorial_commons(dump: str, resolve: Callable[[str], str | None]) -> dict[str, list[str]]:
    """Each sanctoral day's "take from the common" row -> our common ids."""
    found: dict[str, list[str]] = {}
    for key, type_text, ref in ROW.findall(dump):
        if int(float(type_text)) != 9 or key.startswith(("_", "IN ")):
            continue
        day = resolve(key)
        commons_named = [TAMIL_COMMONS[f"_{m}"] for m in POINTER.findall(ref)]
        if day and commons_named:
            found.setdefault(day, [])
            for common in commons_named:
                if common not in found[day]:
                    found[day].append(common)
    return dict(sorted(found.items()))


SANCTORAL = 100
TEMPORAL_ORDER = (
    (re.compile(r"^advent_"), 0),
    (re.compile(r"^(nativity_of_the_lord|christmas_|holy_family|mary_mother_of_god)"), 10),
    (re.compile(r"^(second_sunday_after_christmas|epiphany|\w+_after_epiphany|baptism)"), 11),
    (re.compile(r"^(ash_wednesday|\w+_after_ash_wednesday|lent_)"), 20),
    (re.compile(r"^(palm_sunday|holy_|thursday_of_the_lords|friday_of_the_passion)"), 30),
    (re.compile(r"^(easter_|divine_mercy|ascension|pentecost)"), 40),
    (re.compile(r"^(sunday_of_the_word|ordinary_time_|most_holy_|most_sacred|our_lord_jesus)"), 50),
)


def _order(day: str) -> int:
    """Temporal days in season order (below SANCTORAL), then sanctoral, then commons."""
    if day.startswith("common_"):
        return SANCTORAL + 1
    for pattern, rank in TEMPORAL_ORDER:
        if pattern.match(day):
            return rank
    return SANCTORAL


def render(table: Table, pointers: dict[str, list[str]], report: BuildReport) -> str:
    lines = [
        "# The derived part of the built-in lectionary of magisterium-a2a. GENERATED by",
        "# `python -m magisterium_a2a.skills.liturgy.lectionary_build DUMP.sql`: do not edit;",
        "# correct data/lectionary.txt (which takes precedence) or the build instead.",
        "#",
        "# Source: the Tamil Catholic Lectionary readings table,",
        f"#   {SOURCE} ({SOURCE_FILE},",
        f"#   commit {SOURCE_COMMIT}).",
        "# Licence: The Unlicense, a public domain dedication by its author. Only citations",
        "#   (facts) are taken; no text.",
        "# Conversion: Tamil book names to the US Lectionary's abbreviations; RSV-style verse",
        "#   numbers to the US Lectionary's (NABRE): psalm superscriptions counted as verses,",
        "#   the chapters the two traditions divide differently (Mal 3-4, Jl 2-4, Hos 1-2,",
        "#   Hos 11-14, Is 8-9, Is 63-64, Mi 4-5, Ex 21-22, Na 1-2, Zec 1-2, Jer 8-9, 1 Kgs 4-5,",
        "#   Jb 40-41, Eccl 4-5, Sg 6-7, Lv 5-6, Ez 20-21), the Greek parts of Daniel back into",
        "#   Dn 3, 13 and 14. Verse letters (a, b, c) follow the Tamil edition.",
        "# Precedence: data/lectionary.txt, written by the team from the Lectionary for Mass for",
        "#   Use in the Dioceses of the United States, is read first; a derived reading is used",
        "#   only for a slot it leaves empty. Where both give a slot the US Lectionary decides.",
        "#   The slots where the Tamil table cites another passage (book, chapter or first",
        "#   verse differ, and it is none of the US alternatives), US citation first:",
    ]
    lines += [f"#   {case}" for case in report.overridden] or ["#   (none)"]
    lines += [
        "# Commons: `common_*` days give every option of a slot (first listed, the others as",
        "#   'or'); `@easter_time` holds the first readings for Easter Time.",
        f"# {report.entries} entries, {report.readings} readings.",
        "",
    ]
    for entry in table.entries:
        header = f"== {entry.day}"
        if entry.cycle:
            header += f" {entry.cycle}"
        if entry.mass != "day_mass":
            header += f" @{entry.mass}"
        lines.append(header)
        for reading in entry.readings:
            lines.append(f"{CODES[reading.slot]} {reading.citation}")
            lines.extend(f"or {alternative}" for alternative in reading.alternatives)
            if reading.shorter:
                lines.append(f"short {reading.shorter}")
    lines.append("")
    return "\n".join(lines)


def render_pointers(pointers: dict[str, list[str]]) -> str:
    lines = [
        "# Memorials and the commons their Mass may be taken from. GENERATED with",
        "# lectionary-derived.txt from the same source. Format: `day_id: common_id",
        "# [common_id ...]`. Days not listed take the common their titles name (see",
        "# skills/liturgy/commons.py).",
        "#",
        f"# Source: the Tamil Catholic Lectionary, {SOURCE},",
        f"#   commit {SOURCE_COMMIT}.",
        "# Licence: The Unlicense, a public domain dedication by its author.",
        "",
    ]
    lines += [f"{day}: {' '.join(found)}" for day, found in pointers.items()]
    lines.append("")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    dump = Path(args[0]).read_text(encoding="utf-8")
    data = Path(str(files("magisterium_a2a.skills").joinpath("data")))
    output = Path(args[1]) if len(args) > 1 else data / OUTPUT
    calendar = LiturgicalCalendar("united_states", "en")
    table, pointers, report = derive(dump, calendar)
    output.write_text(render(table, pointers, report), encoding="utf-8")
    (output.parent / "memorial-commons.txt").write_text(render_pointers(pointers), encoding="utf-8")
    print(
        f"{report.entries} entries, {report.readings} readings, {report.pointers} memorials "
        f"with a common; {len(report.overridden)} days left to the team's table -> {output}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
