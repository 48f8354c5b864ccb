"""The commons of the Lectionary and which ones a memorial's Mass may take.

A memorial without proper readings takes the weekday's, or readings from the
common its saint belongs to. The built-in ``data/memorial-commons.txt`` names
the commons for the memorials the source table knows; any other memorial gets
the commons its romcal titles name (a martyr the Common of Martyrs, a bishop or
priest the Common of Pastors, ...), which is the rule the Lectionary's own
rubrics state for a saint of that kind.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib.resources import files

COMMON_NAMES: dict[str, str] = {
    "common_dedication_of_a_church": "Common of the Dedication of a Church",
    "common_blessed_virgin_mary": "Common of the Blessed Virgin Mary",
    "common_martyrs": "Common of Martyrs",
    "common_pastors": "Common of Pastors",
    "common_doctors": "Common of Doctors of the Church",
    "common_virgins": "Common of Virgins",
    "common_holy_men_and_women": "Common of Holy Men and Women",
}
POINTERS_FILE = "data/memorial-commons.txt"
# romcal titles -> the common of saints of that kind, most specific first.
TITLE_COMMONS: tuple[tuple[frozenset[str], str], ...] = (
    (frozenset({"martyr", "the_first_martyr"}), "common_martyrs"),
    (frozenset({"pope", "bishop", "priest", "deacon"}), "common_pastors"),
    (frozenset({"doctor_of_the_church"}), "common_doctors"),
    (frozenset({"virgin"}), "common_virgins"),
)
MARIAN_MARKERS = ("blessed_virgin_mary", "our_lady", "mary_mother", "_of_mary")


class CommonsFormatError(ValueError):
    """A memorial-commons line that is not ``day: common ...`` with known commons."""


def parse_pointers(text: str, name: str = POINTERS_FILE) -> dict[str, tuple[str, ...]]:
    found: dict[str, tuple[str, ...]] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        day, colon, rest = line.partition(":")
        commons = tuple(rest.split())
        unknown = [c for c in commons if c not in COMMON_NAMES]
        if not colon or not day.strip() or not commons or unknown:
            raise CommonsFormatError(f"{name}:{number}: bad line {line!r}")
        found[day.strip()] = commons
    return found


def builtin_pointers() -> dict[str, tuple[str, ...]]:
    text = files("magisterium_a2a.skills").joinpath(POINTERS_FILE).read_text(encoding="utf-8")
    return parse_pointers(text)


def commons_by_titles(day_id: str, titles: Iterable[str]) -> tuple[str, ...]:
    """The commons a saint's titles name; Holy Men and Women when none does."""
    if any(marker in day_id for marker in MARIAN_MARKERS):
        return ("common_blessed_virgin_mary",)
    held = set(titles)
    found = [common for names, common in TITLE_COMMONS if held & names]
    if "virgin" not in held and {"abbot", "abbess", "monk", "religious"} & held:
        found.append("common_holy_men_and_women")
    return tuple(dict.fromkeys(found)) or ("common_holy_men_and_women",)


def common_names(commons: Iterable[str]) -> str:
    """``Common of Pastors or of Doctors of the Church``."""
    names = [COMMON_NAMES[c] for c in commons]
    if not names:
        return ""
    rest = [n.removeprefix("Common ") for n in names[1:]]
    return " or ".join([names[0], *rest])
