"""US dioceses named in other languages, as the English name ``diocese_lookup``
reads: "Arquidiócesis de Nueva York" is "Archdiocese of New York",
"ロサンゼルス大司教区" "Archdiocese of Los Angeles" (``dioceses.yaml``).

The kind of jurisdiction, the Eastern Church it belongs to and the see are read
apart (in any order, as CJK writes the see first): "费城乌克兰天主教总教区" is the
"Ukrainian Archeparchy of Philadelphia" (a jurisdiction named with its rite is an
eparchy, whatever word the language has for its kind). A see the table does not
know is passed on as typed, for the engine's own matching; the names that are no
see's (the US territories, "Military Services") are read as sees are. A query with
nothing foreign in it gives None.
"""

from __future__ import annotations

from functools import cache

from magisterium_a2a.skills.language.names import Stripper, unspaced
from magisterium_a2a.skills.language.phrases import take
from magisterium_a2a.skills.language.scripts import clean, key
from magisterium_a2a.skills.language.tables import authored

MAX_QUERY_CHARS = 300


def english_name(query: str) -> str | None:
    """The English name of the jurisdiction a query names in another language, or None."""
    if len(query) > MAX_QUERY_CHARS:
        return None
    folded = key(clean(query))
    kind, rest = take(folded, _words("kinds"))
    rite, rest = take(rest, _words("rites"))
    rest = unspaced(_particles()(rest))
    if not rest:
        return None
    place = _places().get(rest)
    found = [part for part in (kind, rite, place) if part is not None]
    if not any(foreign for _, foreign in found):
        return None
    see = place[0] if place is not None else rest
    if rite is None:
        return f"{kind[0]} of {see}" if kind is not None else see
    eastern = EASTERN_KINDS.get(kind[0], kind[0]) if kind is not None else "Eparchy"
    return f"{rite[0]} {eastern} of {see}"


# The kind of an Eastern Church's jurisdiction, for the word a language uses for any.
EASTERN_KINDS = {"Archdiocese": "Archeparchy", "Diocese": "Eparchy"}
Words = tuple[tuple[str, tuple[str, bool]], ...]


@cache
def _words(kind: str) -> Words:
    """A table of words (``kinds``, ``rites``), longest first."""
    table: dict[str, tuple[str, bool]] = {}
    for english, words in authored("dioceses")[kind].items():
        for word in words:
            folded = key(str(word))
            table[folded] = (str(english), folded != key(str(english)))
    return tuple(sorted(table.items(), key=lambda item: len(item[0]), reverse=True))


@cache
def _places() -> dict[str, tuple[str, bool]]:
    table: dict[str, tuple[str, bool]] = {}
    authored_ = authored("dioceses")
    for english, names in (*authored_["places"].items(), *authored_["also"].items()):
        plain = unspaced(key(str(english)))
        for name in names:
            form = unspaced(_particles()(key(str(name))))
            table[form] = (str(english), form != plain)
    return table


@cache
def _particles() -> Stripper:
    return Stripper(authored("dioceses")["particles"])
