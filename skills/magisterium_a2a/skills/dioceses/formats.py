"""Reading the files ``content import dioceses`` and ``content import
diocese-statistics`` take. Every reader returns what it could read and a list
of per-line errors; a file it cannot read at all raises ``FormatError``.

Directory files: our JSON or YAML (a list of records as in ``dioceses-us.yaml``,
or ``{"dioceses": [...]}``), our CSV (a header of those field names, aliases
separated by ``;``), or a Wikidata SPARQL export (JSON results or CSV; the
query is in the README).

Statistics files: the long CSV ``diocese,year,metric,value,source`` (optional
``currency`` for financial totals) or the wide CSV with Catholic-Hierarchy's
column names (``Year, Catholics, Total Population, ...``), one row per year.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml
from pydantic import ValidationError
from slugify import slugify

from magisterium_a2a.skills.dioceses.directory import Directory
from magisterium_a2a.skills.dioceses.model import (
    DERIVED,
    FINANCIAL_FIELDS,
    METRICS,
    Diocese,
)
from magisterium_a2a.skills.dioceses.names import key
from magisterium_a2a.skills.dioceses.store import Financial, Statistic
from magisterium_a2a.skills.imports import MAX_TEXT_CHARS, load_yaml, plain_text

LONG_COLUMNS = ("diocese", "year", "metric", "value", "source")
# Catholic-Hierarchy's column names (and ours, title-cased) -> our metric names.
WIDE_COLUMNS: dict[str, str] = {
    **{m.replace("_", " "): m for m in (*METRICS, *FINANCIAL_FIELDS)},
    "catholics per priest": "catholics_per_priest",
    "total priests": "total_priests",
}
PERCENT_METRICS = frozenset({"percent_catholic"})
MIN_YEAR, MAX_YEAR = 1000, 2100
_NULLS = frozenset({"", "-", "\u2013", "\u2014", "n/a", "na", "null", "none", "?"})
_ENTITY = re.compile(r"(?:^|/)(Q[1-9][0-9]*)$")
_YEAR = re.compile(r"^[+]?(\d{3,4})(?:-|$)")


class FormatError(ValueError):
    """A file this importer cannot read at all; the message says why."""


@dataclass(frozen=True, slots=True)
class LineError:
    line: int
    message: str
    unit: str = "line"  # "record" for the n-th record of a JSON or YAML list

    def __str__(self) -> str:
        return f"{self.unit} {self.line}: {self.message}"


@dataclass
class DirectoryBatch:
    dioceses: list[Diocese] = field(default_factory=list)
    merged: int = 0  # records that completed an existing jurisdiction
    errors: list[LineError] = field(default_factory=list)


@dataclass
class StatisticsBatch:
    statistics: list[Statistic] = field(default_factory=list)
    financials: list[Financial] = field(default_factory=list)
    years: set[tuple[str, int]] = field(default_factory=set)
    errors: list[LineError] = field(default_factory=list)


# -- directory ---------------------------------------------------------------------


def read_directory(text: str, suffix: str, existing: Directory) -> DirectoryBatch:
    """Jurisdictions from one file; Wikidata rows complete the records they match."""
    suffix = suffix.lower()
    if suffix in (".json", ".yaml", ".yml"):
        try:
            data = json.loads(text) if suffix == ".json" else load_yaml(text)
        except (json.JSONDecodeError, yaml.YAMLError) as exc:
            raise FormatError(f"not valid {suffix[1:].upper()}: {exc}") from None
        if isinstance(data, dict) and "results" in data and "head" in data:
            bindings = (
                data["results"].get("bindings") if isinstance(data["results"], dict) else None
            )
            if not isinstance(bindings, list):
                raise FormatError("a SPARQL result without results.bindings")
            results: list[tuple[int, dict[str, Any]]] = [
                (n, {k: v.get("value") for k, v in b.items() if isinstance(v, dict)})
                for n, b in enumerate(bindings, start=1)
                if isinstance(b, dict)
            ]
            return _wikidata(results, existing, "result")
        if isinstance(data, dict) and isinstance(data.get("dioceses"), list):
            data = data["dioceses"]
        if not isinstance(data, list):
            raise FormatError('expected a list of jurisdictions, or {"dioceses": [...]}')
        return _ours(((n, item) for n, item in enumerate(data, start=1)), "record")
    if suffix == ".csv":
        header, lines = _csv_rows(text)
        if "item" in header:
            return _wikidata(list(lines), existing, "line")
        if not {"id", "name", "type"} <= set(header):
            raise FormatError(
                "a directory CSV needs the columns id, name and type (or, from Wikidata, item)"
            )
        return _ours(lines, "line", _csv_record)
    raise FormatError(f"unknown format {suffix!r} (use .json, .yaml, .csv)")


def _text(value: str | None, name: str) -> str | None:
    """An optional text cell of a statistics file (the source, the currency)."""
    if not value:
        return None
    if len(value) > MAX_TEXT_CHARS:
        raise ValueError(f"{name}: at most {MAX_TEXT_CHARS} characters")
    try:
        return plain_text(value)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None


def _csv_record(row: dict[str, str]) -> dict[str, Any]:
    if TOO_MANY_CELLS in row:
        raise ValueError(row[TOO_MANY_CELLS])
    record: dict[str, Any] = {k: (v.strip() or None) for k, v in row.items() if k}
    aliases = record.pop("aliases", None)
    record["aliases"] = [a.strip() for a in aliases.split(";") if a.strip()] if aliases else []
    if record.get("erected") is not None:
        record["erected"] = _int(record["erected"], "erected")
    return record


def _ours(
    items: Iterable[tuple[int, Any]],
    unit: str,
    convert: Callable[[Any], Any] = lambda item: item,
) -> DirectoryBatch:
    """Our records; ``convert`` turns a raw item (a CSV row) into one, inside the
    per-line error handling."""
    batch = DirectoryBatch()
    seen: dict[str, int] = {}
    for number, item in items:
        try:
            diocese = Diocese.model_validate(convert(item))
        except (ValidationError, ValueError) as exc:
            batch.errors.append(LineError(number, _explain(exc), unit))
            continue
        if diocese.id in seen:
            batch.errors.append(
                LineError(
                    number, f"id {diocese.id!r} was already given ({unit} {seen[diocese.id]})", unit
                )
            )
            continue
        seen[diocese.id] = number
        batch.dioceses.append(diocese)
    return batch


# Wikidata's class labels -> our types; the most specific phrase first.
_WIKIDATA_TYPES: tuple[tuple[str, str], ...] = (
    ("military ordinariate", "military_ordinariate"),
    ("personal ordinariate", "personal_ordinariate"),
    ("archeparchy", "archeparchy"),
    ("archieparchy", "archeparchy"),
    ("eparchy", "eparchy"),
    ("exarchate", "apostolic_exarchate"),
    ("apostolic vicariate", "apostolic_vicariate"),
    ("vicariate apostolic", "apostolic_vicariate"),
    ("apostolic prefecture", "apostolic_prefecture"),
    ("prefecture apostolic", "apostolic_prefecture"),
    ("territorial prelature", "territorial_prelature"),
    ("territorial abbacy", "territorial_abbacy"),
    ("territorial abbey", "territorial_abbacy"),
    ("apostolic administration", "apostolic_administration"),
    ("mission sui iuris", "mission_sui_iuris"),
    ("patriarchate", "patriarchate"),
    ("archdiocese", "archdiocese"),
    ("diocese", "diocese"),
)
_RANK = {t: n for n, (_, t) in enumerate(_WIKIDATA_TYPES)}
_PREFIX = re.compile(r"^(?:roman\s+)?catholic\s+", re.IGNORECASE)


def _type_of(text: str | None) -> str | None:
    lowered = (text or "").lower()
    for phrase, kind in _WIKIDATA_TYPES:
        if phrase in lowered:
            return kind
    return None


def _wikidata(
    rows: list[tuple[int, dict[str, Any]]], existing: Directory, unit: str
) -> DirectoryBatch:
    batch = DirectoryBatch()
    grouped: dict[str, dict[str, Any]] = {}
    for number, row in rows:
        if TOO_MANY_CELLS in row:
            batch.errors.append(LineError(number, row[TOO_MANY_CELLS], unit))
            continue
        entity = _ENTITY.search(str(row.get("item") or "").strip())
        if entity is None:
            batch.errors.append(LineError(number, "item is not a Wikidata entity (Q...)", unit))
            continue
        qid = entity.group(1)
        name = _PREFIX.sub("", str(row.get("itemLabel") or "").strip())
        kind = _type_of(row.get("typeLabel")) or _type_of(name)
        slot = grouped.setdefault(qid, {"line": number, "types": set()})
        if kind:
            slot["types"].add(kind)
        for column, target in (
            ("countryCode", "country"),
            ("seeLabel", "see"),
            ("chId", "catholic_hierarchy"),
            ("gcId", "gcatholic"),
        ):
            value = str(row.get(column) or "").strip()
            if value:
                slot.setdefault(target, value.upper() if target == "country" else value)
        if name and not name.startswith(qid):
            slot.setdefault("name", name)
        year = _YEAR.match(str(row.get("inception") or "").strip())
        if year:
            slot["erected"] = min(int(year.group(1)), slot.get("erected", 9999))
    taken = set(existing.by_id)
    for qid, slot in grouped.items():
        number = slot.pop("line")
        types = slot.pop("types")
        if "name" not in slot:
            batch.errors.append(LineError(number, f"{qid} has no label", unit))
            continue
        if not types:
            batch.errors.append(
                LineError(number, f"{qid}: cannot tell the jurisdiction's type", unit)
            )
            continue
        slot["type"] = min(types, key=_RANK.__getitem__)
        slot["wikidata"] = qid
        match = _existing_match(existing, slot)
        try:
            if match is not None:
                filled = {k: v for k, v in slot.items() if getattr(match, k) in (None, [])}
                batch.dioceses.append(Diocese.model_validate({**match.model_dump(), **filled}))
                batch.merged += 1
                continue
            ident = _new_id(slot, qid, taken)
            taken.add(ident)
            batch.dioceses.append(Diocese.model_validate({"id": ident, **slot}))
        except ValidationError as exc:
            batch.errors.append(LineError(number, _explain(exc), unit))
    return batch


def _existing_match(directory: Directory, slot: dict[str, Any]) -> Diocese | None:
    for code in (slot.get("wikidata"), slot.get("catholic_hierarchy"), slot.get("gcatholic")):
        if code and (found := directory.by_code(str(code))) is not None:
            return found
    wanted = key(slot["name"])
    same = [
        d
        for d in directory.by_id.values()
        if d.country == slot.get("country")
        and d.type == slot["type"]
        and wanted in {key(d.name), *(key(a) for a in d.aliases)}
    ]
    return same[0] if len(same) == 1 else None


def _new_id(slot: dict[str, Any], qid: str, taken: set[str]) -> str:
    base = slugify(key(slot["name"]) or slot["name"])[:80] or qid.lower()
    country = str(slot.get("country") or "").lower()
    ident = f"{base}-{country}" if country else base
    return ident if ident not in taken else f"{ident}-{qid.lower()}"


# -- statistics --------------------------------------------------------------------


def read_statistics(text: str, directory: Directory, diocese: str | None = None) -> StatisticsBatch:
    """Yearly figures from a long or a wide CSV; ``diocese`` names the jurisdiction of
    a wide file without a Diocese column."""
    header, rows = _csv_rows(text)
    lowered = [h.strip().lower() for h in header]
    if set(LONG_COLUMNS) <= set(lowered):
        return _long(rows, directory)
    if "year" in lowered:
        return _wide(header, rows, directory, diocese)
    raise FormatError(
        "expected a long CSV (diocese,year,metric,value,source) "
        "or a wide one with a Year column and Catholic-Hierarchy's column names"
    )


def _long(rows: Iterator[tuple[int, dict[str, str]]], directory: Directory) -> StatisticsBatch:
    batch = StatisticsBatch()
    given: dict[tuple[str, int, str], int] = {}
    for number, raw in rows:
        row = {k.strip().lower(): (v or "").strip() for k, v in raw.items() if k}
        try:
            if TOO_MANY_CELLS in raw:
                raise ValueError(raw[TOO_MANY_CELLS])
            ident = _diocese(row["diocese"], directory)
            year = _year(row["year"])
            metric = row["metric"].lower().replace(" ", "_")
            if metric in DERIVED:
                raise ValueError(f"{metric} is derived from other metrics, not imported")
            if metric not in METRICS and metric not in FINANCIAL_FIELDS:
                raise ValueError(f"unknown metric {row['metric']!r}")
            value = _value(row["value"], metric)
            source = _text(row.get("source"), "source")
            currency = _text(row.get("currency"), "currency")
            slot = (ident, year, metric)
            if slot in given:
                raise ValueError(
                    f"{metric} of {ident} for {year} was already given on line {given[slot]}"
                )
        except ValueError as exc:
            batch.errors.append(LineError(number, str(exc)))
            continue
        given[slot] = number
        if metric in FINANCIAL_FIELDS:
            currency = currency.upper() if currency else None
            batch.financials.append(Financial(ident, year, metric, value, currency, source))
        else:
            batch.statistics.append(Statistic(ident, year, metric, value, source))
            batch.years.add((ident, year))
    return batch


def _wide(
    header: list[str],
    rows: Iterator[tuple[int, dict[str, str]]],
    directory: Directory,
    diocese: str | None,
) -> StatisticsBatch:
    columns: dict[str, str] = {}
    unknown = []
    for name in header:
        label = " ".join(name.replace("_", " ").lower().split())
        if label in ("year", "source", "diocese", "currency"):
            continue
        if label in WIDE_COLUMNS:
            columns[name] = WIDE_COLUMNS[label]
        elif label:
            unknown.append(name)
    if unknown:
        raise FormatError(f"unknown columns: {', '.join(unknown)}")
    has_diocese = any(h.strip().lower() == "diocese" for h in header)
    if not has_diocese and diocese is None:
        raise FormatError("this wide CSV has no Diocese column: say which with --diocese")
    fixed = _diocese(diocese, directory) if diocese is not None and not has_diocese else None
    batch = StatisticsBatch()
    given: dict[tuple[str, int], int] = {}
    for number, raw in rows:
        row = {k.strip().lower(): (v or "").strip() for k, v in raw.items() if k}
        try:
            if TOO_MANY_CELLS in raw:
                raise ValueError(raw[TOO_MANY_CELLS])
            ident = fixed or _diocese(row.get("diocese", ""), directory)
            year = _year(row.get("year", ""))
            if (ident, year) in given:
                raise ValueError(
                    f"{year} of {ident} was already given on line {given[ident, year]}"
                )
            values = {
                metric: _value(raw.get(column, ""), metric)
                for column, metric in columns.items()
                if metric not in DERIVED
            }
            source = _text(row.get("source"), "source")
            currency = _text(row.get("currency"), "currency")
        except ValueError as exc:
            batch.errors.append(LineError(number, str(exc)))
            continue
        given[ident, year] = number
        currency = currency.upper() if currency else None
        for metric in METRICS:
            batch.statistics.append(Statistic(ident, year, metric, values.get(metric), source))
        for name in FINANCIAL_FIELDS:
            if name in values:
                batch.financials.append(
                    Financial(ident, year, name, values[name], currency, source)
                )
        batch.years.add((ident, year))
    return batch


# -- shared helpers ----------------------------------------------------------------


TOO_MANY_CELLS = "__too_many_cells__"


def _csv_rows(text: str) -> tuple[list[str], Iterator[tuple[int, dict[str, str]]]]:
    """The header and the non-blank rows with their line numbers; a row with more
    cells than the header comes back as ``{TOO_MANY_CELLS: ...}``."""
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff"), newline=""))
    header = [h.strip() for h in reader.fieldnames or []]
    if not header:
        raise FormatError("the file is empty")
    reader.fieldnames = header

    def rows() -> Iterator[tuple[int, dict[str, str]]]:
        try:
            for row in reader:
                if None in row:
                    yield reader.line_num, {TOO_MANY_CELLS: "more cells than the header has"}
                elif any((v or "").strip() for v in row.values()):
                    yield reader.line_num, row
        except csv.Error as exc:
            raise FormatError(f"line {reader.line_num}: {exc}") from None

    return header, rows()


def _diocese(text: str, directory: Directory) -> str:
    text = (text or "").strip()
    if not text:
        raise ValueError("no diocese given")
    found = directory.get(text) or directory.by_code(text)
    if found is not None:
        return found.id
    wanted = key(text)
    named = [d for d in directory.by_id.values() if wanted and key(d.name) == wanted]
    if len(named) == 1:
        return named[0].id
    if named:
        raise ValueError(f"{text!r} names several jurisdictions; use an id")
    raise ValueError(f"unknown diocese {text!r} (use an id, a directory code or the exact name)")


def _year(text: str) -> int:
    try:
        year = int(text.strip())
    except ValueError:
        raise ValueError(f"year {text!r} is not a year") from None
    if not MIN_YEAR <= year <= MAX_YEAR:
        raise ValueError(f"year {year} is out of range")
    return year


def _int(text: str, name: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{name} {text!r} is not a whole number") from None


def _value(text: str | None, metric: str) -> float | None:
    cleaned = (text or "").strip().replace(",", "").replace("\u00a0", "").replace(" ", "")
    if cleaned.lower() in _NULLS:
        return None
    percent = cleaned.endswith("%")
    cleaned = cleaned.rstrip("%")
    try:
        value = float(cleaned)
    except ValueError:
        raise ValueError(f"{metric} {text!r} is not a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"{metric} {text!r} is not a number")
    if metric in FINANCIAL_FIELDS:
        return value
    if value < 0:
        raise ValueError(f"{metric} cannot be negative ({text!r})")
    if metric in PERCENT_METRICS:
        if value > 100:
            raise ValueError(f"{metric} {text!r} is over 100")
        return value
    if percent or not value.is_integer():
        raise ValueError(f"{metric} {text!r} is not a whole number")
    return value


def _explain(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        return f"{where}: {first['msg']}" if where else str(first["msg"])
    return str(exc)
