"""US dioceses named in other languages, as the English name ``diocese_lookup``
reads: "Arquidiócesis de Nueva York" is "Archdiocese of New York",
"ロサンゼルス大司教区" "Archdiocese of Los Angeles" (``dioceses.yaml``).

The kind of jurisdiction and the see are read apart (in either order, as CJK
writes the see first); a see the table does not know is passed on as typed, for
the engine's own matching. A query with nothing foreign in it gives None.
"""

from __future__ import annotations

from functools import cache

from magisterium_a2a.skills.language.names import Stripper, unspaced
from magisterium_a2a.skills.language.phrases import is_cjk
from magisterium_a2a.skills.language.scripts import clean, key
from magisterium_a2a.skills.language.tables import authored

MAX_QUERY_CHARS = 300


def english_name(query: str) -> str | None:
    """The English name of the jurisdiction a query names in another language, or None."""
    if len(query) > MAX_QUERY_CHARS:
        return None
    folded = key(clean(query))
    kind, rest = _take_kind(folded)
    rest = unspaced(_particles()(rest))
    if not rest:
        return None
    place = _places().get(rest)
    foreign = (kind is not None and kind[1]) or (place is not None and place[1])
    if not foreign:
        return None
    see = place[0] if place is not None else rest
    return f"{kind[0]} of {see}" if kind is not None else see


def _take_kind(folded: str) -> tuple[tuple[str, bool] | None, str]:
    """((English kind, whether the word was foreign), the rest) or (None, the text)."""
    for word, kind in _kinds():
        if is_cjk(word):
            if word in folded:
                return kind, folded.replace(word, " ", 1)
        elif f" {word} " in f" {folded} ":
            return kind, f" {folded} ".replace(f" {word} ", " ", 1)
    return None, folded


@cache
def _kinds() -> tuple[tuple[str, tuple[str, bool]], ...]:
    table: dict[str, tuple[str, bool]] = {}
    for english, words in authored("dioceses")["kinds"].items():
        for word in words:
            folded = key(str(word))
            table[folded] = (str(english), folded != key(str(english)))
    return tuple(sorted(table.items(), key=lambda item: len(item[0]), reverse=True))


@cache
def _places() -> dict[str, tuple[str, bool]]:
    table: dict[str, tuple[str, bool]] = {}
    for english, names in authored("dioceses")["places"].items():
        plain = unspaced(key(str(english)))
        for name in names:
            form = unspaced(_particles()(key(str(name))))
            table[form] = (str(english), form != plain)
    return table


@cache
def _particles() -> Stripper:
    return Stripper(authored("dioceses")["particles"])
