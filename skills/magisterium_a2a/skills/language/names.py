"""Names as they are matched: the script-folded key (``scripts.key``) without
the words around a name that are not part of it (titles, question words), whole
words in Latin script and substrings in Chinese, Japanese and Korean, where a
title or particle is written against the name (聖ヨセフ, 요셉은 누구); CJK without
spaces (ヨハネ・パウロ and ヨハネ パウロ alike)."""

from __future__ import annotations

from collections.abc import Iterable

from magisterium_a2a.skills.language.phrases import is_cjk
from magisterium_a2a.skills.language.scripts import has_hangul, key

# Korean particles are written against the word before them (교황은, 프란치스코의).
KOREAN_PARTICLES = frozenset("은는이가을를의")


class Stripper:
    """Removes a table's words from folded text."""

    def __init__(self, words: Iterable[str]) -> None:
        folded = {key(str(w)) for w in words} - {""}
        self.cjk = tuple(sorted((w for w in folded if is_cjk(w)), key=len, reverse=True))
        self.phrases = tuple(sorted((w for w in folded if not is_cjk(w)), key=len, reverse=True))

    def __call__(self, folded: str) -> str:
        for word in self.cjk:
            folded = folded.replace(word, " ")
        padded = f" {folded} "
        for word in self.phrases:
            while f" {word} " in padded:
                padded = padded.replace(f" {word} ", " ")
        return " ".join(padded.split())


def unspaced(text: str) -> str:
    """CJK text without its spaces; other text unchanged."""
    return text.replace(" ", "") if is_cjk(text) else text


def without_particles(text: str) -> str:
    """Korean text without the particles that end its words; other text unchanged."""
    if not has_hangul(text):
        return text
    words = [w[:-1] if len(w) > 1 and w[-1] in KOREAN_PARTICLES else w for w in text.split()]
    return " ".join(w for w in words if w not in KOREAN_PARTICLES)
