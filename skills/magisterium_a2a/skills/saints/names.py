"""How a saint's name typed by a reader meets the names we hold.

Both sides are reduced to words: accents, case and punctuation folded, ordinals as
Roman numerals ("John Paul the Second" is ``john paul ii``), and the words that
name no one dropped: titles ("Saint", "St.", "San", "Santa", "Blessed"), words
that join names ("of", "the", "de") and the words of a question ("who was",
"feast day"). What is left of a name is its *core* (the person: given name,
"of" + place, surname, epithet); the titles after the name ("Bishop and Doctor
of the Church") are *extra* words a query may use ("Paul the Apostle") but need
not. A query matches a name when every one of its words meets a word of the name,
exactly or (for words of four letters or more, never an ordinal) within a small
spelling distance, so "of" never matches everything and "Aquinus" still finds
Aquinas. Honorifics a nickname is made of ("Mother", "Father", "Padre") are kept
for the authored nicknames ("Mother Teresa") and dropped for the names.

The functions take canonical (English) text; a language layer in front of the
skill may feed them a translated query.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from rapidfuzz import fuzz

from magisterium_a2a.skills.people.matching import ROMAN, normalise

SAINT_TITLES = frozenset(
    {
        "saint", "saints", "st", "sts", "ste", "san", "santa", "santo", "sao", "blessed",
        "bl", "beata", "beato", "beatus", "beati", "sanctus", "sancta", "sancti", "holy",
    }
)  # fmt: skip
HONORIFICS = frozenset(
    {"mother", "father", "padre", "fr", "brother", "sister", "sr", "mgr", "don", "dom"}
)
JOINING = frozenset(
    {
        "of", "the", "de", "da", "di", "del", "della", "dei", "du", "des", "la", "le", "von",
        "van", "and", "y", "a", "an", "s", "in", "to", "at", "et",
        # the articles of our other Latin-script languages ("de los", "di il", "von der"),
        # which would otherwise be matched as names by spelling distance
        "los", "las", "il", "lo", "gli", "dos", "das", "der", "dem", "den",
    }
)  # fmt: skip
QUESTION = frozenset(
    {
        "who", "what", "when", "where", "which", "is", "was", "were", "are", "tell", "me",
        "about", "feast", "feastday", "day", "find", "look", "up", "lookup", "search", "for",
        "information", "on", "please", "do", "does", "did", "know", "you", "celebrated",
        "whose", "his", "her", "date", "called", "known", "as", "info", "show",
    }
)  # fmt: skip
POPE_WORDS = frozenset({"pope", "popes", "pontiff", "pp"})
PLACE_WORDS = frozenset({"of", "de", "da", "di", "from"})
# Words that end a group's name and are no surname.
GROUP_WORDS = frozenset(
    {
        "martyrs", "martyr", "virgins", "virgin", "companions", "brothers", "sisters",
        "soldiers", "bishops", "priests", "monks", "nuns", "children", "founders",
    }
)  # fmt: skip
FUZZY_MIN_LENGTH = 4
FUZZY_RATIO = 80.0


def words(text: str) -> list[str]:
    """Folded words, ordinals as Roman numerals (``Pius 12th`` -> ``pius xii``)."""
    return normalise(text.replace("-", " "), keep_titles=True).split()


@dataclass(frozen=True)
class Query:
    """What a reader typed, reduced: the words that must match, and whether a pope is meant."""

    words: tuple[str, ...]
    nickname: tuple[str, ...]
    pope: bool

    @classmethod
    def read(cls, text: str) -> Query:
        folded = [w for w in words(text) if w not in QUESTION]
        pope = any(w in POPE_WORDS for w in folded)
        kept = [w for w in folded if w not in JOINING and w not in SAINT_TITLES]
        nickname = tuple(w for w in kept if w not in POPE_WORDS)
        core = tuple(w for w in nickname if w not in HONORIFICS)
        return cls(words=core, nickname=nickname, pope=pope)


def nickname_key(text: str) -> tuple[str, ...]:
    """An authored nickname as a query reads it (honorifics kept): ``Padre Pio``."""
    return tuple(sorted(Query.read(text).nickname))


@dataclass(frozen=True)
class Name:
    """One name of a record: its core words and the extra words of its titles."""

    core: tuple[str, ...]
    extra: tuple[str, ...] = ()
    places: tuple[str, ...] = ()
    """Core words that follow "of" (``assisi`` in Francis of Assisi): places, not surnames."""

    @classmethod
    def read(cls, name: str, titles: str = "") -> Name:
        head, _, tail = name.partition(",")

        def kept(text: str) -> tuple[str, ...]:
            found = (w for w in words(text) if w not in JOINING and w not in SAINT_TITLES)
            return tuple(w for w in found if w not in HONORIFICS)

        folded = words(head)
        places = tuple(w for before, w in pairwise(folded) if before in PLACE_WORDS)
        return cls(core=kept(head), extra=kept(f"{tail} {titles}"), places=places)


@dataclass(frozen=True)
class Fit:
    """How well a query meets a name: ``quality`` (1.0 when every word is exact) and
    ``coverage`` (the share of the name's core the query names)."""

    quality: float
    coverage: float

    @property
    def exact(self) -> bool:
        return self.quality == 1.0 and self.coverage == 1.0

    @property
    def score(self) -> float:
        return round(100 * self.quality * (0.7 + 0.3 * self.coverage), 1)


def _meets(word: str, other: str) -> float:
    if word == other:
        return 1.0
    if len(word) < FUZZY_MIN_LENGTH or len(other) < FUZZY_MIN_LENGTH:
        return 0.0
    if ROMAN.match(word) or ROMAN.match(other):
        return 0.0
    ratio = fuzz.ratio(word, other)
    return ratio / 100 if ratio >= FUZZY_RATIO else 0.0


def fit(query: tuple[str, ...], name: Name) -> Fit | None:
    """None unless every query word meets a word of the name."""
    if not query or not name.core:
        return None
    values: list[float] = []
    covered: set[str] = set()
    for word in query:
        best, where = 0.0, ""
        for other in (*name.core, *name.extra):
            value = _meets(word, other)
            if value > best:
                best, where = value, other
        if best == 0.0:
            return None
        values.append(best)
        covered.add(where)
    core = set(name.core)
    return Fit(sum(values) / len(values), len(covered & core) / len(core))


def same_person(one: Name, other: Name) -> bool:
    """Two names of one person as far as words tell (used with a shared day): the same
    surname, both names being of two words or more; or the same first word and every
    core word of the shorter among the other's words, both names being of one word or
    both of more ("Saint Gregory" is not Blessed Gregory X)."""
    if not one.core or not other.core:
        return False
    last = one.core[-1]
    if (
        min(len(one.core), len(other.core)) >= 2
        and last == other.core[-1]
        and len(last) >= 5
        and last not in GROUP_WORDS
        and last not in (*one.places, *other.places)
    ):
        return True
    if (len(one.core) == 1) != (len(other.core) == 1):
        return False
    if _meets(one.core[0], other.core[0]) == 0.0:
        return False
    shorter, longer = sorted((one, other), key=lambda n: len(n.core))
    pool = (*longer.core, *longer.extra)
    return all(any(_meets(w, o) for o in pool) for w in shorter.core)
