"""Forgiving name matching for people: accents, titles, ordinals, question words.

A query such as "Who was Pope St. John Paul the Second?" and a record named
"John Paul II" must meet: both are reduced to ``john paul ii`` (accents
stripped, titles and question words dropped, ordinals written out or as
numerals turned into Roman numerals) before rapidfuzz scores them, word by word:
every word asked must be nearly a word of the name (a typo or two letters swapped
forgiven), and the last one must be, so that a shared first name ("John Henry
Newman", "John Njue") is no match.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein

from magisterium_a2a.skills.text import strip_accents

UNITS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
    "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12,
    "thirteenth": 13, "fourteenth": 14, "fifteenth": 15, "sixteenth": 16,
    "seventeenth": 17, "eighteenth": 18, "nineteenth": 19, "twentieth": 20,
}  # fmt: skip
# Titles and honorifics a query may carry that no record name needs.
TITLES = frozenset(
    {
        "pope",
        "popes",
        "saint",
        "st",
        "sts",
        "san",
        "santo",
        "santa",
        "sankt",
        "blessed",
        "bl",
        "beatus",
        "venerable",
        "servant",
        "of",
        "god",
        "his",
        "holiness",
        "holy",
        "father",
        "cardinal",
        "card",
        "archbishop",
        "abp",
        "bishop",
        "bp",
        "patriarch",
        "monsignor",
        "msgr",
        "mons",
        "fr",
        "rev",
        "reverend",
        "most",
        "emeritus",
        "the",
        "pp",
        "papa",
        "sanctus",
    }
)
QUESTION = re.compile(
    r"^(?:who|what|when|tell me about|tell me|show me|look up|lookup|find|search for)\b"
    r"(?:\s+(?:is|was|were|are|about))?\s*",
    re.IGNORECASE,
)
ROMAN = re.compile(r"^[ivxlc]+$")
_NUMERALS = ((50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"))


def roman(number: int) -> str:
    """Lower-case Roman numeral for 1..89 (papal ordinals stop at XXIII)."""
    out = ""
    for value, letters in _NUMERALS:
        while number >= value:
            out += letters
            number -= value
    return out


def _ordinal(token: str) -> str | None:
    """``14``, ``14th``, ``fourteenth`` → ``xiv``; None when not an ordinal."""
    digits = re.fullmatch(r"(\d{1,2})(?:st|nd|rd|th)?", token)
    if digits:
        value = int(digits[1])
        return roman(value) if 0 < value < 90 else None
    if token in UNITS:
        return roman(UNITS[token])
    if token.startswith("twenty") and token[6:] in UNITS and UNITS[token[6:]] < 10:
        return roman(20 + UNITS[token[6:]])
    return None


def normalise(text: str, *, keep_titles: bool = False) -> str:
    """Lower case, no accents or punctuation, ordinals as Roman numerals, no titles."""
    text = QUESTION.sub("", text.strip())
    text = strip_accents(text).lower().replace("twenty-", "twenty")
    text = re.sub(r"[^\w\s]", " ", text)
    words: list[str] = []
    for word in text.split():
        ordinal = _ordinal(word)
        if ordinal is not None and words:
            words.append(ordinal)
        elif keep_titles or word not in TITLES:
            words.append(word)
    return " ".join(words)


def ordinal_of(normalised: str) -> str | None:
    """The trailing Roman numeral of a normalised name, if it has one."""
    words = normalised.split()
    if len(words) > 1 and ROMAN.match(words[-1]):
        return words[-1]
    return None


ANCHOR = 80.0
"""How close the query's last name word must come to some word of a candidate's
name: "John Henry Newman" is no match for "John Njue", nor "Mueller" for
"Brandmüller", however well the first names agree."""


def likeness(a: str, b: str) -> float:
    """Two words' likeness, 0-100: one edit in a word of five (a typo, two letters
    swapped: "Tagel") leaves 80, so "Tagel" is nearer "Tagle" than "Angel"."""
    return 100.0 * DamerauLevenshtein.normalized_similarity(a, b)


def word_score(asked: Sequence[str], name: Sequence[str]) -> float:
    """The mean, over the query's words, of each one's best likeness to a word of the name."""
    if not asked or not name:
        return 0.0
    return sum(max(likeness(a, w) for w in name) for a in asked) / len(asked)


@dataclass(frozen=True, slots=True)
class Match:
    key: str
    score: float


class NameIndex:
    """Names (several per record) → record keys, searched exactly then fuzzily."""

    def __init__(self, cutoff: float, limit: int) -> None:
        self.cutoff = cutoff
        self.limit = limit
        self._names: list[str] = []
        self._words: list[list[str]] = []
        self._keys: list[str] = []
        self._vocabulary: list[str] = []
        self._with_word: dict[str, list[int]] = {}

    def add(self, key: str, names: Iterable[str | None]) -> None:
        for name in names:
            if name:
                normalised = normalise(name)
                if normalised:
                    index = len(self._names)
                    self._names.append(normalised)
                    self._words.append(normalised.split())
                    self._keys.append(key)
                    for word in set(normalised.split()):
                        if word not in self._with_word:
                            self._with_word[word] = []
                            self._vocabulary.append(word)
                        self._with_word[word].append(index)

    def exact(self, query: str) -> list[str]:
        """Keys whose some name is exactly the normalised query, in index order."""
        keys: list[str] = []
        for name, key in zip(self._names, self._keys, strict=True):
            if name == query and key not in keys:
                keys.append(key)
        return keys

    def _anchored_names(self, asked: Sequence[str]) -> set[int]:
        """The names holding a word (nearly) the query's last word that is not a
        numeral, found through the index of words."""
        words = [w for w in asked if not ROMAN.match(w)] or list(asked)
        if not words:
            return set()
        near = process.extract(
            words[-1],
            self._vocabulary,
            scorer=DamerauLevenshtein.normalized_similarity,
            # rapidfuzz's cutoff drops a score that equals it (4/5 at 0.8): a margin
            # here, the exact test below.
            score_cutoff=ANCHOR / 100.0 - 0.01,
            limit=None,
        )
        return {
            index
            for word, _, _ in near
            if likeness(words[-1], word) >= ANCHOR
            for index in self._with_word[word]
        }

    def fuzzy(self, query: str, allowed: Sequence[int] | None = None) -> list[Match]:
        """Best score per key, highest first (ties keep index order), among the names
        the query's last word is anchored in (``_anchored_names``)."""
        asked = query.split()
        candidates = self._anchored_names(asked)
        if allowed is not None:
            candidates &= set(allowed)
        best: dict[str, tuple[float, float]] = {}
        for index in candidates:
            words = self._words[index]
            # Every word asked must be (nearly) there, in any order: "Karol Wojtyla" is
            # "Karol Jozef Wojtyla", "Jon Paul I" is John Paul I and not Paul I.
            score = word_score(asked, words)
            if score < self.cutoff:
                continue
            # Between equals, the name more of whose words were asked ("Fransis":
            # Francis before Robert Francis Prevost).
            ranked_as = (score, word_score([w for w in words if not ROMAN.match(w)], asked))
            key = self._keys[index]
            best[key] = max(best.get(key, ranked_as), ranked_as)
        order = {key: i for i, key in reversed(list(enumerate(self._keys)))}
        ranked = sorted(best.items(), key=lambda item: (-item[1][0], -item[1][1], order[item[0]]))
        return [Match(key, round(score, 1)) for key, (score, _) in ranked[: self.limit]]

    def with_ordinal(self, ordinal: str) -> list[int]:
        """Positions of names ending in this Roman numeral."""
        return [i for i, name in enumerate(self._names) if ordinal_of(name) == ordinal]
