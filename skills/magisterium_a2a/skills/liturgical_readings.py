"""``liturgical_readings``: the Mass readings of a date asked in plain language.

Answers the contract's ``mass_readings`` artifact: one text part with the date,
the celebration and its rank, season and colour, cycles, then each Mass with
its readings labelled and cited (alternatives marked "or", shorter forms
given), then, clearly labelled, the readings of a celebration some provinces
keep that day (the Ascension on Thursday or Sunday) and of a national proper
Mass (Thanksgiving Day), then the memorials of the day with their proper
readings, or the commons they may take and those commons' options, and the
memorials only commemorated on a privileged weekday (Lent, 17-24 December, the
Octave of Christmas), whose Mass is the weekday's. A date with
no readings, or a query that cannot be read, answers ``No mass readings found.``

The work runs in a worker thread and after the rate-limit check (not ``cheap``):
the first date of a year builds that year's calendar, about 0.1 s of CPU.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

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
from magisterium_a2a.skills.liturgy.commons import common_names
from magisterium_a2a.skills.liturgy.engine import DayReadings
from magisterium_a2a.skills.liturgy.lectionary import MassReadings
from magisterium_a2a.skills.liturgy.messages import query_of

NOT_FOUND = "No mass readings found."
ARTIFACT = "mass_readings"
COMMEMORATED = (
    "Commemorated (the Mass and its readings are of the day; the collect may be of the saint):"
)


def format_day(found: DayReadings) -> str:
    day = found.day
    principal = day.principal
    lines = [
        f"Mass readings for {day.date.strftime('%A, %B')} {day.date.day}, {day.date.year}",
        f"{principal.name} ({principal.rank_name})",
        f"Season: {day.season_name or '-'}; colour: {', '.join(principal.colors) or '-'}",
        f"Sunday cycle: Year {day.sunday_cycle}; weekday cycle: {day.weekday_cycle}",
    ]
    if principal.optional and day.temporal_name:
        lines.append(f"The day's Mass: {day.temporal_name}")
    for mass in found.masses:
        lines.append("")
        lines.extend(format_mass(mass, heading=len(found.masses) > 1 or mass.mass != "day_mass"))
    for other in found.others:
        lines.append("")
        lines.append(f"{other.label}: {other.name}")
        for mass in other.masses:
            heading = len(other.masses) > 1 or mass.mass != "day_mass"
            lines.extend("  " + line for line in format_mass(mass, heading=heading))
        if other.note:
            lines.append(f"  ({other.note})")
    if found.memorials:
        lines.append("")
        lines.append("Memorials:")
        for memorial in found.memorials:
            celebration = memorial.celebration
            if memorial.masses:
                lines.append(f"- {celebration.name} ({celebration.rank_name}), proper readings:")
                for mass in memorial.masses:
                    lines.extend("  " + line for line in format_mass(mass, heading=False))
            else:
                where = common_names(memorial.commons)
                lines.append(
                    f"- {celebration.name} ({celebration.rank_name}): the readings of the day, "
                    f"or from the {where}"
                )
    if found.commemorations:
        lines.append("")
        lines.append(COMMEMORATED)
        lines.extend(f"- {c.name} ({c.rank_name})" for c in found.commemorations)
    for _, common in found.commons:
        lines.append("")
        lines.append(f"{common.title} (one of each):")
        for reading in common.readings:
            options = " | ".join((reading.citation, *reading.alternatives))
            lines.append(f"  {reading.label}: {options}")
    return "\n".join(lines)


def format_mass(mass: MassReadings, *, heading: bool) -> list[str]:
    lines = [mass.title] if heading else []
    for reading in mass.readings:
        text = f"{reading.label}: {reading.citation}"
        if reading.shorter:
            text += f" (shorter form: {reading.shorter})"
        lines.append(text)
        lines.extend(f"  or: {alternative}" for alternative in reading.alternatives)
    return lines


def create(env: SkillEnvironment) -> FunctionSkill:
    liturgy = liturgy_engine(env)

    async def handle(message: Message, context: SkillContext) -> Sequence[Artifact]:
        query = query_of(message)
        text = await asyncio.to_thread(answer, query, context) if query else NOT_FOUND
        return [context.artifact(ARTIFACT, [text_part(text)])]

    def answer(query: str, context: SkillContext) -> str:
        today = liturgy.today(context.clock)
        when = resolve_date(query, today, lambda text: liturgy.resolve(text, context.clock))
        found = liturgy.readings(when) if when is not None else None
        return format_day(found) if found is not None and found.masses else NOT_FOUND

    return FunctionSkill(
        id="liturgical_readings",
        name="Liturgical readings",
        description=(
            "The Mass readings of a day of the Roman calendar, asked in plain language "
            "(today, next Sunday, Easter Sunday 2026, 2026-12-25)."
        ),
        handler=handle,
        tags=("liturgy", "lectionary", "readings", "calendar"),
        examples=(
            "today",
            "next Sunday",
            "Easter Sunday 2026",
            "2026-12-25",
            "Miércoles de Ceniza 2027",
            "nächsten Sonntag",
            "2026年12月25日",
            "다음 주일",
        ),
        input_modes=("text/plain",),
        output_modes=("text/plain",),
    )
