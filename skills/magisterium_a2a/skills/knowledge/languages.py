"""The language a question is written in, as retrieval and answers need it.

Detection is the shared language layer's (``skills/language/detect.py``: the
script decides for Japanese, Korean and Chinese; py3langid, restricted to our
Latin-script languages, for the others). This module gives it the shape
retrieval uses: ISO 639-1 codes (Chinese as ``zh`` whatever its script) and
how sure the layer is, so that a short English phrase it takes for French or
Latin ("divine mercy", "artificial intelligence") is not read as foreign when
its words are the library's (``retrieval.KnowledgeBase.foreign``).
"""

from __future__ import annotations

import functools

from magisterium_a2a.skills.language.detect import confidence
from magisterium_a2a.skills.language.detect import detect as layer_detect

SURE_FOREIGN = 0.9
"""Confidence from which a question is taken as foreign whatever words it shares
with the library (French shares many with English and Latin)."""


def language_of(text: str) -> str | None:
    """The ISO 639-1 code of the text's language (``zh`` for Chinese), or None."""
    return detect(text)[0]


def tag_of(text: str) -> str | None:
    """The layer's own tag (``zh-Hans`` and ``zh-Hant`` apart), or None."""
    return layer_detect(text)


@functools.lru_cache(maxsize=1024)
def detect(text: str) -> tuple[str | None, float]:
    """The text's language code and how sure the layer is of it (0 to 1)."""
    tag = layer_detect(text)
    if tag is None:
        return None, 0.0
    code = "zh" if tag.startswith("zh") else tag
    return code, confidence(text)
