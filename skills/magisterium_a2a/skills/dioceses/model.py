"""The records of the diocese family: a jurisdiction, our 19 statistics
metrics, the two derived from them, and the financial totals an import may add."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from magisterium_a2a.skills.imports import Text, Texts

JurisdictionType = Literal[
    "archdiocese",
    "diocese",
    "archeparchy",
    "eparchy",
    "military_ordinariate",
    "personal_ordinariate",
    "apostolic_exarchate",
    "apostolic_vicariate",
    "apostolic_prefecture",
    "territorial_prelature",
    "territorial_abbacy",
    "apostolic_administration",
    "mission_sui_iuris",
    "patriarchate",
]
TYPES: tuple[str, ...] = JurisdictionType.__args__  # type: ignore[attr-defined]
METROPOLITAN_TYPES = frozenset({"archdiocese", "archeparchy", "patriarchate"})

# The 19 metrics we store, in the order they are shown. Names are ours and stable.
METRICS: tuple[str, ...] = (
    "catholics",
    "total_population",
    "percent_catholic",
    "diocesan_priests",
    "religious_priests",
    "permanent_deacons",
    "male_religious",
    "female_religious",
    "parishes",
    "seminarians",
    "baptisms",
    "confirmations",
    "first_communions",
    "marriages",
    "ordinations",
    "schools",
    "hospitals",
    "welfare_institutions",
    "marriage_nullity_processes",
)
# Computed when shown, never stored: a source's own totals are not kept.
DERIVED: tuple[str, ...] = ("total_priests", "catholics_per_priest")
# The headline metrics ``diocese_lookup`` shows for its last five years.
HEADLINE: tuple[str, ...] = (
    "catholics",
    "total_population",
    "percent_catholic",
    "diocesan_priests",
    "religious_priests",
    "total_priests",
    "catholics_per_priest",
    "permanent_deacons",
    "parishes",
)
FINANCIAL_FIELDS: tuple[str, ...] = ("total_revenue", "total_expenses", "net_assets")


class Diocese(BaseModel):
    """One jurisdiction of the directory; see the header of ``dioceses-us.yaml``."""

    model_config = ConfigDict(extra="forbid")

    # Text fields are bounded (``imports``): an imported file's records are shown
    # to every caller, so one record cannot make an answer of megabytes.
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{0,99}$")
    name: Text = Field(min_length=1)
    type: JurisdictionType
    church: Text | None = None
    rite: Text | None = None
    country: str | None = Field(None, pattern=r"^[A-Z]{2}$")
    province: Text | None = None
    metropolitan: Text | None = None
    see: Text | None = None
    state: Text | None = None
    cathedral: Text | None = None
    co_cathedral: Text | None = None
    erected: int | None = Field(None, ge=1, le=2100)
    aliases: Texts = []
    catholic_hierarchy: Text | None = None
    gcatholic: Text | None = None
    wikidata: str | None = Field(None, pattern=r"^Q[1-9][0-9]*$")

    @field_validator("catholic_hierarchy", "gcatholic")
    @classmethod
    def _code(cls, value: str | None) -> str | None:
        return value.strip().lower() or None if value is not None else None


def derived(values: dict[str, float | None]) -> dict[str, float | None]:
    """Total priests and Catholics per priest, when the parts are known."""
    diocesan, religious = values.get("diocesan_priests"), values.get("religious_priests")
    total = diocesan + religious if diocesan is not None and religious is not None else None
    catholics = values.get("catholics")
    per_priest = round(catholics / total) if catholics is not None and total else None
    return {"total_priests": total, "catholics_per_priest": per_priest}


def number(value: float | None) -> int | float | None:
    """A stored value as JSON shows it: whole numbers without ``.0``."""
    if value is None:
        return None
    return int(value) if float(value).is_integer() else value
