"""Text folding shared by the skills that match names a reader types.

One place decides how "Wojtyła", "Faà di Bruno" or "Saint-Père" compare with
what a user types without accents, so the pope, person, diocese and
Martyrology matchers agree.
"""

from __future__ import annotations

import unicodedata

# Letters Unicode does not decompose into a base letter and an accent.
UNDECOMPOSED = str.maketrans(
    {"ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "đ": "d", "Đ": "D", "ð": "d", "þ": "th",
     "ß": "ss", "æ": "ae", "Æ": "Ae", "œ": "oe", "Œ": "Oe", "\u0131": "i", "ħ": "h"}
)  # fmt: skip


def strip_accents(text: str) -> str:
    """The text without accents (case kept)."""
    decomposed = unicodedata.normalize("NFKD", text.translate(UNDECOMPOSED))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def fold(text: str) -> str:
    """Lower case without accents: the form names are compared in."""
    return strip_accents(text).lower()
