"""One record per person: romcal's saints and blesseds with their feasts in every
calendar, the Roman Martyrology's names, imported martyrologies' names and the
authored table of popular saints, merged, and searched by name.

A Martyrology entry is the romcal person it names when both keep the same day
(a feast in some calendar) and their names agree (``names.same_person``): Saint
Kateri Tekakwitha (Canada keeps 17 April) and the Martyrology's Catherine
Tekakwitha are one record, listed once, with romcal's canonization level (she was
canonized after the 2004 edition). The authored table merges what no day joins
(Saint Joseph and Saint Joseph the Worker).

A search answers, in this order: an id; an authored nickname or patronage; the
records one of whose names the query names whole (the most honoured first: a
solemnity of the General Calendar before a Martyrology-only namesake) when none
that it names in part is more honoured ("Catherine" is Catherine of Siena before
the Martyrology's "Saint Catherine"s); else the records every word of the query
meets, best match first, the most honoured first among equals, none below the
threshold.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel
from rapidfuzz import fuzz, process

from magisterium_a2a.skills.liturgy.labels import title_name
from magisterium_a2a.skills.liturgy.martyrology import Martyrology, NamedEntry
from magisterium_a2a.skills.saints.feasts import GENERAL, Feasts, feasts
from magisterium_a2a.skills.saints.names import (
    FUZZY_MIN_LENGTH,
    FUZZY_RATIO,
    Fit,
    Name,
    Query,
    fit,
    nickname_key,
    same_person,
)
from magisterium_a2a.skills.saints.popular import Popular

LIMIT = 10
QUALITY_FLOOR = 0.8
"""Every word of the query meets a word of the name at 80% or better."""
QUALITY_WINDOW = 0.05
"""Shown beside the best match: those within this much of its quality."""
RANK_WEIGHT = {"solemnity": 6, "feast": 5, "memorial": 4, "optional_memorial": 3}
POPULAR_WEIGHT = 0.5
"""A saint of the authored table ranks before one equally honoured by the calendars."""
LEVELS = {"Saint": "saint", "Blessed": "blessed"}


class Feast(BaseModel):
    date: str
    rank: str
    calendars: list[str]


class SaintRecord(BaseModel):
    id: str
    ids: list[str] = []
    name: str
    canonization_level: str | None = None
    titles: list[str] = []
    date_of_death: str | None = None
    feasts: list[Feast] = []
    martyrology: list[str] = []
    pope_id: str | None = None
    place: str | None = None
    score: float = 0.0


@dataclass
class Person:
    """A record while the index is built."""

    ids: list[str]
    name: str
    level: str | None = None
    titles: list[str] = field(default_factory=list)
    death: str | None = None
    feasts: Feasts = field(default_factory=dict)
    days: list[str] = field(default_factory=list)
    place: str | None = None
    names: list[Name] = field(default_factory=list)
    boost: float = 0.0

    @property
    def popularity(self) -> float:
        """The General Calendar's rank counts whole, a particular calendar's half."""
        weights = [
            RANK_WEIGHT.get(rank, 1) / (1 if GENERAL in calendars else 2)
            for (_, _, rank), calendars in self.feasts.items()
        ]
        return max(weights, default=0) + self.boost

    def record(self, score: float, pope_id: str | None) -> SaintRecord:
        return SaintRecord(
            id=self.ids[0],
            ids=list(self.ids),
            name=self.name,
            canonization_level=self.level,
            titles=self.titles,
            date_of_death=self.death,
            feasts=[
                Feast(date=f"--{m:02d}-{d:02d}", rank=rank, calendars=sorted(calendars))
                for (m, d, rank), calendars in sorted(self.feasts.items())
            ],
            martyrology=sorted(self.days),
            pope_id=pope_id,
            place=self.place,
            score=score,
        )

    def add_day(self, month: int, day: int) -> None:
        when = f"--{month:02d}-{day:02d}"
        if when not in self.days:
            self.days.append(when)

    def absorb(self, other: Person) -> None:
        """Take in another record of the same person."""
        self.ids.extend(i for i in other.ids if i not in self.ids)
        for key, calendars in other.feasts.items():
            slot = self.feasts.setdefault(key, [])
            slot.extend(c for c in calendars if c not in slot)
        for when in other.days:
            if when not in self.days:
                self.days.append(when)
        self.place = self.place or other.place
        self.level = self.level or other.level
        self.death = self.death or other.death
        self.names.extend(other.names)

    def merge_feasts(self, found: Feasts) -> None:
        for key, calendars in found.items():
            slot = self.feasts.setdefault(key, [])
            slot.extend(c for c in calendars if c not in slot)

    def keeps(self, month: int, day: int) -> bool:
        return any((m, d) == (month, day) for m, d, _ in self.feasts)


def death_text(entity: dict[str, Any]) -> str | None:
    """romcal's date of death as people write it: ``1680``, ``1879-10-02``, ``c. 356``,
    ``5th century``, ``674 or 676``, ``between 1745 and 1862``."""
    value = entity.get("date_of_death")
    text: str | None
    if isinstance(value, int):
        text = str(value)
    elif isinstance(value, str):
        parts = value.split("-")
        text = "-".join([parts[0], *(p.zfill(2) for p in parts[1:])]) if parts[0] else None
    elif isinstance(value, dict) and isinstance(value.get("century"), int):
        century = value["century"]
        suffix = (
            "th"
            if 10 <= century % 100 <= 20
            else {1: "st", 2: "nd", 3: "rd"}.get(century % 10, "th")
        )
        return f"{century}{suffix} century"
    elif isinstance(value, dict) and isinstance(value.get("or"), list):
        text = " or ".join(str(v) for v in value["or"])
    elif isinstance(value, dict) and isinstance(value.get("between"), list):
        low, high = (value["between"] + [None, None])[:2]
        text = f"between {low} and {high}" if low and high else None
    else:
        text = None
    if text and entity.get("date_of_death_is_approximative"):
        return f"c. {text}"
    return text


def _bare(name: str) -> str:
    """The name without its leading title (``Saint``, ``Blessed``)."""
    head, _, rest = name.partition(" ")
    return rest if head in {"Saint", "Saints", "Blessed", "St."} and rest else name


class SaintIndex:
    """Every person romcal knows, the Martyrology's names and the authored table."""

    def __init__(
        self,
        entities: dict[str, Any],
        definitions: Any,
        martyrology: Iterable[NamedEntry],
        imported: Sequence[Martyrology],
        popular: Sequence[Popular],
    ) -> None:
        by_person, by_day = feasts(definitions)
        self.people: dict[str, Person] = {}
        self._by_id: dict[str, str] = {}
        for ident, entity in entities.items():
            if entity.get("type", "person") != "person" or not entity.get("canonization_level"):
                continue
            self.people[ident] = _romcal_person(ident, entity, by_person.get(ident, {}))
        celebrations = {
            (month, day, str(entities.get(day_id, {}).get("fullname") or "")): found
            for day_id, found in by_day.items()
            for month, day, _ in found
        }
        self._add_martyrology(martyrology, celebrations)
        self._by_id = {i: key for key, person in self.people.items() for i in person.ids}
        for book in imported:
            for entry in book.entries:
                if entry.name and entry.id:
                    person = self._person(entry.id) or self._new(entry.id, entry.name)
                    person.add_day(entry.month, entry.day)
        self._nicknames: dict[tuple[str, ...], list[str]] = {}
        for row in popular:
            self._add_popular(row, by_day)
        self._build_search()

    def _person(self, ident: str) -> Person | None:
        key = self._by_id.get(ident)
        return self.people.get(key) if key else None

    def _new(self, ident: str, name: str) -> Person:
        person = Person(ids=[ident], name=name, names=[Name.read(_bare(name))])
        self.people[ident] = person
        self._by_id[ident] = ident
        return person

    def _add_martyrology(
        self, entries: Iterable[NamedEntry], celebrations: dict[tuple[int, int, str], Feasts]
    ) -> None:
        """``celebrations``: romcal's feasts by day and celebration name; a group the
        Martyrology heads a day with (Saints Perpetua and Felicity) takes its feasts."""
        by_day: dict[tuple[int, int], list[Person]] = {}
        for person in self.people.values():
            for month, day_of_month, _ in person.feasts:
                by_day.setdefault((month, day_of_month), []).append(person)
        linked: dict[str, Person] = {}
        apart: list[tuple[str, Person]] = []
        for entry in entries:
            if not entry.current:
                continue
            name = Name.read(_bare(entry.name))
            head = entry.name.split(",")[0]
            group = entry.name.startswith("Saints ") or " and " in head or "ompanions" in head
            when = f"--{entry.month:02d}-{entry.day:02d}"
            matches = [
                p
                for p in by_day.get((entry.month, entry.day), [])
                if not group and when not in p.days and any(same_person(name, n) for n in p.names)
            ]
            if len({id(p) for p in matches}) == 1:
                person = matches[0]
                person.ids.append(entry.id)
                person.place = person.place or entry.place
                linked[_slug(entry.id)] = person
            else:
                person = self._new(entry.id, entry.name)
                person.level = LEVELS.get(entry.title or "")
                person.place = entry.place
                person.merge_feasts(celebrations.get((entry.month, entry.day, entry.name), {}))
                apart.append((_slug(entry.id), person))
            person.add_day(entry.month, entry.day)
        # The registry gives one person one slug: Thomas Aquinas on 28 January (his memorial)
        # and 7 March (his death) are one record. Only names of two words or more, not groups.
        for slug, person in apart:
            owner = linked.get(slug)
            levels = {owner.level, person.level} - {None} if owner else set()
            # Saint Louis Bertrand and Blessed Louis Bertrand (martyred in Japan) share one.
            if (
                owner is not None
                and "-" in slug
                and not slug.endswith("-et-socii")
                and len(levels) < 2
            ):
                owner.absorb(person)
                del self.people[person.ids[0]]
                self._by_id[person.ids[0]] = owner.ids[0]

    def _add_popular(self, row: Popular, by_day: dict[str, Feasts]) -> None:
        person = self._person(row.id)
        if person is None:
            return
        for other_id in row.also:
            other = self._person(other_id)
            if other is not None and other is not person:
                person.absorb(other)
                del self.people[other.ids[0]]
                for moved in other.ids:
                    self._by_id[moved] = person.ids[0]
        for celebration in row.celebrations:
            person.merge_feasts(by_day.get(celebration, {}))
        if row.name:
            person.name = row.name
        person.boost = POPULAR_WEIGHT
        person.level = person.level or "saint"
        for nickname in row.nicknames():
            keys = self._nicknames.setdefault(nickname_key(nickname), [])
            if person.ids[0] not in keys:
                keys.append(person.ids[0])

    def _build_search(self) -> None:
        self._keys = list(self.people)
        self._words: dict[str, set[int]] = {}
        for position, key in enumerate(self._keys):
            for name in self.people[key].names:
                for word in (*name.core, *name.extra):
                    self._words.setdefault(word, set()).add(position)
        self._vocabulary = list(self._words)

    def _candidates(self, query: Query) -> set[int]:
        found: set[int] | None = None
        for word in query.words:
            near = {word} if word in self._words else set()
            if len(word) >= FUZZY_MIN_LENGTH:
                hits = process.extract(
                    word, self._vocabulary, scorer=fuzz.ratio, score_cutoff=FUZZY_RATIO, limit=None
                )
                near.update(hit[0] for hit in hits)
            positions = set().union(*(self._words[w] for w in near)) if near else set()
            found = positions if found is None else found & positions
            if not found:
                return set()
        return found or set()

    def get(self, ident: str) -> Person | None:
        key = self._by_id.get(ident)
        return self.people[key] if key else None

    def search(self, text: str, popes: set[str]) -> list[tuple[Person, float]]:
        """Best first; ``popes`` holds the ids of records that are popes."""
        exact_id = self.get(text.strip())
        if exact_id is not None:
            return [(exact_id, 100.0)]
        query = Query.read(text)
        named = self._nicknames.get(tuple(sorted(query.nickname)), []) if query.nickname else []
        people = [self.people[self._by_id[k]] for k in named]
        if query.pope:
            people = [p for p in people if set(p.ids) & popes or _is_pope(p)]
        if people:
            return [(person, 100.0) for person in people[:LIMIT]]
        if not query.words:
            return []
        fits: list[tuple[Person, Fit]] = []
        for position in self._candidates(query):
            person = self.people[self._keys[position]]
            if query.pope and not (set(person.ids) & popes or _is_pope(person)):
                continue
            found = [f for f in (fit(query.words, n) for n in person.names) if f is not None]
            if found:
                fits.append((person, max(found, key=lambda f: (f.quality, f.coverage))))
        exact = sorted((pf for pf in fits if pf[1].exact), key=lambda pf: -pf[0].popularity)
        rest = [(p, f) for p, f in fits if not f.exact]
        if exact and exact[0][0].popularity >= max((p.popularity for p, _ in rest), default=0):
            return [(p, f.score) for p, f in exact[:LIMIT]]
        kept = [(p, f) for p, f in fits if f.quality >= QUALITY_FLOOR]
        if not kept:
            return []
        best = max(f.quality for _, f in kept)
        kept = [(p, f) for p, f in kept if f.quality >= best - QUALITY_WINDOW]
        kept.sort(key=lambda pf: (-round(pf[1].quality, 2), -pf[0].popularity, -pf[1].coverage))
        return [(p, f.score) for p, f in kept[:LIMIT]]


def _slug(ident: str) -> str:
    """``mr:0128-thomas-de-aquino`` -> ``thomas-de-aquino``."""
    return ident.split("-", 1)[-1]


def _is_pope(person: Person) -> bool:
    return any("pope" in (*n.core, *n.extra) for n in person.names)


def _romcal_person(ident: str, entity: dict[str, Any], found: Feasts) -> Person:
    level = entity.get("canonization_level")
    titles = [title_name(str(t)) for t in entity.get("titles") or []]
    short = str(entity.get("name") or ident.replace("_", " "))
    fullname = entity.get("fullname")
    shown = str(fullname) if fullname else f"{str(level).capitalize()} {short}"
    title_words = {w for t in entity.get("titles") or [] for w in str(t).split("_")}
    from_id = " ".join(w for w in ident.split("_") if w not in title_words)
    names = [
        Name.read(_bare(shown), " ".join(titles)),
        Name.read(short, " ".join(titles)),
        Name.read(from_id, " ".join(titles)),
    ]
    return Person(
        ids=[ident],
        name=shown,
        level=level,
        titles=titles,
        death=death_text(entity),
        feasts={k: list(v) for k, v in found.items()},
        names=names,
    )
