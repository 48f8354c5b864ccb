"""``saint_lookup`` (beyond the hosted skills): find saints and blesseds by
name or id, ranked by fuzzy match over romcal's entities, the built-in Roman
Martyrology names (ids ``mr:MMDD-slug`` of the CRMEDR registry) and the names of
imported martyrology entries. The artifact ``saint`` carries a text summary and a
data part ``{"saints": [...]}`` with the structured records.

A fuzzy search over some 5,400 names takes 20-60 ms of CPU and the first one
builds the index (0.2 s), so the skill runs after its rate-limit check (not
``cheap``), in a worker thread, and does not read a query over 120 characters.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel
from rapidfuzz import fuzz, process, utils

from magisterium_a2a.plugin import (
    Artifact,
    FunctionSkill,
    Message,
    SkillContext,
    SkillEnvironment,
    data_part,
    first_text,
    text_part,
)
from magisterium_a2a.skills.engines import liturgy_engine
from magisterium_a2a.skills.language.saints import saint_id
from magisterium_a2a.skills.liturgy.engine import LiturgyEngine
from magisterium_a2a.skills.liturgy.martyrology import builtin_martyrology
from magisterium_a2a.skills.people.popes import builtin_popes

ARTIFACT = "saint"
NOT_FOUND = "No saint found."
LIMIT = 10
CUTOFF = 70.0
MAX_QUERY_CHARS = 120
LEVELS = {"Saint": "saint", "Blessed": "blessed"}


class Feast(BaseModel):
    date: str
    rank: str
    calendars: list[str]


class SaintRecord(BaseModel):
    id: str
    name: str
    canonization_level: str | None = None
    titles: list[str] = []
    date_of_death: str | None = None
    feasts: list[Feast] = []
    martyrology: list[str] = []
    pope_id: str | None = None
    place: str | None = None
    score: float = 0.0


class SaintIndex:
    """Every person romcal knows, with their feasts, plus martyrology names."""

    def __init__(self, liturgy: LiturgyEngine) -> None:
        self.records: dict[str, SaintRecord] = {}
        feasts: dict[str, dict[tuple[str, str], list[str]]] = {}
        for calendar_id, definition in sorted(liturgy.calendar.definitions.items()):
            raw = definition.model_dump(mode="json").get("days_definitions") or {}
            for day_id, spec in raw.items():
                spec = spec or {}
                when = spec.get("date_def") or {}
                if not isinstance(when.get("month"), int) or not isinstance(when.get("date"), int):
                    continue
                date = f"--{when['month']:02d}-{when['date']:02d}"
                rank = _rank(str(spec.get("precedence") or ""))
                for person in spec.get("entities") or [day_id]:
                    slot = feasts.setdefault(str(person), {})
                    slot.setdefault((date, rank), []).append(calendar_id)
        for ident, entity in liturgy.calendar.entities().items():
            if entity.get("type", "person") != "person" or not entity.get("canonization_level"):
                continue
            death = entity.get("date_of_death")
            self.records[ident] = SaintRecord(
                id=ident,
                name=str(entity.get("fullname") or entity.get("name") or ident),
                canonization_level=entity.get("canonization_level"),
                titles=[str(t).replace("_", " ") for t in entity.get("titles") or []],
                date_of_death=str(death) if death is not None else None,
                feasts=[
                    Feast(date=d, rank=r, calendars=c)
                    for (d, r), c in sorted(feasts.get(ident, {}).items())
                ],
            )
        for named in builtin_martyrology().entries():
            if not named.current:
                continue
            record = self.records.setdefault(
                named.id,
                SaintRecord(
                    id=named.id,
                    name=named.name,
                    canonization_level=LEVELS.get(named.title or ""),
                    place=named.place,
                ),
            )
            _add_day(record, named.month, named.day)
        for martyrology in liturgy.martyrologies:
            for entry in martyrology.entries:
                if not entry.name or not entry.id:
                    continue
                record = self.records.setdefault(
                    entry.id, SaintRecord(id=entry.id, name=entry.name)
                )
                _add_day(record, entry.month, entry.day)
        self._keys = list(self.records)
        self._names = [f"{r.name} {r.id.replace('_', ' ')}" for r in self.records.values()]

    def search(self, query: str) -> list[SaintRecord]:
        if query in self.records:
            return [self.records[query].model_copy(update={"score": 100.0})]
        found = process.extract(
            query,
            self._names,
            scorer=fuzz.WRatio,
            processor=utils.default_process,
            limit=LIMIT,
            score_cutoff=CUTOFF,
        )
        return [
            self.records[self._keys[index]].model_copy(update={"score": round(score, 1)})
            for _, score, index in found
        ]


def _add_day(record: SaintRecord, month: int, day: int) -> None:
    when = f"--{month:02d}-{day:02d}"
    if when not in record.martyrology:
        record.martyrology.append(when)


def _rank(precedence: str) -> str:
    for rank in ("solemnity", "feast", "optional_memorial", "memorial"):
        if rank.split("_")[0] in precedence:
            return rank
    return "celebration"


def describe(record: SaintRecord) -> str:
    parts = [record.name]
    if record.canonization_level:
        parts.append(record.canonization_level)
    if record.titles:
        parts.append(", ".join(record.titles))
    if record.date_of_death:
        parts.append(f"died {record.date_of_death}")
    if record.place:
        parts.append(record.place)
    text = " — ".join(parts)
    for feast in record.feasts:
        text += f"\n  feast {feast.date[2:]} ({feast.rank}): {', '.join(feast.calendars)}"
    if record.martyrology:
        text += f"\n  Roman Martyrology: {', '.join(d[2:] for d in record.martyrology)}"
    if record.pope_id:
        text += f"\n  pope: see pope_lookup, pope_id {record.pope_id}"
    return text


def create(env: SkillEnvironment) -> FunctionSkill:
    liturgy = liturgy_engine(env)
    index: dict[str, SaintIndex] = {}
    popes = {pope.saint_id: pope.id for pope in builtin_popes() if pope.saint_id}
    lock = threading.Lock()

    def search(query: str) -> list[SaintRecord]:
        with lock:
            if "saints" not in index:
                index["saints"] = SaintIndex(liturgy)
        return [
            record.model_copy(update={"pope_id": popes.get(record.id)})
            for record in index["saints"].search(query)
        ]

    async def handle(message: Message, context: SkillContext) -> Sequence[Artifact]:
        query = first_text(message)
        readable = query is not None and len(query) <= MAX_QUERY_CHARS
        query = (saint_id(query) or query) if query and readable else query
        found = await asyncio.to_thread(search, query) if query and readable else []
        if not found:
            return [context.artifact(ARTIFACT, [text_part(NOT_FOUND)])]
        text = "\n".join(describe(record) for record in found)
        data: dict[str, Any] = {"saints": [r.model_dump() for r in found]}
        return [context.artifact(ARTIFACT, [text_part(text), data_part(data)])]

    return FunctionSkill(
        id="saint_lookup",
        name="Saint lookup",
        description=(
            "Find saints and blesseds by name or id: feast days, rank, titles, canonization, "
            "date of death and the calendars that keep them."
        ),
        handler=handle,
        tags=("liturgy", "saints"),
        examples=(
            "Kateri Tekakwitha",
            "Thomas Aquinas",
            "joseph_spouse_of_mary",
            "San José",
            "Sant'Ignazio di Loyola",
            "성 요셉",
        ),
    )
