"""The Roman Martyrology: the built-in names of every day, imported data sets of
the day's eulogies, and the importers for the three public formats we know.

The built-in table (``data/martyrology.txt``, generated from the CRMEDR registry
by ``build_martyrology``) names the saints and blesseds of the 2004 edition and
those that only earlier editions placed on a day; it holds no eulogy text.
Leap years follow each edition's rule: the 2004 edition reads the entries of
29 February on 28 February when a year has no 29 February; the earlier editions
doubled 24 February, so from 25 to 29 February of a leap year they read the
entries of the day before, and on 24 February none but the vigil of Saint Matthias.

- CRMEDR id registry (``martyrology_ids.json`` + ``i18n/en.json``): the 2004
  edition's order and subject names, no eulogy text;
- the 1914 English edition (``01.json``..``12.json``: day -> titulus, elogia);
- Divinum Officium's Bute translation (``MM-DD.txt``: a heading line, then one
  eulogy per line; ``Mobile.txt`` holds movable notices and is left out).
"""

from __future__ import annotations

import calendar
import json
import re
from datetime import date
from functools import cache
from importlib.resources import files
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError


class MartyrologyEntry(BaseModel):
    model_config = ConfigDict(frozen=True)

    month: int = Field(ge=1, le=12)
    day: int = Field(ge=1, le=31)
    order: int = Field(ge=1)
    id: str | None = None
    name: str | None = None
    text: str | None = None
    title: str | None = None
    place: str | None = None


class Martyrology(BaseModel):
    """One imported edition, entries in day order."""

    name: str
    title: str
    entries: list[MartyrologyEntry]

    def of_day(self, month: int, day: int) -> list[MartyrologyEntry]:
        found = [e for e in self.entries if e.month == month and e.day == day]
        return sorted(found, key=lambda e: e.order)


class NamedEntry(BaseModel):
    """One line of the built-in table: a saint, blessed or feast of a day, by name."""

    model_config = ConfigDict(frozen=True)

    month: int
    day: int
    order: int
    id: str
    current: bool
    common_years_only: bool
    title: str | None
    place: str | None
    name: str


class BuiltinMartyrology:
    """The names of every day, from the built-in table, looked up by date."""

    def __init__(self, entries: list[NamedEntry]) -> None:
        self._days: dict[tuple[int, int, bool], list[NamedEntry]] = {}
        for entry in entries:
            self._days.setdefault((entry.month, entry.day, entry.current), []).append(entry)
        self.size = len(entries)

    def current(self, when: date) -> list[NamedEntry]:
        """The 2004 edition's entries of the date, in order."""
        leap = calendar.isleap(when.year)
        found = self._days.get((when.month, when.day, True), [])
        return [e for e in found if not (leap and e.common_years_only)]

    def earlier(self, when: date) -> list[NamedEntry]:
        """Entries earlier editions placed on the date and the 2004 edition does not keep."""
        month, day = when.month, when.day
        if month == 2 and calendar.isleap(when.year) and day >= 24:
            if day == 24:
                return []
            day -= 1
        return list(self._days.get((month, day, False), []))

    def entries(self) -> list[NamedEntry]:
        return [e for day in self._days.values() for e in day]


def parse_names(text: str) -> list[NamedEntry]:
    """Read the built-in table (comment lines, a header row, then tab-separated rows)."""
    entries: list[NamedEntry] = []
    lines = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
    for line in lines[1:]:
        when, order, ident, edition, years, title, place, name = line.split("\t")
        month, day = (int(part) for part in when.split("-"))
        entries.append(
            NamedEntry(
                month=month,
                day=day,
                order=int(order),
                id=ident,
                current=edition == "2004",
                common_years_only=years == "common",
                title=None if title == "-" else title,
                place=None if place == "-" else place,
                name=name,
            )
        )
    return entries


@cache
def builtin_martyrology() -> BuiltinMartyrology:
    data = files("magisterium_a2a.skills").joinpath("data/martyrology.txt")
    return BuiltinMartyrology(parse_names(data.read_text(encoding="utf-8")))


class MartyrologyImportError(ValueError):
    """The path holds none of the known martyrology formats."""


def import_martyrology(path: Path) -> Martyrology:
    """Read whichever of the three formats ``path`` (a file or folder) holds."""
    folder = path if path.is_dir() else path.parent
    try:
        if (folder / "martyrology_ids.json").is_file():
            return _crmedr(folder)
        if (folder / "01.json").is_file():
            return _edition_1914(folder)
        texts = folder / "Martyrologium" if (folder / "Martyrologium").is_dir() else folder
        if (texts / "01-01.txt").is_file():
            return _divinum_officium(texts)
    except (OSError, ValueError, KeyError, TypeError, ValidationError) as exc:
        raise MartyrologyImportError(f"{path}: unreadable martyrology data: {exc}") from None
    raise MartyrologyImportError(
        f"{path}: not a martyrology data set (expected martyrology_ids.json, 01.json..12.json, "
        "or MM-DD.txt files)"
    )


def _crmedr(folder: Path) -> Martyrology:
    registry = json.loads((folder / "martyrology_ids.json").read_text(encoding="utf-8"))
    names_file = folder / "i18n" / "en.json"
    names = json.loads(names_file.read_text(encoding="utf-8")) if names_file.is_file() else {}
    entries = [
        MartyrologyEntry(
            month=item["month"],
            day=item["day"],
            order=item["entry"],
            id=item["id"],
            name=names.get(item["id"]),
        )
        for item in registry["entries"]
        if not item.get("deprecated") and isinstance(item.get("entry"), int)
    ]
    return Martyrology(
        name="crmedr", title="Roman Martyrology (2004 edition, CRMEDR registry)", entries=entries
    )


def _edition_1914(folder: Path) -> Martyrology:
    entries: list[MartyrologyEntry] = []
    for month in range(1, 13):
        data = json.loads((folder / f"{month:02d}.json").read_text(encoding="utf-8"))
        for day, content in data.items():
            for order, (ident, text) in enumerate(content["elogia"].items(), 1):
                entries.append(
                    MartyrologyEntry(
                        month=month, day=int(day), order=order, id=ident, text=str(text).strip()
                    )
                )
    return Martyrology(
        name="1914-en", title="Roman Martyrology (1914 edition, English)", entries=entries
    )


HEADING = re.compile(r"^(Upon the|On the) .*(day of|of the month)", re.IGNORECASE)
DAY_FILE = re.compile(r"^(\d\d)-(\d\d)\.txt$")


def _divinum_officium(folder: Path) -> Martyrology:
    entries: list[MartyrologyEntry] = []
    for file in sorted(folder.iterdir()):
        match = DAY_FILE.match(file.name)
        if not match:
            continue
        month, day = int(match.group(1)), int(match.group(2))
        lines = [ln.strip() for ln in file.read_text(encoding="utf-8").splitlines()]
        start = next((i + 1 for i, ln in enumerate(lines) if HEADING.match(ln)), 0)
        order = 0
        for line in lines[start:]:
            if not line or line == "_" or line.startswith("["):
                continue
            order += 1
            entries.append(MartyrologyEntry(month=month, day=day, order=order, text=line))
    return Martyrology(
        name="divinum-officium-en",
        title="Roman Martyrology (1749 edition, Bute's English translation)",
        entries=entries,
    )
