"""Script normalisation: what a user typed, in the form the tables are keyed in.

``clean`` is what every reader starts from: Unicode compatibility forms folded
(NFKC: full-width digits and letters, ligatures, the ideographic space), the
invisible format characters dropped (bidirectional marks and embeddings,
zero-width joiners, the byte-order mark), runs of space collapsed. ``key`` is
the form two spellings of one name compare in: also lower case, accents and
combining marks removed from Latin letters (the team's ``text.fold``; a kana's
voicing mark and a Hangul syllable stay whole), Traditional Chinese characters
folded to Simplified (OpenCC's ``t2s``), punctuation read as space.

Both are linear in the text; callers cap its length first.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from functools import cache

import opencc

from magisterium_a2a.skills.text import fold

_SPACE = re.compile(r"\s+")
# Punctuation between words (the apostrophe of "Sant'Ignazio" is a separator too).
_PUNCTUATION = re.compile(r"[^\w\s]", re.UNICODE)
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_KANA = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff]")
_HANGUL = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")
_LOCK = threading.Lock()


def clean(text: str) -> str:
    """NFKC, without format characters, with single spaces, stripped."""
    text = unicodedata.normalize("NFKC", text)
    text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    return _SPACE.sub(" ", text).strip()


def key(text: str) -> str:
    """The comparison form of a name or phrase (see the module's docstring)."""
    text = clean(text)
    if has_kana(text) or has_hangul(text):
        text = "".join(_fold_char(c) for c in text)
    else:
        text = fold(text)
    if has_han(text):
        text = simplified(text)
    text = _PUNCTUATION.sub(" ", text.replace("_", " "))
    return _SPACE.sub(" ", text).strip()


def _fold_char(char: str) -> str:
    """Accents come off Latin letters (Vietnamese too); a kana's voicing mark or a
    Hangul syllable is part of the letter and stays; a stray combining mark goes."""
    if char < "\u0370" or "\u1e00" <= char <= "\u1eff":
        return fold(char)
    return "" if unicodedata.combining(char) else char.casefold()


def has_han(text: str) -> bool:
    return _HAN.search(text) is not None


def has_kana(text: str) -> bool:
    return _KANA.search(text) is not None


def has_hangul(text: str) -> bool:
    return _HANGUL.search(text) is not None


def simplified(text: str) -> str:
    """Traditional Chinese characters as Simplified (others unchanged)."""
    return str(_converter("t2s").convert(text))


def traditional(text: str) -> str:
    """Simplified Chinese characters as Traditional (for showing, never for keys)."""
    return str(_converter("s2t").convert(text))


@cache
def _converter(config: str) -> opencc.OpenCC:
    with _LOCK:
        return opencc.OpenCC(config)
