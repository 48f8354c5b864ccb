"""``saints_of_the_day``: the day's celebrations and martyrology.

For a date (data part ``{"date": "YYYY-MM-DD"}`` or a text date query): the
celebrations of the configured calendar with rank and titles, then the
commemorations kept that day by the other particular calendars romcal ships,
then the entries of each imported Roman Martyrology in order. A missing or
unreadable date answers ``No martyrology data found.``
"""

from __future__ import annotations

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
from magisterium_a2a.skills.liturgy.engine import LiturgyEngine
from magisterium_a2a.skills.liturgy.messages import query_of

NOT_FOUND = "No martyrology data found."
ARTIFACT = "martyrology"


def other_calendars(liturgy: LiturgyEngine, when: date) -> list[str]:
    """Fixed-date celebrations of the other romcal calendars on this month and day."""
    kept = {c.id for c in liturgy.calendar.day(when).celebrations}
    found = [(i, c) for i, c in liturgy.particular(when.month, when.day) if i not in kept]
    lines = []
    for day_id, calendars in found:
        entity = liturgy.calendar.entity(day_id) or {}
        name = entity.get("fullname") or day_id.replace("_", " ").capitalize()
        lines.append(f"- {name} ({', '.join(c.replace('_', ' ') for c in calendars)})")
    return lines


def format_saints(liturgy: LiturgyEngine, when: date) -> str:
    day = liturgy.calendar.day(when)
    lines = [f"Saints and celebrations for {when.strftime('%A, %B')} {when.day}, {when.year}", ""]
    lines.append(f"Calendar: {liturgy.calendar.calendar.replace('_', ' ')}")
    for celebration in day.celebrations:
        titles = ", ".join(t.replace("_", " ") for t in celebration.titles)
        extra = f"; titles: {titles}" if titles else ""
        lines.append(f"- {celebration.name} ({celebration.rank_name}{extra})")
    others = other_calendars(liturgy, when)
    if others:
        lines.extend(["", "In other particular calendars:", *others])
    for martyrology in liturgy.martyrologies:
        entries = martyrology.of_day(when.month, when.day)
        if not entries:
            continue
        lines.extend(["", f"{martyrology.title}:"])
        for number, entry in enumerate(entries, 1):
            text = entry.text or entry.name or entry.id or ""
            lines.append(f"{number}. {text}")
    return "\n".join(lines)


def create(env: SkillEnvironment) -> FunctionSkill:
    liturgy = liturgy_engine(env)

    async def handle(message: Message, context: SkillContext) -> Sequence[Artifact]:
        query = query_of(message)
        when = liturgy.resolve(query, context.clock) if query else None
        text = format_saints(liturgy, when) if when is not None else NOT_FOUND
        return [context.artifact(ARTIFACT, [text_part(text)])]

    return FunctionSkill(
        id="saints_of_the_day",
        name="Saints of the day",
        description=(
            "The saints and celebrations of a day: the configured calendar, other particular "
            "calendars, and the Roman Martyrology when imported."
        ),
        handler=handle,
        tags=("liturgy", "saints", "martyrology", "calendar"),
        examples=('{"date": "2026-03-19"}', "today", "November 30"),
        input_modes=("text/plain", "application/json"),
        output_modes=("text/plain",),
        cheap=True,
    )
