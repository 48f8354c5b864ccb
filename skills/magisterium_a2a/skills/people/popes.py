"""The popes: the built-in list (``data/people/popes.yaml``), the antipopes it
leaves out (``data/people/antipopes.yaml``), and a forgiving search over both.

Every fact is in the data files, authored by the team with their sources named
in the headers; nothing here computes or completes a fact.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from magisterium_a2a.skills.people.dates import DateText, year_of
from magisterium_a2a.skills.people.matching import NameIndex, normalise, ordinal_of

EndOfPontificate = Literal["death", "resignation", "deposition"]
Status = Literal["saint", "blessed", "venerable"]
LIMIT = 10
CUTOFF = 75.0
SURE = 90.0
CLEAR_LEAD = 8.0


class Pontificate(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    number: int = Field(ge=1, description="place in the list of the Roman pontiffs")
    elected: DateText | None
    installed: DateText | None
    ended: DateText | None
    end: EndOfPontificate | None


class Pope(BaseModel):
    """One pope as the data file states him, plus his links to the other skills."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    name: str
    latin_name: str
    birth_name: str | None
    born: DateText | None
    birthplace: str | None
    pontificates: list[Pontificate] = Field(min_length=1)
    died: DateText | None
    status: Status | None
    beatified: DateText | None
    canonized: DateText | None
    wikidata: str | None = Field(pattern=r"^Q\d+$")
    saint_id: str | None
    aliases: list[str]
    note: str | None

    @property
    def regnal_name(self) -> str:
        words = self.name.split()
        return " ".join(words[:-1]) if ordinal_of(normalise(self.name)) else self.name

    @property
    def ordinal(self) -> int | None:
        numeral = ordinal_of(normalise(self.name))
        if numeral is None:
            return None
        values = {"i": 1, "v": 5, "x": 10, "l": 50}
        total = 0
        for here, after in zip(numeral, [*numeral[1:], ""], strict=True):
            value = values[here]
            total += -value if after and values[after] > value else value
        return total

    def span(self) -> str:
        first, last = self.pontificates[0], self.pontificates[-1]
        end = "" if last.ended is None and last.end is None else year_of(last.ended)
        return f"{year_of(first.elected)}\N{EN DASH}{end}"

    def record(self) -> dict[str, Any]:
        """The data part's shape: the file's fields plus the name's parts and numbers."""
        data = self.model_dump()
        data["regnal_name"] = self.regnal_name
        data["ordinal"] = self.ordinal
        data["numbers"] = [p.number for p in self.pontificates]
        return data


class Antipope(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    birth_name: str | None
    years: str
    note: str | None = None


def _load(name: str) -> Any:
    text = files("magisterium_a2a.skills").joinpath(f"data/people/{name}").read_text("utf-8")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(text, Loader=loader)


@cache
def builtin_popes() -> tuple[Pope, ...]:
    """Every pope of the built-in list, in the list's order (parsed once per process)."""
    popes = tuple(Pope.model_validate(entry) for entry in _load("popes.yaml"))
    return tuple(sorted(popes, key=lambda p: p.pontificates[0].number))


@cache
def builtin_antipopes() -> tuple[Antipope, ...]:
    return tuple(Antipope.model_validate(entry) for entry in _load("antipopes.yaml"))


class PopeAnswer(BaseModel):
    """What a search found: popes ranked by score, or an antipope it recognised."""

    popes: list[tuple[Pope, float]] = []
    antipopes: list[Antipope] = []
    exact: bool = False
    because: str | None = None
    """For a descriptive question ("the pope before Francis"): what it was found to ask."""

    @property
    def single(self) -> bool:
        """One pope is meant: an exact hit, or a fuzzy one well ahead of the next."""
        if self.exact or len(self.popes) == 1:
            return len(self.popes) == 1
        if len(self.popes) > 1:
            (_, first), (_, second) = self.popes[0], self.popes[1]
            return first >= SURE and first - second >= CLEAR_LEAD
        return False


class PopeIndex:
    """Search the popes by id, regnal name (numerals or words), Latin name,
    birth name or alias; name antipopes when asked about one."""

    def __init__(
        self, popes: tuple[Pope, ...] | None = None, antipopes: tuple[Antipope, ...] | None = None
    ) -> None:
        self.popes = popes if popes is not None else builtin_popes()
        self.antipopes = antipopes if antipopes is not None else builtin_antipopes()
        self.by_id = {pope.id: pope for pope in self.popes}
        self.by_saint = {pope.saint_id: pope for pope in self.popes if pope.saint_id}
        self.by_wikidata = {pope.wikidata: pope for pope in self.popes if pope.wikidata}
        self._names = NameIndex(CUTOFF, LIMIT)
        for pope in reversed(self.popes):  # the most recent of a name ranks first on a tie
            self._names.add(pope.id, [pope.name, pope.latin_name, pope.birth_name, *pope.aliases])
        self._antipopes = NameIndex(90.0, LIMIT)
        for index, antipope in enumerate(self.antipopes):
            self._antipopes.add(str(index), [antipope.name, antipope.birth_name])

    def get(self, pope_id: str) -> Pope | None:
        return self.by_id.get(pope_id.strip().lower())

    def search(self, query: str) -> PopeAnswer:
        if (pope := self.get(query)) is not None:
            return PopeAnswer(popes=[(pope, 100.0)], exact=True)
        asks_antipope = "antipope" in query.lower() or "anti pope" in query.lower()
        cleaned = normalise(query.lower().replace("anti-pope", "").replace("antipope", ""))
        if not cleaned:
            return PopeAnswer()
        antipopes = [self.antipopes[int(k)] for k in self._antipopes.exact(cleaned)]
        if asks_antipope:
            antipopes = antipopes or [
                self.antipopes[int(m.key)] for m in self._antipopes.fuzzy(cleaned)
            ]
            return PopeAnswer(antipopes=antipopes)
        exact = self._names.exact(cleaned)
        if exact:
            return PopeAnswer(popes=[(self.by_id[k], 100.0) for k in exact], exact=len(exact) == 1)
        if antipopes:  # a name only an antipope bore (Felix V, John XVI, ...)
            return PopeAnswer(antipopes=antipopes)
        ordinal = ordinal_of(cleaned)
        allowed = self._names.with_ordinal(ordinal) if ordinal else None
        matches = self._names.fuzzy(cleaned, allowed)
        return PopeAnswer(popes=[(self.by_id[m.key], m.score) for m in matches])
