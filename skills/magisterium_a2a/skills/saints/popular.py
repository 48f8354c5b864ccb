"""The authored table of the most-asked saints (``data/saints-popular.yaml``):
popular names, nicknames, patronages and the ids that are one person."""

from __future__ import annotations

from functools import cache
from importlib.resources import files

import yaml
from pydantic import BaseModel, ConfigDict, Field


class Popular(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    also: tuple[str, ...] = ()
    celebrations: tuple[str, ...] = ()
    name: str | None = None
    names: tuple[str, ...] = ()
    patron: tuple[str, ...] = ()
    source: str = Field(min_length=8)

    def nicknames(self) -> tuple[str, ...]:
        """Every name a reader may use, patronages asked as "patron (saint) of ..."."""
        return (*self.names, *(f"patron of {p}" for p in self.patron))


@cache
def popular_saints() -> tuple[Popular, ...]:
    text = files("magisterium_a2a.skills").joinpath("data/saints-popular.yaml").read_text("utf-8")
    return tuple(Popular.model_validate(row) for row in yaml.safe_load(text))
