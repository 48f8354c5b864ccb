"""``person_lookup``: Catholic clergy by name or id — birth, priestly
ordination, episcopal consecration, creation as cardinal, position — from the
built-in sample of the College of Cardinals (as Wikidata had it on
2025-04-29) and any clergy an operator imported. Popes are served by
``pope_lookup``: a pope found here is a pointer to it.

The artifact ``person`` carries a text part (one person described, or the
ranked candidates with their ids) and a data part ``{"people": [...]}``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from magisterium_a2a.plugin import (
    Artifact,
    FunctionSkill,
    Message,
    SkillContext,
    SkillEnvironment,
    data_part,
    text_part,
)
from magisterium_a2a.skills.engines import people_directory
from magisterium_a2a.skills.people.clergy import Person
from magisterium_a2a.skills.people.directory import PeopleDirectory, PersonAnswer
from magisterium_a2a.skills.people.requests import read_lookup

ARTIFACT = "person"
NOT_FOUND = "No person found."


ORDERS = {
    "bishop": "cardinal-bishop",
    "priest": "cardinal-priest",
    "deacon": "cardinal-deacon",
    "patriarch": "cardinal-bishop (Eastern patriarch)",
}


def rank(person: Person) -> str:
    """The record's rank: for a cardinal, the order of the College he belongs to, as the
    record states it (``cardinal_order``) or as its title says ("Cardinal-Priest of ...")."""
    if person.kind == "pope":
        return "pope"
    if person.created_cardinal:
        if person.cardinal_order:
            return ORDERS[person.cardinal_order]
        title = (person.cardinal_title or "").lower()
        found = re.search(r"\b(bishop|priest|deacon)\b", title)
        return ORDERS[found[1]] if found else "cardinal"
    if person.consecrated_bishop:
        return "bishop"
    if person.ordained_priest:
        return "priest"
    return "clergy"


def describe(person: Person, directory: PeopleDirectory) -> str:
    lines = [f"{person.name} — {rank(person)} — person_id {person.id}"]
    if person.kind == "pope" and person.pope_id:
        pope = directory.popes.get(person.pope_id)
        born = ", ".join(x for x in (pope.birth_name if pope else None, person.born) if x)
        lines.append(
            f"Popes are served by pope_lookup: ask it for pope_id {person.pope_id}"
            + (f" (born {born})." if born else ".")
        )
        return "\n".join(lines)
    born = ", ".join(x for x in (person.born, person.birthplace) if x)
    if born:
        lines.append(f"Born {born}.")
    if person.died:
        lines.append(f"Died {person.died}.")
    steps = [
        f"{label} {value}"
        for label, value in (
            ("ordained priest", person.ordained_priest),
            ("consecrated bishop", person.consecrated_bishop),
            ("created cardinal", person.created_cardinal),
        )
        if value
    ]
    if steps:
        lines.append("; ".join(steps).capitalize() + ".")
    if person.consecrated_by:
        lines.append(f"Principal consecrator: {person.consecrated_by}.")
    if person.position:
        dated = f" (as of {person.position_as_of})" if person.position_as_of else ""
        lines.append(f"Position{dated}: {person.position}.")
    if person.education:
        lines.append(f"Education: {', '.join(person.education)}.")
    if person.image:
        lines.append(f"Image: {person.image}")
    if person.pope_id:
        pope = directory.popes.get(person.pope_id)
        name = pope.name if pope else person.pope_id
        lines.append(f"Later elected pope as {name}: see pope_lookup, pope_id {person.pope_id}.")
    lines.append(provenance(person))
    return "\n".join(lines)


def provenance(person: Person) -> str:
    source = person.source or "imported data"
    if person.as_of and person.as_of not in source:
        source = f"{source}, as of {person.as_of}"
    if person.position_source:
        source = f"{source}; position: {person.position_source}"
    return f"Source: {source}."


def record(person: Person, score: float) -> dict[str, Any]:
    data = person.model_dump()
    data["rank"] = rank(person)
    data["score"] = score
    return data


def answer(query: str | None, ident: str | None, directory: PeopleDirectory) -> PersonAnswer:
    if ident is not None:
        person = directory.get(ident)
        return PersonAnswer(people=[(person, 100.0)]) if person else PersonAnswer()
    return directory.search(query) if query else PersonAnswer()


def create(env: SkillEnvironment) -> FunctionSkill:
    directory = people_directory(env)

    async def handle(message: Message, context: SkillContext) -> Sequence[Artifact]:
        lookup = read_lookup(message, "person_id", "pietro-parolin")
        found = answer(lookup.query, lookup.ident, directory)
        if not found.people:
            return [context.artifact(ARTIFACT, [text_part(NOT_FOUND)])]
        if found.single:
            person, score = found.people[0]
            text = describe(person, directory)
            records = [record(person, score)]
        else:
            lines = [f"Several people match {lookup.query!r}; ask again with one of these ids:"]
            for person, _ in found.people:
                dated = f", as of {person.as_of}" if person.as_of else ""
                lines.append(f"- {person.id}: {person.name} ({rank(person)}{dated})")
            text = "\n".join(lines)
            records = [record(p, s) for p, s in found.people]
        return [context.artifact(ARTIFACT, [text_part(text), data_part({"people": records})])]

    return FunctionSkill(
        id="person_lookup",
        name="Person lookup",
        description=(
            "Catholic clergy (cardinals, bishops, priests; living and historical) by name or "
            "id: birth, priestly ordination, episcopal consecration, creation as cardinal, "
            "position, by name or by office. Popes are served by pope_lookup. Built-in: the "
            "College of Cardinals as of 2025-04-29 and the Curia's heads as of 2025-04-20; "
            "more can be imported."
        ),
        handler=handle,
        tags=("clergy", "cardinals", "bishops"),
        examples=(
            "Cardinal Tagle",
            "Pietro Parolin",
            "Archbishop of Chicago",
            "robert-francis-prevost",
        ),
        cheap=True,
    )
