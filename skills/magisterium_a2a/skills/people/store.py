"""Imported clergy on disk: ``<data_dir>/people/clergy.json``, one file in our
own JSON format, replaced whole on every import.

An import reads and checks the whole input first, merges it with what is
already there (same Wikidata item, else same id: the newer record replaces the
older, so importing a file twice adds nothing), writes the result to a
temporary file beside the target and renames it over the target. A rename is
atomic, so an import that stops half-way leaves the previous file as it was.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from magisterium_a2a.skills.people.clergy import (
    ClergyImportError,
    Parsed,
    Person,
    RowError,
    parse_csv,
    parse_json,
)

FILE_NAME = "clergy.json"


def clergy_file(data_dir: Path) -> Path:
    return data_dir / "people" / FILE_NAME


@dataclass
class ImportReport:
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    errors: list[RowError] = field(default_factory=list)
    target: Path | None = None


def read_imported(data_dir: Path) -> list[Person]:
    path = clergy_file(data_dir)
    if not path.is_file():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return [Person.model_validate(record) for record in data["people"]]
    except (ValueError, KeyError, TypeError) as exc:
        raise ClergyImportError(f"{path} is damaged ({exc}); import the clergy again") from None


def parse_file(path: Path, *, as_of: str | None = None) -> Parsed:
    """Read a clergy file by its suffix: ``.json`` (SPARQL JSON or ours) or ``.csv``."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise ClergyImportError(f"{path} is not UTF-8 text") from None
    suffix = path.suffix.lower()
    if suffix == ".json":
        return parse_json(text, as_of=as_of)
    if suffix == ".csv":
        return parse_csv(text, as_of=as_of)
    raise ClergyImportError(f"unknown clergy format {suffix!r} (use .json or .csv)")


def import_clergy(data_dir: Path, path: Path, *, as_of: str | None = None) -> ImportReport:
    """Merge the good rows of ``path`` into the imported clergy; report the bad ones."""
    parsed = parse_file(path, as_of=as_of)
    report = ImportReport(errors=parsed.errors, target=clergy_file(data_dir))
    people = {person.key: person for person in read_imported(data_dir)}
    ids = {person.id: person.key for person in people.values()}
    for person in parsed.people:
        old = people.get(person.key)
        if old is None and ids.get(person.id, person.key) != person.key:
            person = person.model_copy(update={"id": f"{person.id}-{person.key.lower()}"})
        if old is None:
            report.added += 1
        elif old == person:
            report.unchanged += 1
        else:
            report.updated += 1
        people[person.key] = person
        ids[person.id] = person.key
    if report.added or report.updated:
        write_atomically(report.target or clergy_file(data_dir), list(people.values()))
    return report


def write_atomically(target: Path, people: list[Person]) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write('{"people": [\n')
            for index, person in enumerate(people):
                out.write(("," if index else "") + person.model_dump_json(exclude_defaults=True))
                out.write("\n")
            out.write("]}\n")
            out.flush()
            os.fsync(out.fileno())
        Path(temporary).chmod(0o644)
        Path(temporary).replace(target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
