"""Settings of the liturgical skills (``A2A_LITURGY_*``, ``A2A_TIMEZONE``)."""

from __future__ import annotations

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

    @field_validator("timezone")
    @classmethod
    def _known_timezone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"unknown time zone {value!r}") from None
        return value
