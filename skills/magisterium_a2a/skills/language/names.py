"""Names as they are matched: the script-folded key (``scripts.key``) without
the words around a name that are not part of it (titles, question words), whole
words in Latin script and substrings in Chinese, Japanese and Korean, where a
title or particle is written against the name (聖ヨセフ, 요셉은 누구); CJK without
spaces (ヨハネ・パウロ and ヨハネ パウロ alike)."""

from __future__ import annotations

from collections.abc import Iterable

from magisterium_a2a.skills.language.phrases import is_cjk
from magisterium_a2a.skills.language.scripts import key


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
