"""Saints named in any of our languages, as the id ``saint_lookup`` answers with
(romcal's entity id): "San José", "聖ヨセフ", "성 요셉", "Thánh Giuse" are all
``joseph_spouse_of_mary``; "Sant'Ignazio di Loyola" is ``ignatius_of_loyola_priest``.

Names come from romcal's locales (a name and its part before the first comma:
"San Ignacio de Loyola, presbítero") and the team's table of the most-asked
saints (``saints.yaml``), both without their titles (San, Sant', Hl., Św., 聖, 성 ...),
the words of a question about them ("¿Cuándo es la fiesta de ...?", "...の祝日は
いつですか"), a pope's title ("papa", "Papst", "교황") and a leading article ("el Cura
de Ars", "l'archange Gabriel"). Only a whole name matches; a name two saints share is
dropped unless the table settles it; a name that is also an English one is left to
the engine, whose ranking already reads English, unless another language's word for
pope is around it ("pape Paul VI"); a query with a pope's title answers only with a
pope ("프란치스코 교황" is not 성 프란치스코 of Assisi).
"""

from __future__ import annotations

from functools import cache

from magisterium_a2a.skills.language.celebrations import variants
from magisterium_a2a.skills.language.names import (
    KOREAN_PARTICLES,
    Stripper,
    unspaced,
    without_particles,
)
from magisterium_a2a.skills.language.phrases import is_cjk
from magisterium_a2a.skills.language.scripts import clean, has_hangul, key
from magisterium_a2a.skills.language.tables import authored, romcal_rows

MAX_QUERY_CHARS = 120
# romcal's ids of the saints who were popes end so (john_paul_ii_pope, leo_i_the_great_pope).
POPE_SUFFIX = "_pope"


def saint_id(query: str) -> str | None:
    """The id of the saint a query names in another language, or None."""
    if len(query) > MAX_QUERY_CHARS:
        return None
    form = _form(query)
    pope = _asks_for_a_pope(query)
    # An English name is left to the engine, unless another language's word for pope is
    # around it ("pape Paul VI"), which the engine does not read.
    if not form or (form in _english() and not pope) or form in _ambiguous():
        return None
    ident = _index().get(form)
    if ident is not None and pope and not ident.endswith(POPE_SUFFIX):
        return None  # "프란치스코 교황" is the pope, not 성 프란치스코 of Assisi
    return ident


def english_query(query: str) -> str | None:
    """What the engine should read for a query in another language that names no saint
    of the tables: a patronage question as "patron of ..." ("santo patrono de las cosas
    perdidas" is "patron of lost things"), else a Latin-script name without the titles
    and question words of our languages ("Sainte Bernadette Soubirous" is "bernadette
    soubirous"); None when there is nothing to translate."""
    if len(query) > MAX_QUERY_CHARS:
        return None
    folded = key(clean(query))
    patronage = _patronage(folded)
    if patronage is not None:
        return f"patron of {patronage}"
    bare = _titles()(folded)
    if bare and bare != folded and not is_cjk(bare):
        return bare
    return None


def _patronage(folded: str) -> str | None:
    """The English patronage a patron-saint question asks for, or None."""
    padded = f" {folded} "
    for word in _patron_words():
        if is_cjk(word):
            found = word in folded
            rest = folded.replace(word, " ", 1)
        else:
            found = f" {word} " in padded
            rest = padded.replace(f" {word} ", " ", 1)
        if found:
            return _patronages().get(_patronage_form(rest))
    return None


def _patronage_form(text: str) -> str:
    return unspaced(without_particles(_patron_fillers()(_titles()(" ".join(text.split())))))


@cache
def _patron_fillers() -> Stripper:
    words = authored("saints")["patron_fillers"]
    return Stripper(str(w) for w in words if str(w) not in KOREAN_PARTICLES)


@cache
def _patron_words() -> tuple[str, ...]:
    words = {key(str(w)) for w in authored("saints")["patron_words"]} - {""}
    return tuple(sorted(words, key=len, reverse=True))


@cache
def _patronages() -> dict[str, str]:
    return {
        _patronage_form(key(str(form))): str(english)
        for english, forms in authored("saints")["patronages"].items()
        for form in (english, *forms)
    }


def _form(text: str) -> str:
    """A name as it is matched: folded, without titles, a pope's title ("papa San Juan
    XXIII", "교황 요한 바오로 2세") or a leading article ("el Cura de Ars", "l'archange
    Gabriel", "der Völkerapostel")."""
    return unspaced(_without_article(_pope_titles()(_titles()(key(clean(text))))))


def _asks_for_a_pope(text: str) -> bool:
    folded = _titles()(key(clean(text)))
    return _pope_titles()(folded) != folded


def _without_article(text: str) -> str:
    first, _, rest = text.partition(" ")
    return rest if rest and first in _articles() else text


@cache
def _pope_titles() -> Stripper:
    return Stripper(authored("saints")["pope_titles"])


@cache
def _articles() -> frozenset[str]:
    return frozenset(key(str(word)) for word in authored("saints")["articles"])


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
                for variant in _orders(str(name)):
                    if form := _form(variant):
                        index[form] = str(ident)
    return index


def _orders(name: str) -> tuple[str, ...]:
    """A name, and a Korean one of two words also the other way round: Korean Catholics
    write the baptismal name after the family name or before it (김대건 안드레아,
    안드레아 김대건)."""
    words = _titles()(key(clean(name))).split()
    if len(words) == 2 and has_hangul(name):
        return (name, f"{words[1]} {words[0]}")
    return (name,)


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
