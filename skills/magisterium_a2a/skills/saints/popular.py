"""The authored table of the most-asked saints (``data/saints-popular.yaml``):
popular names, nicknames, patronages and the ids that are one person."""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

# libyaml when PyYAML has it (its wheels do): ten times faster than the pure-Python reader
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class Popular(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    also: tuple[str, ...] = ()
    celebrations: tuple[str, ...] = ()
    name: str | None = None
    names: tuple[str, ...] = ()
    patron: tuple[str, ...] = ()
    level: Literal["saint", "blessed", "none"] | None = None
    """The level as the row's source gives it, where the calendars and the 2004 Martyrology
    predate it (canonized since); ``none`` for a title of Our Lady, which has none."""
    died: str | None = None
    place: str | None = None
    source: str = Field(min_length=8)

    def nicknames(self) -> tuple[str, ...]:
        """Every name a reader may use, patronages asked as "patron (saint) of ..."."""
        return (*self.names, *(f"patron of {p}" for p in self.patron))


@cache
def popular_saints() -> tuple[Popular, ...]:
    text = files("magisterium_a2a.skills").joinpath("data/saints-popular.yaml").read_text("utf-8")
    return tuple(Popular.model_validate(row) for row in yaml.load(text, Loader=_LOADER))
