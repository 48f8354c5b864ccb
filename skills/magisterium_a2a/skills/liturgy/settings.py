"""Settings of the liturgical skills (``A2A_LITURGY_*``, ``A2A_TIMEZONE``)."""

from __future__ import annotations

from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, field_validator

from magisterium_a2a.plugin import PluginSettings


class LiturgySettings(PluginSettings):
    """The calendar, its locale and the time zone that decides what 'today' means."""

    liturgy_calendar: str = Field(
        "united_states",
        description="romcal calendar id for the liturgical skills (e.g. general_roman, france)",
    )
    liturgy_locale: str = Field("en", description="romcal locale of celebration names")
    timezone: str = Field("UTC", description="IANA time zone that decides what 'today' means")
    liturgy_ascension: Literal["calendar", "thursday", "sunday"] = Field(
        "calendar",
        description=(
            "the day the Ascension is the principal celebration: the calendar's own rule, "
            "or Thursday / the Seventh Sunday of Easter (the other day is still given, labelled)"
        ),
    )

    @field_validator("timezone")
    @classmethod
    def _known_timezone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"unknown time zone {value!r}") from None
        return value
