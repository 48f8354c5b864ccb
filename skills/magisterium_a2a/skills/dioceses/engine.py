"""The diocese engine both skills share: the directory (built-in plus imported,
reloaded when an import commits, so a running server follows it) and the
statistics and financial totals read from the import database."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from magisterium_a2a.plugin import Message, SkillError, first_data, first_text
from magisterium_a2a.skills.dioceses.directory import (
    Directory,
    Match,
    SearchResult,
    builtin_dioceses,
)
from magisterium_a2a.skills.dioceses.model import (
    DERIVED,
    FINANCIAL_FIELDS,
    METRICS,
    Diocese,
    derived,
    number,
)
from magisterium_a2a.skills.dioceses.store import Reader

MAX_QUERY_CHARS = 500
R = TypeVar("R", bound="DioceseRequest")
MIN_YEAR, MAX_YEAR = 1000, 2100
NOT_FOUND = "No diocese found."


class DioceseRequest(BaseModel):
    """The data part ``diocese_lookup`` accepts (a text part is taken as ``query``)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    query: str | None = Field(None, max_length=MAX_QUERY_CHARS)
    diocese_id: str | None = Field(None, max_length=100)
    source_code: str | None = Field(None, max_length=100)


class StatisticsRequest(DioceseRequest):
    """``diocese_statistics_lookup`` also takes a year range and a metric list."""

    year: int | None = Field(None, ge=MIN_YEAR, le=MAX_YEAR)
    year_from: int | None = Field(None, ge=MIN_YEAR, le=MAX_YEAR)
    year_to: int | None = Field(None, ge=MIN_YEAR, le=MAX_YEAR)
    metrics: list[str] | None = Field(None, min_length=1)

    @model_validator(mode="after")
    def _consistent(self) -> StatisticsRequest:
        if self.year is not None and (self.year_from is not None or self.year_to is not None):
            raise ValueError('give either "year" or "year_from"/"year_to", not both')
        if (
            self.year_from is not None
            and self.year_to is not None
            and self.year_from > self.year_to
        ):
            raise ValueError('"year_from" is after "year_to"')
        known = (*METRICS, *DERIVED)
        for metric in self.metrics or []:
            if metric not in known:
                raise ValueError(f"unknown metric {metric!r}; the metrics are: {', '.join(known)}")
        return self

    def years(self) -> tuple[int | None, int | None]:
        if self.year is not None:
            return self.year, self.year
        return self.year_from, self.year_to


def parse_request(message: Message, kind: type[R], skill: str) -> R:
    """The request from the data part (fields above) or the text part; a bad data
    part is a ``SkillError`` naming the field, so the task fails with that sentence."""
    data = first_data(message)
    try:
        request = kind.model_validate(data or {})
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(p) for p in error["loc"])
        message_text = error["msg"].removeprefix("Value error, ")
        where = f'"{field}": ' if field else ""
        raise SkillError(f"{skill}: bad data part: {where}{message_text}.") from None
    if request.query is None and request.diocese_id is None and request.source_code is None:
        text = first_text(message)
        if text is not None:
            if len(text) > MAX_QUERY_CHARS:
                raise SkillError(f"The query is too long (at most {MAX_QUERY_CHARS} characters).")
            request = request.model_copy(update={"query": text})
    if not any((request.query, request.diocese_id, request.source_code)):
        raise SkillError(
            f'{skill} needs a diocese: a name as text, or a data part with "query", '
            '"diocese_id" or "source_code".'
        )
    return request


@dataclass(frozen=True, slots=True)
class Financials:
    year: int
    currency: str | None
    values: dict[str, float | None]
    sources: list[str]

    def as_data(self) -> dict[str, Any]:
        return {
            "year": self.year,
            "currency": self.currency,
            **{name: number(self.values.get(name)) for name in FINANCIAL_FIELDS},
            "source": "; ".join(self.sources) or None,
        }


class DioceseEngine:
    """Everything the two diocese skills read."""

    def __init__(self, data_dir: Path) -> None:
        self.reader = Reader(data_dir)
        self._builtin = builtin_dioceses()
        self._signature: object = object()
        self._directory = Directory(self._builtin)

    def directory(self) -> Directory:
        signature = self.reader.signature()
        if signature != self._signature:
            self._directory = Directory([*self._builtin, *self.reader.dioceses()])
            self._signature = signature
        return self._directory

    def resolve(self, request: DioceseRequest) -> SearchResult:
        directory = self.directory()
        if request.diocese_id is not None:
            found = directory.get(request.diocese_id)
        elif request.source_code is not None:
            found = directory.by_code(request.source_code)
        else:
            return directory.search(request.query or "")
        return SearchResult("found", (Match(found, 100.0),)) if found else SearchResult("none")

    def years(
        self, diocese_id: str, year_from: int | None = None, year_to: int | None = None
    ) -> list[dict[str, Any]]:
        """One row per year, oldest first: all 19 metrics (null where the sources
        lack them), the two derived ones, and the sources."""
        rows: dict[int, dict[str, float | None]] = {}
        sources: dict[int, list[str]] = {}
        for stat in self.reader.statistics(diocese_id, year_from, year_to):
            rows.setdefault(stat.year, {})[stat.metric] = stat.value
            if (
                stat.source
                and stat.value is not None
                and stat.source not in sources.get(stat.year, [])
            ):
                sources.setdefault(stat.year, []).append(stat.source)
        result = []
        for year in sorted(rows):
            values = {m: rows[year].get(m) for m in METRICS}
            row: dict[str, Any] = {"year": year}
            row.update({m: number(v) for m, v in values.items()})
            row.update({m: number(v) for m, v in derived(values).items()})
            row["source"] = "; ".join(sources.get(year, [])) or None
            result.append(row)
        return result

    def has_statistics(self) -> bool:
        return self.reader.has_statistics()

    def financials(self, diocese_id: str) -> Financials | None:
        rows = self.reader.financials(diocese_id)
        if not rows:
            return None
        currencies = {r.currency for r in rows if r.currency}
        sources: list[str] = []
        for r in rows:
            if r.source and r.source not in sources:
                sources.append(r.source)
        return Financials(
            year=rows[0].year,
            currency=currencies.pop() if len(currencies) == 1 else None,
            values={r.field: r.value for r in rows},
            sources=sources,
        )


def suffragans(directory: Directory, diocese: Diocese) -> Sequence[Diocese]:
    """The suffragan sees of a metropolitan, by name."""
    if diocese.metropolitan != diocese.id:
        return []
    found = [
        d for d in directory.by_id.values() if d.metropolitan == diocese.id and d.id != diocese.id
    ]
    return sorted(found, key=lambda d: d.name)
