"""The people engine shared by ``pope_lookup`` and ``person_lookup``: the popes,
the built-in sample of the College of Cardinals, every pope as a person record
(a pointer to ``pope_lookup``), and whatever clergy an operator imported.

Records of the same person are merged by Wikidata item (an imported record
replaces the sample's); a clergy record whose Wikidata item is a pope's links
to him (``pope_id``), as the cardinal Robert Francis Prevost links to Leo XIV.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from pathlib import Path

from pydantic import BaseModel

from magisterium_a2a.skills.people.clergy import Person, parse_json
from magisterium_a2a.skills.people.matching import NameIndex, normalise
from magisterium_a2a.skills.people.popes import Pope, PopeIndex
from magisterium_a2a.skills.people.store import read_imported

SAMPLE = "cardinals-2025-04-29.json"
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
        records: dict[str, Person] = {}
        for person in (*builtin_sample(), *read_imported(data_dir)):
            records[person.key] = person
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
        self._names = NameIndex(CUTOFF, LIMIT)
        for person in self.people.values():
            self._names.add(person.id, [person.name, *person.aliases])

    def get(self, person_id: str) -> Person | None:
        """By id; a pope's id also finds the clergy record he has (``leo-xiv``)."""
        ident = person_id.strip().lower()
        return self.people.get(ident) or self.people.get(self.by_pope.get(ident, ""))

    def person_of_pope(self, pope_id: str) -> Person | None:
        return self.people.get(self.by_pope.get(pope_id, ""))

    def search(self, query: str) -> PersonAnswer:
        if (person := self.get(query)) is not None:
            return PersonAnswer(people=[(person, 100.0)])
        cleaned = normalise(query)
        if not cleaned:
            return PersonAnswer()
        exact = self._names.exact(cleaned)
        if exact:
            return PersonAnswer(people=[(self.people[k], 100.0) for k in exact])
        matches = self._names.fuzzy(cleaned)
        return PersonAnswer(people=[(self.people[m.key], m.score) for m in matches])
