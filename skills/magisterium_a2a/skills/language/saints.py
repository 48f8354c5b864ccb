"""Saints named in any of our languages, as the id ``saint_lookup`` answers with
(romcal's entity id): "San José", "聖ヨセフ", "성 요셉", "Thánh Giuse" are all
``joseph_spouse_of_mary``; "Sant'Ignazio di Loyola" is ``ignatius_of_loyola_priest``.

Names come from romcal's locales (a name and its part before the first comma:
"San Ignacio de Loyola, presbítero") and the team's table of the most-asked
saints (``saints.yaml``), both without their titles (San, Hl., Św., 聖, 성 ...).
Only a whole name matches; a name two saints share is dropped unless the table
settles it; a name that is also an English one is left to the engine, whose
ranking already reads English.
"""

from __future__ import annotations

from functools import cache

from magisterium_a2a.skills.language.celebrations import variants
from magisterium_a2a.skills.language.names import Stripper, unspaced
from magisterium_a2a.skills.language.scripts import clean, key
from magisterium_a2a.skills.language.tables import authored, romcal_rows

MAX_QUERY_CHARS = 120


def saint_id(query: str) -> str | None:
    """The id of the saint a query names in another language, or None."""
    if len(query) > MAX_QUERY_CHARS:
        return None
    form = _form(query)
    if not form or form in _english() or form in _ambiguous():
        return None
    return _index().get(form)


def _form(text: str) -> str:
    return unspaced(_titles()(key(clean(text))))


@cache
def _index() -> dict[str, str]:
    found: dict[str, set[str]] = {}
    for language, ident, name in romcal_rows("name"):
        if language != "en":
            for variant in variants(name):
                found.setdefault(_form(variant), set()).add(ident)
    index: dict[str, str] = {}
    for form, idents in found.items():
        base = min(idents, key=len)
        if form and all(i.startswith(base) for i in idents):
            index[form] = base
    for ident, languages in authored("saints")["saints"].items():
        for names in languages.values():
            for name in names:
                if form := _form(str(name)):
                    index[form] = str(ident)
    return index


@cache
def _english() -> frozenset[str]:
    return frozenset(
        _form(variant)
        for language, _, name in romcal_rows("name")
        if language == "en"
        for variant in variants(name)
    )


@cache
def _ambiguous() -> frozenset[str]:
    return frozenset(_form(str(name)) for name in authored("saints")["ambiguous"])


@cache
def _titles() -> Stripper:
    return Stripper(authored("saints")["titles"])
