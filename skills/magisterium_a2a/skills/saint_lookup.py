"""``saint_lookup`` (beyond the hosted skills): find saints and blesseds by
name, nickname, patronage or id, over romcal's calendars, the built-in Roman
Martyrology names (ids ``mr:MMDD-slug`` of the CRMEDR registry), the names of
imported martyrology entries and the authored table of popular saints, one
record per person (``saints.index``). It reads a text part, or a data part
``{"query"}`` (a name) or ``{"saint_id"}`` (an id, the ``saint_id`` of
``pope_lookup``'s records). The artifact ``saint`` carries a text summary and a
data part ``{"saints": [...]}`` with the structured records.

The first search builds the index (about 0.5 s), so the skill runs after its
rate-limit check (not ``cheap``), in a worker thread, and does not read a query
over 120 characters.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any

from magisterium_a2a.plugin import (
    Artifact,
    FunctionSkill,
    Message,
    SkillContext,
    SkillEnvironment,
    data_part,
    first_data,
    first_text,
    text_part,
)
from magisterium_a2a.skills.engines import liturgy_engine
from magisterium_a2a.skills.language.saints import saint_id
from magisterium_a2a.skills.liturgy.labels import calendar_name
from magisterium_a2a.skills.liturgy.martyrology import builtin_martyrology
from magisterium_a2a.skills.people.popes import builtin_popes
from magisterium_a2a.skills.people.requests import read_lookup
from magisterium_a2a.skills.saints.index import Feast, SaintIndex, SaintRecord
from magisterium_a2a.skills.saints.popular import popular_saints

__all__ = ["ARTIFACT", "NOT_FOUND", "Feast", "SaintRecord", "create", "describe"]

ARTIFACT = "saint"
NOT_FOUND = "No saint found."
MAX_QUERY_CHARS = 120
RANK_NAMES = {
    "solemnity": "solemnity",
    "feast": "feast",
    "memorial": "memorial",
    "optional_memorial": "optional memorial",
    "celebration": "celebration",
}


def describe(record: SaintRecord) -> str:
    parts = [record.name]
    if record.canonization_level:
        parts.append(record.canonization_level)
    if record.date_of_death:
        parts.append(f"died {record.date_of_death}")
    if record.place:
        parts.append(record.place)
    text = " — ".join(parts)
    for feast in record.feasts:
        calendars = ", ".join(calendar_name(c) for c in feast.calendars)
        rank = RANK_NAMES.get(feast.rank, feast.rank)
        text += f"\n  feast {feast.date[2:]} ({rank}): {calendars}"
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

    def search(query: str, ident: str | None = None) -> list[SaintRecord]:
        with lock:
            if "saints" not in index:
                index["saints"] = SaintIndex(
                    liturgy.calendar.entities(),
                    liturgy.calendar.definitions,
                    builtin_martyrology().entries(),
                    liturgy.martyrologies,
                    popular_saints(),
                )
        saints = index["saints"]
        if ident is not None:
            person = saints.get(ident)
            found = [(person, 100.0)] if person is not None else []
        else:
            found = saints.search(query, set(popes))
        return [
            person.record(score, next((popes[i] for i in person.ids if i in popes), None))
            for person, score in found
        ]

    async def handle(message: Message, context: SkillContext) -> Sequence[Artifact]:
        ident = None
        if first_data(message) is None:
            query = first_text(message)
        else:
            lookup = read_lookup(message, "saint_id", "joseph_spouse_of_mary")
            query, ident = lookup.query, lookup.ident
        readable = query is None or len(query) <= MAX_QUERY_CHARS
        if query and readable and ident is None:
            # A name typed in another language ("San José", "성 요셉") is read as its id.
            ident = saint_id(query)
        wanted = (query or ident) and readable
        found = await asyncio.to_thread(search, query or "", ident) if wanted else []
        if not found:
            return [context.artifact(ARTIFACT, [text_part(NOT_FOUND)])]
        text = "\n".join(describe(record) for record in found)
        data: dict[str, Any] = {"saints": [r.model_dump() for r in found]}
        return [context.artifact(ARTIFACT, [text_part(text), data_part(data)])]

    return FunctionSkill(
        id="saint_lookup",
        name="Saint lookup",
        description=(
            "Find saints and blesseds by name, nickname, patronage or id: feast days, rank, "
            "titles, canonization, date of death and the calendars that keep them."
        ),
        handler=handle,
        tags=("liturgy", "saints"),
        examples=(
            "Kateri Tekakwitha",
            "Padre Pio",
            "the patron saint of lost things",
            "San José",
            "Sant'Ignazio di Loyola",
            "성 요셉",
        ),
    )
