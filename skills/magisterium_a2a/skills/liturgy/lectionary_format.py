"""Our own open lectionary formats: the text format of the built-in table, a
flat CSV of the same lines, and JSON (the ``Table`` model).

Text format (UTF-8; ``#`` starts a comment line)::

    == advent_1_sunday A #1          day id, cycle (A/B/C/I/II, or none), #Lectionary number
    R1 Isa 2:1-5                     reading 1 (R1..R7 at the Easter Vigil)
    PS Ps 122:1-2, 3-4, 4-5, 6-7, 8-9
    R2 Rom 13:11-14
    AL Ps 85:8
    GO Matt 24:37-44
    or Matt 24:37-42                 an alternative to the line above
    short Matt 24:42-44              the shorter form of the line above

A header may name a Mass other than the day Mass with ``@``:
``== nativity_of_the_lord @night_mass #14``. Slot codes: ``PG`` gospel at the
procession with palms, ``R1``-``R7`` readings, ``PS`` responsorial psalm,
``EP`` epistle (Easter Vigil), ``SQ`` sequence, ``AL`` alleluia or verse before
the Gospel, ``GO`` gospel.

CSV format: a header row ``day,cycle,mass,number,slot,citation`` and one row
per line of the text format (``slot`` is a code above, or ``or``/``short``);
empty ``mass`` means ``day_mass``.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field

from pydantic import ValidationError

from magisterium_a2a.skills.liturgy.lectionary import CYCLES, Cycle, LectionaryEntry, Reading, Table

SLOTS: dict[str, tuple[str, int | None]] = {
    "PG": ("procession_gospel", None),
    **{f"R{n}": ("reading", n) for n in range(1, 8)},
    "PS": ("psalm", None),
    "EP": ("epistle", None),
    "SQ": ("sequence", None),
    "AL": ("alleluia", None),
    "GO": ("gospel", None),
}
CODES = {value: code for code, value in SLOTS.items()}
HEADER = re.compile(r"^==\s+(?P<day>[a-z0-9_]+)(?P<rest>(?:\s+\S+)*)\s*$")
CSV_COLUMNS = ("day", "cycle", "mass", "number", "slot", "citation")


class FormatError(ValueError):
    """A lectionary file that does not follow the format; the message says where."""


@dataclass
class _Builder:
    day: str
    cycle: Cycle = ""
    mass: str = "day_mass"
    number: str | None = None
    readings: list[dict[str, object]] = field(default_factory=list)

    def add(self, code: str, citation: str, where: str) -> None:
        citation = citation.strip()
        if not citation:
            raise FormatError(f"{where}: no citation after {code!r}")
        if code in {"or", "short"}:
            if not self.readings:
                raise FormatError(f"{where}: {code!r} before any reading")
            last = self.readings[-1]
            if code == "or":
                last["alternatives"] = (*last.get("alternatives", ()), citation)  # type: ignore[misc]
            else:
                last["shorter"] = citation
            return
        if code not in SLOTS:
            raise FormatError(f"{where}: unknown slot {code!r}")
        kind, number = SLOTS[code]
        self.readings.append({"kind": kind, "number": number, "citation": citation})

    def entry(self, where: str) -> LectionaryEntry:
        try:
            return LectionaryEntry(
                day=self.day,
                cycle=self.cycle,
                mass=self.mass,
                number=self.number,
                readings=tuple(Reading.model_validate(r) for r in self.readings),
            )
        except ValidationError as exc:
            raise FormatError(f"{where}: {exc.errors()[0]['msg']}") from None


def _header(line: str, where: str) -> _Builder:
    match = HEADER.match(line)
    if not match:
        raise FormatError(f"{where}: bad header {line!r}")
    builder = _Builder(day=match["day"])
    for token in match["rest"].split():
        if token.startswith("@"):
            builder.mass = token[1:]
        elif token.startswith("#"):
            builder.number = token[1:]
        elif token in CYCLES:
            builder.cycle = token
        else:
            raise FormatError(f"{where}: unknown header field {token!r}")
    return builder


def parse_text(text: str, name: str) -> Table:
    entries: list[LectionaryEntry] = []
    current: _Builder | None = None
    start = 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        where = f"{name}:{number}"
        if not line or line.startswith("#"):
            continue
        if line.startswith("=="):
            if current is not None:
                entries.append(current.entry(f"{name}:{start}"))
            current, start = _header(line, where), number
            continue
        if current is None:
            raise FormatError(f"{where}: a reading before any '==' header")
        code, _, citation = line.partition(" ")
        current.add(code, citation, where)
    if current is not None:
        entries.append(current.entry(f"{name}:{start}"))
    return Table(name=name, entries=entries)


def parse_csv(text: str, name: str) -> Table:
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in ("day", "slot", "citation") if c not in (reader.fieldnames or ())]
    if missing:
        raise FormatError(f"{name}: CSV header lacks {', '.join(missing)}")
    builders: dict[tuple[str, str, str], _Builder] = {}
    for row in reader:
        where = f"{name}:{reader.line_num}"
        cycle = (row.get("cycle") or "").strip()
        if cycle not in CYCLES:
            raise FormatError(f"{where}: unknown cycle {cycle!r}")
        key = ((row["day"] or "").strip(), cycle, (row.get("mass") or "").strip() or "day_mass")
        if not key[0]:
            raise FormatError(f"{where}: empty day")
        builder = builders.get(key)
        if builder is None:
            builder = builders[key] = _Builder(day=key[0], cycle=cycle, mass=key[2])
        if (row.get("number") or "").strip():
            builder.number = (row.get("number") or "").strip()
        builder.add((row["slot"] or "").strip(), row["citation"] or "", where)
    return Table(name=name, entries=[b.entry(name) for b in builders.values()])


def parse_json(text: str, name: str) -> Table:
    try:
        return Table.model_validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise FormatError(f"{name}: {where}: {first['msg']}") from None


def to_csv(table: Table) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for entry in table.entries:
        mass = "" if entry.mass == "day_mass" else entry.mass
        for reading in entry.readings:
            base = (entry.day, entry.cycle, mass, entry.number or "")
            writer.writerow((*base, CODES[reading.slot], reading.citation))
            for alternative in reading.alternatives:
                writer.writerow((*base, "or", alternative))
            if reading.shorter:
                writer.writerow((*base, "short", reading.shorter))
    return out.getvalue()
