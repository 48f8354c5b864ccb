"""romcal's ids as people write them: calendars (``united_states`` is "United
States", ``france__paris``, a diocese inside a national calendar, is "France:
Paris") and a saint's titles (``doctor_of_the_church`` is "Doctor of the Church")."""

from __future__ import annotations

# Where capitalising the words of the id is not how the name is written.
NAMES = {
    "general_roman": "General Roman Calendar",
    "temporal_cycle": "Proper of Time",
    "bosnia_herzegovina": "Bosnia and Herzegovina",
    "asian_russia": "Russia (Asia)",
    "european_russia": "Russia (Europe)",
    "saint_denis": "Saint-Denis",
}
SMALL_WORDS = frozenset({"and", "of", "the", "in", "for"})


def _words(ident: str) -> str:
    words = [w for w in ident.split("_") if w]
    return " ".join(
        w if i and w in SMALL_WORDS else w[:1].upper() + w[1:] for i, w in enumerate(words)
    )


def calendar_name(ident: str) -> str:
    """``france__paris`` -> ``France: Paris``; an unknown id is still readable."""
    if ident in NAMES:
        return NAMES[ident]
    return ": ".join(NAMES.get(part) or _words(part) for part in ident.split("__") if part)


def title_name(ident: str) -> str:
    """``doctor_of_the_church`` -> ``Doctor of the Church``."""
    return _words(ident)
