"""Forgiving name keys: accents, case, punctuation, "St."/"Saint" and the words
that name a kind of jurisdiction ("Archdiocese of", "Eparchy", "Diócesis de")
do not decide a match; the place and the patron do."""

from __future__ import annotations

import re

from magisterium_a2a.skills.text import fold as text_fold

_WORD = re.compile(r"[a-z0-9]+")
_SAINT = {"st": "saint", "ste": "saint", "sts": "saints", "ss": "saints", "san": "saint"}
# Words that say what a jurisdiction is, not which one; ignored in keys.
KIND_WORDS = frozenset(
    (
        "archdiocese",
        "diocese",
        "dioceses",
        "eparchy",
        "archeparchy",
        "archieparchy",
        "eparchial",
        "ordinariate",
        "personal",
        "metropolitan",
        "roman",
        "catholic",
        "church",
        "rite",
        "of",
        "the",
        "in",
        "and",
        "for",
        "de",
        "del",
        "della",
        "di",
        "des",
        "du",
        "la",
        "le",
        "los",
        "las",
        "diocesis",
        "arquidiocesis",
        "archidiocesis",
        "archidioecesis",
        "dioecesis",
        "diocesi",
        "arcidiocesi",
        "bistum",
        "erzbistum",
        "eveche",
        "archeveche",
        "see",
        "territorial",
        "prelature",
        "vicariate",
        "apostolic",
        "exarchate",
    )
)
# Articles and prepositions among KIND_WORDS: dropped from a key unless nothing else is left,
# so that "LA" (Los Angeles) is still a name.
ARTICLES = frozenset(
    (
        "of",
        "the",
        "in",
        "and",
        "for",
        "de",
        "del",
        "della",
        "di",
        "des",
        "du",
        "la",
        "le",
        "los",
        "las",
    )
)
# Words that say the jurisdiction asked for is a metropolitan see ("Archdiocese of Portland").
METROPOLITAN_WORDS = frozenset(("archdiocese", "archeparchy", "archieparchy", "arquidiocesis"))
# "in Oregon", "in Illinois": a qualifier some official names carry after the see.
_QUALIFIER = re.compile(r"\s+in\s+[a-z ]+$")
# Question words stripped from a free-text query ("what is the diocese of ...").
QUESTION_WORDS = frozenset(
    (
        "what",
        "which",
        "who",
        "where",
        "is",
        "are",
        "tell",
        "me",
        "about",
        "show",
        "give",
        "find",
        "look",
        "up",
        "lookup",
        "please",
        "info",
        "information",
        "on",
        "statistics",
        "stats",
        "figures",
        "data",
        "how",
        "many",
        "much",
        "number",
        "catholics",
        "priests",
        "parishes",
        "there",
        "cathedral",
        "bishop",
        "archbishop",
    )
)


def fold(text: str) -> str:
    """Lower case without accents, '&' read as 'and'."""
    return text_fold(text.replace("&", " and "))


def words(text: str) -> list[str]:
    return [_SAINT.get(w, w) for w in _WORD.findall(fold(text).replace("'", ""))]


def key(text: str) -> str:
    """The words that identify a jurisdiction: 'Archdiocese of St. Louis' -> 'saint louis';
    a name of articles alone keeps them: 'LA archdiocese' -> 'la'."""
    found = words(text)
    kept = [w for w in found if w not in KIND_WORDS]
    if not kept:
        kept = [w for w in found if w in ARTICLES]
    return " ".join(kept)


def asks_metropolitan(text: str) -> bool:
    """The query names an archdiocese or archeparchy ('Archdiocese of Portland')."""
    return not METROPOLITAN_WORDS.isdisjoint(words(text))


def keys(text: str) -> set[str]:
    """The key, and the key without an 'in <place>' qualifier ('Portland in Oregon')."""
    folded = " ".join(words(text))
    found = {key(text)}
    stripped = _QUALIFIER.sub("", folded)
    if stripped != folded:
        found.add(key(stripped))
    return {k for k in found if k}


def query_key(text: str) -> str:
    """A query's key: as ``key``, without question words."""
    return " ".join(w for w in key(text).split() if w not in QUESTION_WORDS)
