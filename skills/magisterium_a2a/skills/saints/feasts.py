"""The feasts of every romcal calendar by person, read from the calendar definitions.

A particular calendar often restates a General Calendar day without its date or
rank ("Saint Thérèse, co-patroness of France" in ``france``): those come from the
calendar it inherits from. A celebration honours the people its ``entities``
name (Saints Joachim and Anne), else the person of its own id.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import romcal

# Fixed dates of romcal's date functions (General Roman Calendar) and of the fixed
# solemnities of the Proper of Time.
DATE_FUNCTIONS: dict[str, tuple[int, int]] = {
    "all_saints": (11, 1),
    "annunciation": (3, 25),
    "assumption": (8, 15),
    "exaltation_of_the_holy_cross": (9, 14),
    "immaculate_conception_of_mary": (12, 8),
    "nativity_of_john_the_baptist": (6, 24),
    "peter_and_paul_apostles": (6, 29),
    "presentation_of_the_lord": (2, 2),
    "transfiguration": (8, 6),
}
FIXED_TEMPORAL: dict[str, tuple[int, int]] = {
    "nativity_of_the_lord": (12, 25),
    "mary_mother_of_god": (1, 1),
    "epiphany_of_the_lord": (1, 6),
}
RANKS = ("solemnity", "feast", "optional_memorial", "memorial")
GENERAL = "general_roman"

# (month, day, rank) -> calendars
Feasts = dict[tuple[int, int, str], list[str]]


def rank_of(precedence: str) -> str:
    for rank in RANKS:
        if rank.split("_")[0] in precedence:
            return rank
    return "celebration"


def fixed_date(date_def: Mapping[str, Any] | None) -> tuple[int, int] | None:
    when = date_def or {}
    if isinstance(when.get("month"), int) and isinstance(when.get("date"), int):
        return when["month"], when["date"]
    function = when.get("date_fn")
    return DATE_FUNCTIONS.get(function) if isinstance(function, str) else None


def _days(definition: romcal.CalendarDefinition) -> dict[str, dict[str, Any]]:
    raw = definition.model_dump(mode="json").get("days_definitions") or {}
    return {day_id: spec or {} for day_id, spec in raw.items()}


def _people(day_id: str, spec: Mapping[str, Any]) -> list[str]:
    found = []
    for entity in spec.get("entities") or [day_id]:
        ident = entity.get("id") if isinstance(entity, dict) else entity
        if isinstance(ident, str):
            found.append(ident)
    return found


def feasts(
    definitions: Mapping[str, romcal.CalendarDefinition],
) -> tuple[dict[str, Feasts], dict[str, Feasts]]:
    """Feasts by person id, and by celebration id, across every calendar."""
    days = {calendar: _days(definition) for calendar, definition in definitions.items()}

    def inherited(calendar: str, day_id: str, key: str) -> Any:
        """The value from the calendar, else its parents', else the General Calendar's
        (the root every calendar extends)."""
        chain, seen = [calendar], set()
        while chain:
            current = chain.pop(0)
            if current in seen or current not in definitions:
                continue
            seen.add(current)
            value = days[current].get(day_id, {}).get(key)
            if value:
                return value
            chain.extend(definitions[current].parent_calendar_ids or [])
            if not chain and GENERAL not in seen:
                chain.append(GENERAL)
        return None

    by_person: dict[str, Feasts] = {}
    by_day: dict[str, Feasts] = {}
    for calendar in sorted(days):
        for day_id, spec in days[calendar].items():
            if spec.get("drop"):
                continue
            when = fixed_date(inherited(calendar, day_id, "date_def"))
            if when is None and calendar == "temporal_cycle":
                when = FIXED_TEMPORAL.get(day_id)
            if when is None:
                continue
            rank = rank_of(str(inherited(calendar, day_id, "precedence") or ""))
            key = (*when, rank)
            by_day.setdefault(day_id, {}).setdefault(key, []).append(calendar)
            for person in _people(day_id, spec):
                by_person.setdefault(person, {}).setdefault(key, []).append(calendar)
    return by_person, by_day
