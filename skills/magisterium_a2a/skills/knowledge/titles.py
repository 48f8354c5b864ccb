"""Documents named by what a reader types: a title, its short form, or another
name the document is known by ("Faith and Reason" for *Fides et Ratio*, "the
Baltimore Catechism").

``document_fetch`` resolves an exact name to its document; ``document_search``
puts a document named in the query first. Names are compared folded (case,
accents, apostrophes and punctuation do not matter: "laudato si" names
*Laudato Si'*). A name given by the document's owner (its title, a catalogue
alias) outranks one derived from it (the title less its parenthesis or
subtitle, the parenthesis itself, the citation reference), and a name shared by
two documents names neither.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from magisterium_a2a.skills.text import fold

_NOT_WORD = re.compile(r"[^\w]+")
_PARENTHESIS = re.compile(r"\s*\(([^)]*)\)\s*$")
MAX_NAME_WORDS = 16
# A one-word name ("Libertas") names a document only when it is the whole query:
# inside a sentence a single word is as likely to be an ordinary word.
MIN_WORDS_INSIDE_QUERY = 2
_UNSPACED = re.compile(
    "[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]"
)
"""Japanese, Chinese and Korean letters (Hangul as syllables or, folded, as jamo):
scripts whose names are not counted in words."""
MIN_UNSPACED_INSIDE = 4
"""An unspaced-script name of this many letters names a document anywhere in a
query (「福音の喜び」 in 使徒的勧告福音の喜び); a shorter one (新事, 神は愛) only as
a whole word of it, set apart by spaces or brackets (《新事》通谕)."""


def _letters(name: str) -> int:
    """How many letters a folded name has, Hangul counted as syllables again."""
    return len(unicodedata.normalize("NFC", name.replace(" ", "")))


def fold_name(text: str) -> str:
    """The form names are compared in: lower case, no accents, words separated by
    single spaces, apostrophes and punctuation gone."""
    return " ".join(_NOT_WORD.sub(" ", fold(text).replace("'", "").replace("\u2019", "")).split())


def derived_names(title: str, ref: str | None) -> list[str]:
    """Names a title implies: without its parenthesis, the parenthesis itself,
    the part before a subtitle, and the citation reference."""
    names: list[str] = []
    match = _PARENTHESIS.search(title)
    if match:
        names.append(title[: match.start()])
        names.append(match.group(1))
    head, colon, _ = title.partition(":")
    if colon:
        names.append(head)
    if ref and ref != title:
        names.append(ref)
    return names


@dataclass(frozen=True, slots=True)
class Named:
    """A document named in a query, and where the name stands in it."""

    document_id: str
    start: int
    words: int


class TitleIndex:
    """Folded names to document ids, in two tiers (given, then derived)."""

    def __init__(
        self,
        given: Iterable[tuple[str, str]],
        derived: Iterable[tuple[str, str]] = (),
    ) -> None:
        self._names: dict[str, str] = {}
        ambiguous: set[str] = set()
        for tier in (given, derived):
            found: dict[str, set[str]] = {}
            for document_id, name in tier:
                key = fold_name(name)
                if key and len(key.split()) <= MAX_NAME_WORDS:
                    found.setdefault(key, set()).add(document_id)
            for key, ids in found.items():
                if key in self._names or key in ambiguous:
                    continue
                if len(ids) == 1:
                    self._names[key] = next(iter(ids))
                else:
                    ambiguous.add(key)
        # The names in unspaced scripts, each with whether it is long enough to be found
        # anywhere in a query (decided once here, not per query).
        self._unspaced = tuple(
            (name, document_id, _letters(name) >= MIN_UNSPACED_INSIDE)
            for name, document_id in self._names.items()
            if _UNSPACED.search(name)
        )

    def __len__(self) -> int:
        return len(self._names)

    def names(self) -> list[str]:
        """Every name that stands for exactly one document, folded."""
        return list(self._names)

    def exact(self, text: str) -> str | None:
        """The document the whole text names, if exactly one does."""
        return self._names.get(fold_name(text))

    def named(self, query: str) -> list[str]:
        """Documents named in the query, leftmost and longest names first,
        without overlaps; a one-word name counts only as the whole query."""
        words = fold_name(query).split()
        if not words:
            return []
        whole = self._names.get(" ".join(words))
        if whole is not None:
            return [whole]
        found: list[Named] = []
        folded = " ".join(words)
        for key, unspaced_id, anywhere in self._unspaced:
            at = folded.find(key) if anywhere or key in words else -1
            if at >= 0:
                found.append(Named(unspaced_id, at, len(key)))
        if found:
            found.sort(key=lambda n: (n.start, -n.words))
            return list(dict.fromkeys(n.document_id for n in found))
        position = 0
        while position < len(words):
            longest = min(MAX_NAME_WORDS, len(words) - position)
            for size in range(longest, MIN_WORDS_INSIDE_QUERY - 1, -1):
                document_id = self._names.get(" ".join(words[position : position + size]))
                if document_id is not None:
                    found.append(Named(document_id, position, size))
                    position += size
                    break
            else:
                position += 1
        return list(dict.fromkeys(n.document_id for n in found))
