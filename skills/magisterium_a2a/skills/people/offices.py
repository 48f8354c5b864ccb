"""The offices cardinals held (``data/people/offices.yaml``): the heads of the
Roman Curia and the residential sees of the sample's cardinals, authored with
the date they stood on and a source each, and given to the person records that
carry no position of their own."""

from __future__ import annotations

from functools import cache
from importlib.resources import files

import yaml
from pydantic import BaseModel, ConfigDict, Field

from magisterium_a2a.skills.people.clergy import Person
from magisterium_a2a.skills.people.dates import DateText


class Office(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    wikidata: str = Field(pattern=r"^Q\d+$")
    name: str
    positions: list[str] = Field(min_length=1)
    source: str = Field(min_length=8)


class Offices(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    as_of: DateText
    offices: list[Office]


@cache
def builtin_offices() -> Offices:
    text = files("magisterium_a2a.skills").joinpath("data/people/offices.yaml").read_text("utf-8")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return Offices.model_validate(yaml.load(text, Loader=loader))


def with_office(person: Person, offices: Offices) -> Person:
    """The person with the table's positions, dated, unless the record has its own."""
    if person.position or person.wikidata is None:
        return person
    office = next((o for o in offices.offices if o.wikidata == person.wikidata), None)
    if office is None:
        return person
    return person.model_copy(
        update={
            "position": "; ".join(office.positions),
            "position_as_of": offices.as_of,
            "position_source": office.source,
        }
    )
