"""The two imports behind ``magisterium-a2a content import dioceses`` and
``... diocese-statistics``: read a file, keep its good lines, write them in one
transaction. Bad lines are reported with their numbers and left out."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from magisterium_a2a.skills.dioceses.directory import Directory, builtin_dioceses
from magisterium_a2a.skills.dioceses.formats import (
    FormatError,
    LineError,
    read_directory,
    read_statistics,
)
from magisterium_a2a.skills.dioceses.store import (
    Reader,
    put_dioceses,
    put_financials,
    put_statistics,
    writing,
)


@dataclass(frozen=True, slots=True)
class ImportReport:
    imported: int  # jurisdictions, or diocese-years
    merged: int  # jurisdictions completed (Wikidata), or financial values
    errors: list[LineError]


def current_directory(data_dir: Path) -> Directory:
    return Directory([*builtin_dioceses(), *Reader(data_dir).dioceses()])


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise FormatError("the file is not UTF-8 text") from None
    except OSError as exc:
        raise FormatError(f"cannot read it: {exc.strerror or exc}") from None


def import_directory(data_dir: Path, path: Path) -> ImportReport:
    batch = read_directory(_read(path), path.suffix, current_directory(data_dir))
    with writing(data_dir) as db:
        put_dioceses(db, batch.dioceses)
    return ImportReport(len(batch.dioceses) - batch.merged, batch.merged, batch.errors)


def import_statistics(data_dir: Path, path: Path, diocese: str | None = None) -> ImportReport:
    try:
        batch = read_statistics(_read(path), current_directory(data_dir), diocese)
    except ValueError as exc:  # an unknown --diocese
        if isinstance(exc, FormatError):
            raise
        raise FormatError(f"--diocese: {exc}") from None
    with writing(data_dir) as db:
        put_statistics(db, batch.statistics)
        put_financials(db, batch.financials)
    return ImportReport(len(batch.years), len(batch.financials), batch.errors)
