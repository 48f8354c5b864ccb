"""Questions in other languages read into the sources' English words.

The team's glossary (``data/glossary.txt``) lists, per concept, the forms
readers write in eleven languages and the English words the sources use. A
question detected in one of them is glossed: the English words of every row
whose form it holds ("¿Puede un católico usar la píldora…" gives "Catholic
contraception, birth control pill"). The gloss is searched the English way
(BM25 with the thesaurus, the English model), beside the cross-lingual model's
reading of the question itself: the two fail differently, the glossary on
wording it lacks, the model on languages it was not trained in (Vietnamese,
Tagalog) and on rare terms.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from importlib import resources

from magisterium_a2a.skills.text import strip_accents

COLUMNS = ("es", "pt", "it", "fr", "de", "pl", "ja", "ko", "zh", "vi", "tl")
UNSPACED = frozenset({"ja", "ko", "zh"})
"""Scripts written without spaces between words (Korean has spaces, but its
particles cling to the word): forms match anywhere."""


WHOLE_WORD = "="
"""A form ending in ``=`` matches a whole word only: Tagalog "pari=" (priest) is not
the start of "Paris"."""


def _alternative(form: str) -> str:
    if form.endswith(WHOLE_WORD):
        return re.escape(form[: -len(WHOLE_WORD)]) + r"(?!\w)"
    return re.escape(form)


class GlossaryError(ValueError):
    """The glossary file is malformed; the message says where."""


@dataclass(frozen=True, slots=True)
class Row:
    english: str
    forms: dict[str, tuple[str, ...]]


def fold(text: str, language: str) -> str:
    """Lower case, compatibility forms (full-width letters) unified; accents kept
    for Vietnamese, where they tell words apart, dropped elsewhere."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return text if keeps_accents(language) else strip_accents(text)


def keeps_accents(language: str) -> bool:
    return language in UNSPACED or language == "vi"


def parse(text: str) -> list[Row]:
    rows: list[Row] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        cells = [cell.strip() for cell in line.split("|")]
        if len(cells) != len(COLUMNS) + 1 or not cells[0]:
            raise GlossaryError(f"line {number}: needs English and {len(COLUMNS)} languages")
        forms = {
            lang: tuple(fold(f, lang) for f in cell.split(",") if f.strip())
            for lang, cell in zip(COLUMNS, cells[1:], strict=True)
        }
        rows.append(Row(cells[0], forms))
    return rows


@functools.cache
def builtin() -> Glossary:
    text = resources.files("magisterium_a2a.skills.data").joinpath("glossary.txt").read_text()
    return Glossary(parse(text))


class Glossary:
    def __init__(self, rows: list[Row]) -> None:
        self.rows = rows
        self._patterns: dict[str, list[tuple[re.Pattern[str], str]]] = {}
        # Per language, the rows by the first two letters of each form: a row can
        # match only a text holding one of its forms, so a query runs the few regular
        # expressions whose forms it holds instead of every row's (measured on the
        # golden set's 7,016 queries, every language's rows: 0.2 ms a query instead of
        # 3 ms, and the same concepts for each).
        self._by_start: dict[str, dict[str, list[tuple[str, int]]]] = {}
        for lang in COLUMNS:
            compiled: list[tuple[re.Pattern[str], str]] = []
            by_start: dict[str, list[tuple[str, int]]] = {}
            for row in rows:
                forms = [f for f in row.forms[lang] if f]
                if not forms:
                    continue
                alternatives = "|".join(
                    _alternative(f) for f in sorted(forms, key=len, reverse=True)
                )
                pattern = alternatives if lang in UNSPACED else rf"(?<!\w)(?:{alternatives})"
                for needle in {f.removesuffix(WHOLE_WORD) for f in forms} - {""}:
                    by_start.setdefault(needle[:2], []).append((needle, len(compiled)))
                compiled.append((re.compile(pattern), row.english))
            self._patterns[lang] = compiled
            self._by_start[lang] = by_start

    def _candidates(self, folded: str, starts: set[str], lang: str) -> list[int]:
        """The rows (by their place in the language's list) one of whose forms the
        text holds; ``starts`` are the text's letters and pairs of letters."""
        by_start = self._by_start[lang]
        found: set[int] = set()
        for start in starts & by_start.keys():
            for needle, index in by_start[start]:
                if index not in found and needle in folded:
                    found.add(index)
        return sorted(found)

    def concepts(self, text: str, language: str | None) -> list[str]:
        """The English cells of the rows whose forms the text holds (every
        language's rows when the language is unknown or has no column), in order."""
        languages = [language] if language in self._patterns else list(COLUMNS)
        matches: list[tuple[int, int, int, str]] = []
        folds: dict[bool, tuple[str, set[str]]] = {}  # fold() differs only in the accents
        for lang in languages:
            keeps = keeps_accents(lang)
            if keeps not in folds:
                folded = fold(text, lang)
                pairs = {folded[i : i + 2] for i in range(len(folded) - 1)}
                folds[keeps] = (folded, pairs | set(folded))
            folded, starts = folds[keeps]
            patterns = self._patterns[lang]
            for index in self._candidates(folded, starts, lang):
                pattern, english = patterns[index]
                for match in pattern.finditer(folded):
                    matches.append(
                        (-(match.end() - match.start()), match.start(), match.end(), english)
                    )
        # The longest form claims its words: "원죄 없이 잉태" (Immaculate Conception)
        # is not also original sin and conception.
        claimed: list[tuple[int, int]] = []
        found: dict[str, int] = {}
        for _, start, end, english in sorted(matches):
            if any(start < e and s < end for s, e in claimed):
                continue
            claimed.append((start, end))
            found.setdefault(english, start)
        return sorted(found, key=found.__getitem__)

    def gloss(self, text: str, language: str | None) -> str:
        """The text's concepts in English, one after the other."""
        return "; ".join(self.concepts(text, language))
