"""The people engine shared by ``pope_lookup`` and ``person_lookup``: the popes,
the built-in sample of the College of Cardinals, every pope as a person record
(a pointer to ``pope_lookup``), and whatever clergy an operator imported.

Records of the same person are merged by Wikidata item (an imported record
replaces the sample's); a clergy record whose Wikidata item is a pope's links
to him (``pope_id``), as the cardinal Robert Francis Prevost links to Leo XIV.
"""

from __future__ import annotations

import re
from functools import cache
from importlib.resources import files
from pathlib import Path

from pydantic import BaseModel

from magisterium_a2a.skills.people.clergy import Person, parse_json
from magisterium_a2a.skills.people.matching import Match, NameIndex, normalise
from magisterium_a2a.skills.people.offices import builtin_offices, with_office
from magisterium_a2a.skills.people.popes import Pope, PopeIndex
from magisterium_a2a.skills.people.questions import PopeQuestions
from magisterium_a2a.skills.people.store import read_imported

SAMPLE = "cardinals-2025-04-29.json"
CARDINAL = re.compile(r"\b(?:cardinal|card)s?\b", re.IGNORECASE)
# Said of every office of the Holy See, so it tells none apart ("Vatican Secretary of State").
OFFICE_NOISE = re.compile(r"\bvatican\b", re.IGNORECASE)
LIMIT = 10
CUTOFF = 80.0
CLEAR_LEAD = 8.0


@cache
def builtin_sample() -> tuple[Person, ...]:
    """The College of Cardinals as Wikidata had it on 2025-04-29 (see the file's header)."""
    text = files("magisterium_a2a.skills").joinpath(f"data/people/{SAMPLE}").read_text("utf-8")
    parsed = parse_json(text)
    if parsed.errors:
        raise ValueError(f"{SAMPLE}: {'; '.join(str(e) for e in parsed.errors)}")
    return tuple(parsed.people)


def pope_person(pope: Pope) -> Person:
    """A pope as a person record: his names and birth, and where to ask about him."""
    return Person(
        id=pope.id,
        name=f"Pope {pope.name}",
        kind="pope",
        wikidata=pope.wikidata,
        born=pope.born,
        birthplace=pope.birthplace,
        aliases=[name for name in (pope.birth_name, pope.latin_name, *pope.aliases) if name],
        pope_id=pope.id,
        source="pope_lookup",
    )


class PersonAnswer(BaseModel):
    people: list[tuple[Person, float]] = []

    @property
    def single(self) -> bool:
        if len(self.people) == 1:
            return True
        if len(self.people) > 1:
            (_, first), (_, second) = self.people[0], self.people[1]
            return first >= 90.0 and first - second >= CLEAR_LEAD
        return False


class PeopleDirectory:
    """Popes and clergy, loaded once per server."""

    def __init__(self, data_dir: Path, popes: PopeIndex | None = None) -> None:
        self.popes = popes if popes is not None else PopeIndex()
        self.questions = PopeQuestions(self.popes)
        records: dict[str, Person] = {}
        offices = builtin_offices()
        for person in (*builtin_sample(), *read_imported(data_dir)):
            records[person.key] = with_office(person, offices)
        by_id: dict[str, Person] = {}
        self.by_pope: dict[str, str] = {}
        for person in records.values():
            pope = self.popes.by_wikidata.get(person.wikidata or "")
            if pope is not None and person.kind != "pope":
                names = [*person.aliases, f"Pope {pope.name}", pope.latin_name]
                person = person.model_copy(update={"pope_id": pope.id, "aliases": names})
                self.by_pope[pope.id] = person.id
            by_id[person.id] = person
        for pope in self.popes.popes:
            if pope.id not in self.by_pope and pope.id not in by_id:
                by_id[pope.id] = pope_person(pope)
                self.by_pope[pope.id] = pope.id
        self.people = by_id
        # Unlimited here: clergy are ranked before popes of equal score, then cut to LIMIT.
        self._names = NameIndex(CUTOFF, len(by_id))
        self._offices = NameIndex(CUTOFF, LIMIT)
        for person in self.people.values():
            self._names.add(person.id, [person.name, *person.aliases])
            if person.position:
                held = OFFICE_NOISE.sub(" ", person.position).split("; ")
                self._offices.add(person.id, held)

    def get(self, person_id: str) -> Person | None:
        """By id; a pope's id also finds the clergy record he has (``leo-xiv``)."""
        ident = person_id.strip().lower()
        return self.people.get(ident) or self.people.get(self.by_pope.get(ident, ""))

    def person_of_pope(self, pope_id: str) -> Person | None:
        return self.people.get(self.by_pope.get(pope_id, ""))

    def search(self, query: str) -> PersonAnswer:
        """By id; by name, exactly; by office, exactly ("Archbishop of Chicago"); by name,
        forgivingly; by office, forgivingly ("Vatican Secretary of State"). A query that
        says "Cardinal" is not answered with a pope ("Cardinal Gregory")."""
        if (person := self.get(query)) is not None:
            return PersonAnswer(people=[(person, 100.0)])
        cleaned = normalise(query)
        if not cleaned:
            return PersonAnswer()
        clergy_only = CARDINAL.search(query) is not None
        office = normalise(OFFICE_NOISE.sub(" ", query))
        for index, asked, fuzzy in (
            (self._names, cleaned, False),
            (self._offices, office, False),
            (self._names, cleaned, True),
            (self._offices, office, True),
        ):
            if not asked:
                continue
            found = index.fuzzy(asked) if fuzzy else [Match(k, 100.0) for k in index.exact(asked)]
            ranked = self._ranked(found, clergy_only)
            if ranked:
                return PersonAnswer(people=ranked)
        return PersonAnswer()

    def _ranked(self, matches: list[Match], clergy_only: bool) -> list[tuple[Person, float]]:
        """Clergy before popes of the same score; only clergy when a cardinal is asked for."""
        people = [(self.people[m.key], m.score) for m in matches]
        if clergy_only and any(p.kind != "pope" for p, _ in people):
            people = [(p, s) for p, s in people if p.kind != "pope"]
        people.sort(key=lambda item: (-item[1], item[0].kind == "pope"))
        return people[:LIMIT]
