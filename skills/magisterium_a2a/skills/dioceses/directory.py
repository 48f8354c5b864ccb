"""The directory of jurisdictions and the forgiving search over it.

Lookup order: an exact id; an external directory code (Catholic-Hierarchy,
with or without its leading ``d``, GCatholic, Wikidata); then names. A name
whose key equals a jurisdiction's name or alias key wins outright; failing
that, the see city; failing that, a fuzzy score (rapidfuzz) over names,
aliases and sees. Several equally good answers are returned ranked, never
guessed between.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Literal

import yaml
from rapidfuzz import fuzz, process

from magisterium_a2a.skills.dioceses.model import METROPOLITAN_TYPES, Diocese
from magisterium_a2a.skills.dioceses.names import asks_metropolitan, keys, query_key

BUILTIN_FILE = "data/dioceses-us.yaml"
CUTOFF = 82.0  # below this a fuzzy candidate is no match at all
CLEAR = 90.0  # a fuzzy winner must score this much ...
MARGIN = 6.0  # ... and lead the next jurisdiction by this much
SURE_ALONE = 85.0  # or be the only candidate, scoring this much
LIMIT = 8
SEE_PENALTY = 8.0  # a see city alone says less than a name: 'Chicago' is the archdiocese
TERRITORIAL = frozenset({"archdiocese", "diocese", "archeparchy", "eparchy"})


@dataclass(frozen=True, slots=True)
class Match:
    diocese: Diocese
    score: float


@dataclass(frozen=True, slots=True)
class SearchResult:
    """``found``: one jurisdiction; ``ambiguous``: ranked candidates; ``none``."""

    outcome: Literal["found", "ambiguous", "none"]
    matches: tuple[Match, ...] = ()


@cache
def builtin_dioceses() -> tuple[Diocese, ...]:
    """The shipped directory, read once per process (records are never changed in place)."""
    text = files("magisterium_a2a.skills").joinpath(BUILTIN_FILE).read_text(encoding="utf-8")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: 10x faster
    return tuple(Diocese.model_validate(item) for item in yaml.load(text, Loader=loader))


def external_codes(diocese: Diocese) -> list[str]:
    codes = [diocese.catholic_hierarchy, diocese.gcatholic, diocese.wikidata]
    return [c.lower() for c in codes if c]


class Directory:
    """Jurisdictions by id, code and name; later records replace earlier ids."""

    def __init__(self, dioceses: Iterable[Diocese]) -> None:
        self.by_id: dict[str, Diocese] = {}
        for diocese in dioceses:
            self.by_id[diocese.id] = diocese
        self._codes: dict[str, str] = {}
        self._names: dict[str, set[str]] = {}
        self._sees: dict[str, set[str]] = {}
        self._choices: list[str] = []
        self._owners: list[str] = []
        self._penalties: list[float] = []
        self._words: list[frozenset[str]] = []
        for diocese in self.by_id.values():
            for code in external_codes(diocese):
                self._codes.setdefault(code, diocese.id)
            for text in (diocese.name, *diocese.aliases, diocese.id.replace("-", " ")):
                for k in keys(text):
                    self._names.setdefault(k, set()).add(diocese.id)
                    self._add_choice(k, diocese.id, 0.0)
            if diocese.see:
                for k in keys(diocese.see):
                    self._sees.setdefault(k, set()).add(diocese.id)
                    self._add_choice(k, diocese.id, SEE_PENALTY)

    def _add_choice(self, text: str, ident: str, penalty: float) -> None:
        self._choices.append(text)
        self._owners.append(ident)
        self._penalties.append(penalty)
        self._words.append(frozenset(text.split()))

    def __len__(self) -> int:
        return len(self.by_id)

    def get(self, ident: str) -> Diocese | None:
        return self.by_id.get(ident.strip().lower())

    def by_code(self, code: str) -> Diocese | None:
        code = code.strip().lower()
        found = self._codes.get(code)
        if found is None and len(code) > 1 and code.startswith("d"):
            found = self._codes.get(code[1:])  # catholic-hierarchy.org/diocese/dchic.html
        return self.by_id[found] if found else None

    def search(self, query: str) -> SearchResult:
        query = query.strip()
        if not query:
            return SearchResult("none")
        direct = self.get(query) or self.by_code(query)
        if direct is not None:
            return SearchResult("found", (Match(direct, 100.0),))
        wanted = query_key(query)
        if not wanted:
            return SearchResult("none")
        result = self._by_name(wanted)
        if result.outcome == "ambiguous" and asks_metropolitan(query):
            # "Archdiocese of Portland": of the Portlands only one is a metropolitan see.
            heads = [m for m in result.matches if m.diocese.type in METROPOLITAN_TYPES]
            if len(heads) == 1:
                return SearchResult("found", (heads[0],))
        return result

    def _by_name(self, wanted: str) -> SearchResult:
        named = self._names.get(wanted, set())
        seen = self._sees.get(wanted, set())
        # A see city shared with a named jurisdiction of the same Church is a rival
        # ("Springfield": two sees so named, and Springfield-Cape Girardeau's see).
        rivals = {i for i in seen - named if any(self._rivals(i, n) for n in named)}
        if len(named) == 1 and not rivals:
            (only,) = named
            return SearchResult("found", (Match(self.by_id[only], 100.0),))
        if named:
            return self._ranked(dict.fromkeys(named | rivals, 100.0))
        if len(seen) == 1:
            (only,) = seen
            return SearchResult("found", (Match(self.by_id[only], 100.0),))
        if seen:
            return self._ranked(dict.fromkeys(seen, 100.0))
        return self._fuzzy(wanted)

    def _rivals(self, a: str, b: str) -> bool:
        """Two territorial jurisdictions of one Church with the same see city."""
        one, other = self.by_id[a], self.by_id[b]
        return one.church == other.church and {one.type, other.type} <= TERRITORIAL

    def _fuzzy(self, wanted: str) -> SearchResult:
        scores: dict[str, float] = {}
        for _, score, index in process.extract(
            wanted,
            self._choices,
            scorer=fuzz.token_sort_ratio,
            limit=LIMIT * 4,
            score_cutoff=CUTOFF,
        ):
            owner = self._owners[index]
            score = float(score) - self._penalties[index]
            scores[owner] = max(scores.get(owner, 0.0), score)
        # Word containment either way: a jurisdiction named in a longer query
        # ("Erie Pennsylvania"), or a query naming part of a longer name
        # ("Ukrainian Chicago"); the more of the words covered, the better.
        asked = set(wanted.split())
        for index, have in enumerate(self._words):
            if have <= asked:
                score = 90.0 + 10.0 * len(have) / len(asked)
            elif asked <= have and len(wanted) >= 4:
                score = 80.0 + 20.0 * len(asked) / len(have)
            else:
                continue
            owner = self._owners[index]
            score -= self._penalties[index]
            scores[owner] = max(scores.get(owner, 0.0), score)
        scores = {k: v for k, v in scores.items() if v >= CUTOFF}
        if not scores:
            return SearchResult("none")
        ranked = sorted(scores.items(), key=lambda item: (-item[1], self.by_id[item[0]].name))
        best = ranked[0][1]
        alone = len(ranked) == 1 and best >= SURE_ALONE
        if alone or (best >= CLEAR and (len(ranked) == 1 or ranked[1][1] <= best - MARGIN)):
            return SearchResult("found", (Match(self.by_id[ranked[0][0]], round(best, 1)),))
        return self._ranked(dict(ranked))

    def _ranked(self, scores: dict[str, float]) -> SearchResult:
        ranked = sorted(scores.items(), key=lambda item: (-item[1], self.by_id[item[0]].name))
        return SearchResult(
            "ambiguous",
            tuple(Match(self.by_id[i], round(s, 1)) for i, s in ranked[:LIMIT]),
        )
