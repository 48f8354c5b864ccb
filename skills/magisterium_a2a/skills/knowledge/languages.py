"""The language a question is written in, among those this server is asked in.

Detection is lingua's (``lingua-language-detector``: n-gram models, made for
short text), restricted to the thirteen languages of issue 20 (Latin included,
so "Rerum Novarum" is not taken for Italian) and run in its low-accuracy mode
(trigrams only: 33 MB resident, well under a millisecond a question). A question
too short or too mixed to tell gives None, and is searched as English is.

The shared language layer (``skills/language/``, issue 20) is to replace this
module when it lands; the codes it returns are the same ISO 639-1 codes.
"""

from __future__ import annotations

import functools
import re
from typing import Any

CODES = ("en", "es", "pt", "it", "fr", "de", "pl", "ja", "ko", "zh", "vi", "tl", "la")
MIN_CONFIDENCE = 0.35
"""lingua's confidence (0 to 1) below which a question's language is left unsaid."""
MIN_LETTERS = 4
SURE_FOREIGN = 0.9
"""lingua's confidence from which a question is taken as foreign whatever words
it shares with the library (French shares many with English and Latin)."""


@functools.cache
def _detector() -> Any:
    from lingua import IsoCode639_1, Language, LanguageDetectorBuilder

    languages = [Language.from_iso_code_639_1(getattr(IsoCode639_1, c.upper())) for c in CODES]
    return (
        LanguageDetectorBuilder.from_languages(*languages)
        .with_low_accuracy_mode()
        .with_preloaded_language_models()
        .build()
    )


# lingua's fast mode mixes up close languages on short questions; where its two
# best guesses are such a pair, letters that only one of them writes decide.
_ONLY = {
    "pt": re.compile(r"[ãõ]|ç[ãaõo]|\blh|nh[aeo]\b", re.IGNORECASE),
    "es": re.compile(r"[ñ¿¡]|ción\b", re.IGNORECASE),
    "it": re.compile(r"[àèìòù]|\b(?:il|gli|della|che)\b", re.IGNORECASE),
}
_CLOSE = {frozenset({"es", "pt"}), frozenset({"la", "it"}), frozenset({"la", "pt"})}


def language_of(text: str) -> str | None:
    """The ISO 639-1 code of the text's language, or None when unsure."""
    return detect(text)[0]


@functools.lru_cache(maxsize=1024)
def detect(text: str) -> tuple[str | None, float]:
    """The text's language (None when unsure) and lingua's confidence in it."""
    if sum(c.isalpha() for c in text) < MIN_LETTERS and not any(ord(c) > 0x2E80 for c in text):
        return None, 0.0
    values = _detector().compute_language_confidence_values(text[:2000])
    if not values or values[0].value < MIN_CONFIDENCE:
        return None, 0.0
    codes = [str(v.language.iso_code_639_1.name).lower() for v in values[:2]]
    confidence = float(values[0].value)
    if len(codes) == 2 and frozenset(codes) in _CLOSE:
        for code in reversed(codes):
            hint = _ONLY.get(code)
            if hint is not None and hint.search(text):
                return code, confidence
    return codes[0], confidence
