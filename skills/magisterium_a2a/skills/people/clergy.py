"""Clergy records and their importers: a Wikidata SPARQL export (JSON or CSV)
and our own JSON format, read row by row so that one malformed row is reported
by its line and the others still imported.

Our JSON format is an object ``{"as_of"?, "source"?, "people": [record, ...]}``
(or a bare list of records); a record has ``name`` and any of the fields of
``Person``. A SPARQL export is recognised by its columns (see ``COLUMNS``).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from magisterium_a2a.skills.imports import URL, Text, Texts
from magisterium_a2a.skills.people.dates import DateFormatError, DateText, HistoricalDate
from magisterium_a2a.skills.people.matching import normalise

WIKIDATA_ID = re.compile(r"(?:^|/)(Q\d+)$")
ENTITY_COLUMNS = ("person", "item", "cardinal", "bishop", "priest", "human")
COLUMNS: dict[str, tuple[str, ...]] = {
    "born": ("birthDate", "dateOfBirth", "born"),
    "died": ("deathDate", "dateOfDeath", "died"),
    "birthplace": ("birthPlaceLabel", "placeOfBirthLabel", "birthplace"),
    "ordained_priest": ("priestStartTime", "ordinationDate", "ordained_priest"),
    "consecrated_bishop": ("bishopStartTime", "consecrationDate", "consecrated_bishop"),
    "created_cardinal": ("cardinalStartTime", "cardinalDate", "created_cardinal"),
    "cardinal_title": (
        "cardinalTypeInSampleLabel",
        "cardinalTypeSampleLabel",
        "cardinalTypeLabel",
        "cardinal_title",
    ),
    "position": ("positionLabel", "position"),
    "consecrated_by": ("consecratorLabel", "principalConsecratorLabel", "consecrated_by"),
    "education": ("educatedAtLabel", "education"),
    "image": ("image", "imageUrl"),
}
DATE_FIELDS = ("born", "died", "ordained_priest", "consecrated_bishop", "created_cardinal")
CardinalOrder = Literal["bishop", "priest", "deacon", "patriarch"]
"""The order of the College a cardinal belongs to (canon 350): bishops, priests,
deacons; an Eastern patriarch made cardinal is of the order of bishops."""


class Person(BaseModel):
    """One member of the clergy (or a pope, for the pointer to pope_lookup)."""

    model_config = ConfigDict(extra="forbid")

    # Bounded text, and an image only on a public http(s) host (``imports``).
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{0,99}$")
    name: Text = Field(min_length=1)
    kind: str = "clergy"
    wikidata: str | None = Field(default=None, pattern=r"^Q\d+$")
    born: DateText | None = None
    died: DateText | None = None
    birthplace: Text | None = None
    ordained_priest: DateText | None = None
    consecrated_bishop: DateText | None = None
    consecrated_by: Text | None = None
    created_cardinal: DateText | None = None
    cardinal_title: Text | None = None
    cardinal_order: CardinalOrder | None = None
    position: Text | None = None
    position_as_of: DateText | None = None
    position_source: Text | None = None
    education: Texts = []
    image: URL | None = None
    aliases: Texts = []
    pope_id: str | None = None
    source: Text | None = None
    as_of: DateText | None = None

    @property
    def key(self) -> str:
        """What makes two records the same person: the Wikidata item, else the id."""
        return self.wikidata or self.id


class ClergyImportError(Exception):
    """A file that cannot be read at all (not a single row's problem)."""


@dataclass
class RowError:
    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass
class Parsed:
    people: list[Person] = field(default_factory=list)
    errors: list[RowError] = field(default_factory=list)


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", normalise(name, keep_titles=True)).strip("-") or "person"


def _date(value: str | None) -> str | None:
    """A SPARQL date (``1955-09-14T00:00:00Z``) or one of ours, as our date text."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    if "T" in value:
        value = value.split("T", 1)[0]
    value = value.lstrip("+")
    HistoricalDate.parse(value)
    return value


def _row_to_fields(row: Mapping[str, str | None]) -> dict[str, Any]:
    entity_column = next((c for c in ENTITY_COLUMNS if row.get(c)), None)
    fields: dict[str, Any] = {}
    if entity_column:
        found = WIKIDATA_ID.search((row.get(entity_column) or "").strip())
        if found is None:
            raise ValueError(f"{entity_column} {row.get(entity_column)!r} is not a Wikidata item")
        fields["wikidata"] = found[1]
    name_column = f"{entity_column}Label" if entity_column else None
    name = (row.get(name_column) if name_column else None) or row.get("name")
    if not name or not name.strip():
        raise ValueError("no name (expected a '<entity>Label' or 'name' column)")
    fields["name"] = name.strip()
    if fields["name"] == fields.get("wikidata"):
        raise ValueError(f"{fields['name']} has no label")
    for target, columns in COLUMNS.items():
        value = next((row[c] for c in columns if row.get(c)), None)
        if value is None:
            continue
        if target in DATE_FIELDS:
            try:
                fields[target] = _date(value)
            except DateFormatError as exc:
                raise ValueError(f"{target}: {exc}") from None
        elif target == "education":
            fields[target] = [value.strip()]
        else:
            fields[target] = value.strip()
    return fields


def _bindings(data: Mapping[str, Any]) -> Iterator[dict[str, str | None]]:
    for binding in data.get("results", {}).get("bindings", []):
        if not isinstance(binding, dict):
            yield {}
            continue
        yield {k: (v.get("value") if isinstance(v, dict) else None) for k, v in binding.items()}


def _merge(into: dict[str, Any], fields: dict[str, Any]) -> None:
    """Several SPARQL rows of one person (one per school, say) make one record."""
    for key, value in fields.items():
        if key == "education":
            into.setdefault("education", [])
            into["education"] += [v for v in value if v not in into["education"]]
        elif into.get(key) is None:
            into[key] = value


def _build(
    rows: Iterator[tuple[int, dict[str, Any] | Exception]], as_of: str | None, source: str
) -> Parsed:
    parsed = Parsed()
    records: dict[str, dict[str, Any]] = {}
    lines: dict[str, int] = {}
    for line, fields in rows:
        if isinstance(fields, Exception):
            parsed.errors.append(RowError(line, str(fields)))
            continue
        key = fields.get("wikidata") or fields.get("id") or slug(fields["name"])
        if key in records:
            _merge(records[key], fields)
        else:
            records[key] = dict(fields)
            lines[key] = line
    taken: dict[str, str] = {}
    for key, fields in records.items():
        fields.setdefault("source", source)
        if as_of is not None:
            fields.setdefault("as_of", as_of)
        if "id" not in fields:
            ident = slug(fields["name"])
            if ident in taken and taken[ident] != key:
                ident = f"{ident}-{str(fields.get('wikidata') or len(taken)).lower()}"
            fields["id"] = ident
        taken[fields["id"]] = key
        try:
            parsed.people.append(Person.model_validate(fields))
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
            )
            parsed.errors.append(RowError(lines[key], problems))
    return parsed


def parse_csv(text: str, *, as_of: str | None = None, source: str = "Wikidata") -> Parsed:
    """A SPARQL result saved as CSV (or our columns), one person per row."""
    reader = csv.DictReader(io.StringIO(text))
    if not reader.fieldnames:
        raise ClergyImportError("the CSV file has no header row")

    def rows() -> Iterator[tuple[int, dict[str, Any] | Exception]]:
        start = 2
        for row in reader:
            if None in row:  # more cells than columns
                yield start, ValueError(f"{len(reader.fieldnames or [])} columns expected")
            else:
                try:
                    yield start, _row_to_fields(row)
                except ValueError as exc:
                    yield start, exc
            start = reader.line_num + 1

    return _build(rows(), as_of, source)


def parse_json(text: str, *, as_of: str | None = None, source: str | None = None) -> Parsed:
    """A SPARQL JSON result (``head``/``results``) or our own format."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ClergyImportError(f"not JSON: {exc}") from None
    if isinstance(data, dict) and "results" in data and "head" in data:
        lines = _element_lines(text, "bindings")

        def sparql_rows() -> Iterator[tuple[int, dict[str, Any] | Exception]]:
            for index, row in enumerate(_bindings(data)):
                line = lines[index] if index < len(lines) else index + 1
                try:
                    yield line, _row_to_fields(row)
                except ValueError as exc:
                    yield line, exc

        return _build(sparql_rows(), as_of, source or "Wikidata")
    if isinstance(data, dict):
        people = data.get("people")
        as_of = as_of or data.get("as_of")
        source = source or data.get("source")
    else:
        people = data
    if not isinstance(people, list):
        raise ClergyImportError("expected a list of people or an object with 'people'")
    lines = _element_lines(text, "people" if isinstance(data, dict) else None)

    def own_rows() -> Iterator[tuple[int, dict[str, Any] | Exception]]:
        for index, record in enumerate(people):
            line = lines[index] if index < len(lines) else index + 1
            if not isinstance(record, dict) or not isinstance(record.get("name"), str):
                yield line, ValueError("a record must be an object with a 'name'")
                continue
            fields = {k: v for k, v in record.items() if v is not None}
            try:
                for name in (*DATE_FIELDS, "as_of", "position_as_of"):
                    if isinstance(fields.get(name), str):
                        fields[name] = _date(fields[name])
            except DateFormatError as exc:
                yield line, ValueError(str(exc))
                continue
            yield line, fields

    return _build(own_rows(), as_of, source or "imported")


def _element_lines(text: str, key: str | None) -> list[int]:
    """The line on which each element of the array under ``key`` (or the top-level
    array) starts, so a bad record is reported by its line."""
    decoder = json.JSONDecoder()
    anchor = text.find(f'"{key}"') if key else 0
    position = text.find("[", max(anchor, 0)) + 1
    lines: list[int] = []
    while 0 < position < len(text):
        while position < len(text) and text[position] in " \t\r\n,":
            position += 1
        if position >= len(text) or text[position] == "]":
            break
        lines.append(text.count("\n", 0, position) + 1)
        try:
            _, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError:
            break
    return lines
