"""Sentences of a passage, for quoting and for trimming a citation.

A quotation cut in the middle of "St. Augustine" or "Ex. 3:14" misquotes its
source, so sentence boundaries come from sentencex (Wikimedia's rule-based
segmenter, with abbreviation lists for some 300 languages).
"""

from __future__ import annotations

import sentencex

# How a sentence ends: its punctuation, possibly inside quotes, or a closing
# parenthesis (a reference such as "(Ex. 3:14)" often ends a paragraph).
_ENDINGS = (".", "!", "?", '"', "\u201d", "'", "\u2019", ")")


def sentences(text: str, language: str = "en") -> list[str]:
    """The sentences of a text, stripped, in order."""
    found: list[str] = []
    for paragraph in text.split("\n\n"):
        flat = " ".join(paragraph.split())
        if flat:
            found.extend(s.strip() for s in sentencex.segment(language, flat) if s.strip())
    return found


def is_whole(sentence: str) -> bool:
    return sentence.endswith(_ENDINGS)


def _starts_cleanly(sentence: str) -> bool:
    first = sentence.lstrip("\"'\u201c\u2018([")[:1]
    return not first.islower()


def whole_sentences(text: str, language: str = "en") -> list[str]:
    """The sentences of a text without a fragment cut off at either end.

    A passage split inside an overlong sentence may start or end mid-sentence;
    those fragments are dropped unless nothing else would remain.
    """
    found = sentences(text, language)
    start, end = 0, len(found)
    while end - start > 1 and not _starts_cleanly(found[start]):
        start += 1
    while end - start > 1 and not is_whole(found[end - 1]):
        end -= 1
    return found[start:end]
