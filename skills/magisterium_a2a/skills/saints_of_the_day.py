"""``saints_of_the_day``: the day's celebrations and martyrology.

For a date (data part ``{"date": "YYYY-MM-DD"}`` or a text date query): the
celebrations of the configured calendar with rank and titles, then the
commemorations kept that day by the other particular calendars romcal ships,
then the Roman Martyrology's saints and blesseds of the day (built in, by name
and country; an imported eulogy with the same id and day replaces the bare
name), then the names only earlier editions placed on the day, then what other
imported martyrologies hold for it. A missing, unreadable or out-of-range date
answers ``No martyrology data found.``

The work runs in a worker thread and after the rate-limit check (not ``cheap``):
the first date of a year builds that year's calendar, about 0.1 s of CPU.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import date

from magisterium_a2a.plugin import (
    Artifact,
    FunctionSkill,
    Message,
    SkillContext,
    SkillEnvironment,
    text_part,
)
from magisterium_a2a.skills.engines import liturgy_engine
from magisterium_a2a.skills.language.dates import resolve as resolve_date
from magisterium_a2a.skills.liturgy.engine import LiturgyEngine
from magisterium_a2a.skills.liturgy.labels import calendar_name, title_name
from magisterium_a2a.skills.liturgy.martyrology import (
    Martyrology,
    MartyrologyEntry,
    NamedEntry,
    builtin_martyrology,
)
from magisterium_a2a.skills.liturgy.messages import query_of

NOT_FOUND = "No martyrology data found."
ARTIFACT = "martyrology"
CURRENT_HEADING = "Roman Martyrology (2004 edition)"
EARLIER_HEADING = "Also named on this day by earlier editions of the Roman Martyrology"


def other_calendars(liturgy: LiturgyEngine, when: date) -> list[str]:
    """Fixed-date celebrations of the other romcal calendars on this month and day."""
    kept = {c.id for c in liturgy.calendar.day(when).celebrations}
    found = [(i, c) for i, c in liturgy.particular(when.month, when.day) if i not in kept]
    lines = []
    for day_id, calendars in found:
        entity = liturgy.calendar.entity(day_id) or {}
        name = entity.get("fullname") or day_id.replace("_", " ").capitalize()
        lines.append(f"- {name} ({', '.join(calendar_name(c) for c in calendars)})")
    return lines


def format_saints(liturgy: LiturgyEngine, when: date) -> str:
    day = liturgy.calendar.day(when)
    lines = [f"Saints and celebrations for {when.strftime('%A, %B')} {when.day}, {when.year}", ""]
    lines.append(f"Calendar: {calendar_name(liturgy.calendar.calendar)}")
    for celebration in day.celebrations:
        titles = ", ".join(title_name(t) for t in celebration.titles)
        extra = f"; titles: {titles}" if titles else ""
        lines.append(f"- {celebration.name} ({celebration.rank_name}{extra})")
    others = other_calendars(liturgy, when)
    if others:
        lines.extend(["", "In other particular calendars:", *others])
    lines.extend(martyrology_lines(liturgy.martyrologies, when))
    return "\n".join(lines)


def martyrology_lines(imported: Sequence[Martyrology], when: date) -> list[str]:
    """The built-in names of the day, eulogies where imported, then other imported entries."""
    names = builtin_martyrology()
    current, earlier = names.current(when), names.earlier(when)
    known = {e.id for e in current} | {e.id for e in earlier}
    days = [(m, m.of_day(when.month, when.day)) for m in imported]
    eulogies: dict[str, tuple[str, str]] = {}
    for martyrology, entries in days:
        for entry in entries:
            if entry.id in known and entry.text and entry.id not in eulogies:
                eulogies[entry.id] = (entry.text, martyrology.title)
    lines: list[str] = []
    for heading, found, bullet in (
        (CURRENT_HEADING, current, True),
        (EARLIER_HEADING, earlier, False),
    ):
        if not found:
            continue
        sources = sorted({eulogies[e.id][1] for e in found if e.id in eulogies})
        note = f"; eulogies from {', '.join(sources)}" if sources else ""
        lines.extend(["", f"{heading}{note}:"])
        for number, line in enumerate(found, 1):
            text = eulogies[line.id][0] if line.id in eulogies else named(line)
            lines.append(f"{number}. {text}" if bullet else f"- {text}")
    for martyrology, entries in days:
        rest = [e for e in entries if e.id not in known]
        if rest:
            lines.extend(["", f"{martyrology.title}:"])
            lines.extend(f"{n}. {shown(e)}" for n, e in enumerate(rest, 1))
    return lines


def named(entry: NamedEntry) -> str:
    return f"{entry.name} ({entry.place})" if entry.place else entry.name


def shown(entry: MartyrologyEntry) -> str:
    return entry.text or entry.name or entry.id or ""


def create(env: SkillEnvironment) -> FunctionSkill:
    liturgy = liturgy_engine(env)

    async def handle(message: Message, context: SkillContext) -> Sequence[Artifact]:
        query = query_of(message)
        text = await asyncio.to_thread(answer, query, context) if query else NOT_FOUND
        return [context.artifact(ARTIFACT, [text_part(text)])]

    def answer(query: str, context: SkillContext) -> str:
        today = liturgy.today(context.clock)
        when = resolve_date(query, today, lambda text: liturgy.resolve(text, context.clock))
        return format_saints(liturgy, when) if when is not None else NOT_FOUND

    return FunctionSkill(
        id="saints_of_the_day",
        name="Saints of the day",
        description=(
            "The saints and celebrations of a day: the configured calendar, other particular "
            "calendars, and the Roman Martyrology's saints and blesseds of the day."
        ),
        handler=handle,
        tags=("liturgy", "saints", "martyrology", "calendar"),
        examples=(
            '{"date": "2026-03-19"}',
            "today",
            "November 30",
            "19 de marzo de 2027",
            "3月19日",
            "ngày 19 tháng 3",
        ),
        input_modes=("text/plain", "application/json"),
        output_modes=("text/plain",),
    )
