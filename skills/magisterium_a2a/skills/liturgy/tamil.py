"""Importer for the public-domain Tamil Lectionary table (a MySQL dump of
``readings__list(dayID, type, ref)``) into our lectionary model.

Day keys (``AW01-0Sun A``, ``OW12-3Wed 2``, ``LW06-4Thu~Chrism``, English
sanctoral names) become romcal ids; Tamil book abbreviations become the US
Lectionary's; RSV-style verse numbers become NABRE ones (psalm superscriptions,
and the chapters where the two traditions divide differently); the Greek parts
of Daniel (numbered as a separate book in the Tamil Bible) return to Daniel 3,
13 and 14. Commons (``_Pastor``...) and "take from the common" rows are not
Mass propers and are skipped; so are alleluia rows that name a shared verse
rather than cite one.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field

from rapidfuzz import fuzz, process

from magisterium_a2a.skills.liturgy.calendar import LiturgicalCalendar
from magisterium_a2a.skills.liturgy.lectionary import Cycle, LectionaryEntry, Reading, Table

ROW = re.compile(r"\('((?:[^'\\]|\\.)*)',\s*([0-9.]+),\s*'((?:[^'\\]|\\.)*)'\)")
BOOKS: dict[str, str] = {
    "தொநூ": "Gn", "விப": "Ex", "லேவி": "Lv", "எண்": "Nm", "இச": "Dt", "இணை": "Dt",
    "யோசு": "Jos", "நீத": "Jgs", "ரூத்": "Ru", "1சாமு": "1 Sm", "2சாமு": "2 Sm",
    "1அர": "1 Kgs", "2அர": "2 Kgs", "1குறி": "1 Chr", "2குறி": "2 Chr", "எஸ்ரா": "Ezr",
    "நெகே": "Neh", "தோபி": "Tb", "யூதி": "Jdt", "எஸ்(கி)": "Est", "1மக்": "1 Mc",
    "2மக்": "2 Mc", "யோபு": "Jb", "திபா": "Ps", "நீமொ": "Prv", "சஉ": "Eccl", "இபா": "Sg",
    "சாஞா": "Wis", "சீஞா": "Sir", "எசா": "Is", "எரே": "Jer", "புல": "Lam", "பாரூ": "Bar",
    "எசே": "Ez", "தானி": "Dn", "தானி(இ)": "Dn", "ஓசே": "Hos", "யோவே": "Jl", "ஆமோ": "Am",
    "யோனா": "Jon", "மீக்": "Mi", "நாகூ": "Na", "அப": "Hb", "செப்": "Zep", "ஆகா": "Hg",
    "செக்": "Zec", "மலா": "Mal", "மத்": "Mt", "மாற்": "Mk", "லூக்": "Lk", "யோவா": "Jn",
    "திப": "Acts", "உரோ": "Rom", "1கொரி": "1 Cor", "2கொரி": "2 Cor", "கலா": "Gal",
    "எபே": "Eph", "பிலி": "Phil", "கொலோ": "Col", "1தெச": "1 Thes", "2தெச": "2 Thes",
    "1திமொ": "1 Tm", "2திமொ": "2 Tm", "தீத்": "Ti", "பில": "Phlm", "எபி": "Heb",
    "யாக்": "Jas", "1பேது": "1 Pt", "2பேது": "2 Pt", "1யோவா": "1 Jn", "2யோவா": "2 Jn",
    "3யோவா": "3 Jn", "யூதா": "Jude", "திவெ": "Rv",
}  # fmt: skip
CF = "காண்க"
PIECE = re.compile(
    r"(?:(?P<c1>\d+):)?(?P<v1>\d+)(?P<s1>[a-z]*)(?:-(?:(?P<c2>\d+):)?(?P<v2>\d+)(?P<s2>[a-z]*))?"
)
LETTER_RANGE = re.compile(r"^(?P<verse>(?:\d+:)?\d+)(?P<first>[a-z])-(?P<last>[a-z])$")
SINGLE_CHAPTER = {"Phlm", "2 Jn", "3 Jn", "Jude", "Ob"}
# Psalms whose superscription the Hebrew/NABRE numbering counts as verses.
PSALM_TITLE_VERSES: dict[int, int] = {
    **dict.fromkeys((3, 4, 5, 6, 7, 8, 9, 12, 13, 18, 19, 20, 21, 22, 30, 31, 34, 36), 1),
    **dict.fromkeys((38, 39, 40, 41, 42, 44, 45, 46, 47, 48, 49, 53, 55, 56, 57, 58, 59), 1),
    **dict.fromkeys((61, 62, 63, 64, 65, 67, 68, 69, 70, 75, 76, 77, 80, 81, 83, 84, 85), 1),
    **dict.fromkeys((88, 89, 92, 102, 108, 140, 142), 1),
    **dict.fromkeys((51, 52, 54, 60), 2),
}  # fmt: skip
# (book, RSV chapter, first verse, last verse) -> (NABRE chapter, verse offset).
CHAPTER_SHIFTS: dict[str, list[tuple[int, int, int, int, int]]] = {
    "Mal": [(4, 1, 6, 3, 18)],
    "Jl": [(2, 28, 32, 3, -27), (3, 1, 21, 4, 0)],
    "Hos": [
        (1, 10, 11, 2, -9),
        (2, 1, 23, 2, 2),
        (11, 12, 12, 12, -11),
        (12, 1, 14, 12, 1),
        (13, 16, 16, 14, -15),
        (14, 1, 9, 14, 1),
    ],
    "Is": [(9, 1, 1, 8, 22), (9, 2, 21, 9, -1), (64, 1, 1, 63, 18), (64, 2, 12, 64, -1)],
    "Mi": [(5, 1, 1, 4, 13), (5, 2, 15, 5, -1)],
    "Ex": [(22, 1, 1, 21, 36), (22, 2, 31, 22, -1)],
    "Na": [(1, 15, 15, 2, -14), (2, 1, 13, 2, 1)],
    "Zec": [(1, 18, 21, 2, -17), (2, 1, 13, 2, 4)],
    "Jer": [(9, 1, 1, 8, 22), (9, 2, 26, 9, -1)],
    "1 Kgs": [(4, 21, 34, 5, -20), (5, 1, 18, 5, 14)],
    "Jb": [(41, 1, 8, 40, 24), (41, 9, 34, 41, -8)],
    "Eccl": [(5, 1, 1, 4, 16), (5, 2, 20, 5, -1)],
    "Sg": [(6, 13, 13, 7, -12), (7, 1, 13, 7, 1)],
    "Lv": [(6, 1, 7, 5, 19), (6, 8, 30, 6, -7)],
    "Ez": [(20, 45, 49, 21, -44), (21, 1, 32, 21, 5)],
}
# Greek Daniel, a separate book in the Tamil Bible: chapter -> (Daniel chapter, offset).
GREEK_DANIEL = {1: (3, 23), 2: (13, 0), 3: (14, 0)}
TYPE_SLOTS: dict[int, tuple[str, int | None]] = {
    0: ("procession_gospel", None),
    1: ("reading", 1),
    2: ("psalm", None),
    3: ("reading", 2),
    4: ("sequence", None),
    5: ("alleluia", None),
    6: ("gospel", None),
}
DAYS = ("sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday")
SEASON_KEYS = {"AW": "advent", "LW": "lent", "EW": "easter_time", "OW": "ordinary_time"}
NAMED: dict[str, tuple[str, str]] = {
    "Nativity of the Lord 1": ("nativity_of_the_lord", "previous_evening_mass"),
    "Nativity of the Lord 2": ("nativity_of_the_lord", "night_mass"),
    "Nativity of the Lord 3": ("nativity_of_the_lord", "mass_at_dawn"),
    "Nativity of the Lord 4": ("nativity_of_the_lord", "day_mass"),
    "CW03-Epiphany": ("epiphany_of_the_lord", "day_mass"),
    "CW02-0Sun": ("second_sunday_after_christmas", "day_mass"),
    "CW01-HolyFamily": ("holy_family_of_jesus_mary_and_joseph", "day_mass"),
    "CW04-Baptism": ("baptism_of_the_lord", "day_mass"),
    "LW00-3Wed": ("ash_wednesday", "day_mass"),
    "LW06-0Sun": ("palm_sunday_of_the_passion_of_the_lord", "mass_of_the_passion"),
    "LW06-1Mon": ("holy_monday", "day_mass"),
    "LW06-2Tue": ("holy_tuesday", "day_mass"),
    "LW06-3Wed": ("holy_wednesday", "day_mass"),
    "LW06-4Thu~Chrism": ("holy_thursday", "chrism_mass"),
    "LW06-4Thu": ("thursday_of_the_lords_supper", "evening_mass_of_the_lords_supper"),
    "LW06-5Fri": ("friday_of_the_passion_of_the_lord", "celebration_of_the_passion"),
    "LW06-6Sat": ("easter_sunday", "easter_vigil"),
    "EW01-0Sun": ("easter_sunday", "day_mass"),
    "EW02-0Sun": ("divine_mercy_sunday", "day_mass"),
    "EW07-Ascension": ("ascension_of_the_lord", "day_mass"),
    "EW08-Pentecost": ("pentecost_sunday", "day_mass"),
    "EW08-Pentecost - Vigil": ("pentecost_sunday", "previous_evening_mass"),
    "OW00-Trinity": ("most_holy_trinity", "day_mass"),
    "OW00-CorpusChristi": ("most_holy_body_and_blood_of_christ", "day_mass"),
    "OW00-SacredHeart": ("most_sacred_heart_of_jesus", "day_mass"),
    "OW00-ImmaculateHeart": ("immaculate_heart_of_mary", "day_mass"),
    "OW00-MaryMotherofChurch": ("mary_mother_of_the_church", "day_mass"),
    "OW34-0Sun": ("our_lord_jesus_christ_king_of_the_universe", "day_mass"),
    "All Souls": ("commemoration_of_all_the_faithful_departed", "day_mass"),
    "Birth of Saint John the Baptist - Vigil": (
        "nativity_of_john_the_baptist", "previous_evening_mass"
    ),
    "Birth of Saint John the Baptist": ("nativity_of_john_the_baptist", "day_mass"),
    "Assumption of the Blessed Virgin Mary - Vigil": (
        "assumption_of_the_blessed_virgin_mary", "previous_evening_mass"
    ),
    "Birth of the Blessed Virgin Mary": ("nativity_of_the_blessed_virgin_mary", "day_mass"),
    "Saints Peter and Paul, Apostles - Vigil": ("peter_and_paul_apostles", "previous_evening_mass"),
    "The Beheading of Saint John the Baptist, martyr": (
        "passion_of_saint_john_the_baptist", "day_mass"
    ),
    "Guardian Angels": ("holy_guardian_angels", "day_mass"),
    "Saint Joseph Husband of the Blessed Virgin Mary": ("joseph_spouse_of_mary", "day_mass"),
    "Blessed Virgin Mary, the Mother of God": ("mary_mother_of_god", "day_mass"),
    "Saint Matthew the Evangelist, Apostle, Evangelist": ("matthew_apostle", "day_mass"),
    "Holy Name of the Blessed Virgin Mary": ("most_holy_name_of_mary", "day_mass"),
    "First Martyrs of the Church of Rome": (
        "first_martyrs_of_the_holy_roman_church", "day_mass"
    ),
    "Saint Cecilia": ("cecilia_of_rome_virgin", "day_mass"),
    "Saint Birgitta, religious": ("bridget_of_sweden_religious", "day_mass"),
    "Saint Columban, religious": ("columban_of_luxeuil_abbot", "day_mass"),
    "Saint Hildegard of Bingen, Virgin and Doctor": ("hildegard_of_bingen_abbess", "day_mass"),
    "Saint Jean Vianney (the Curé of Ars), priest": ("john_mary_vianney_priest", "day_mass"),
    "Saint John of Avila, priest and doctor": ("john_of_avila_priest", "day_mass"),
    "Saint Pio of Pietrelcina (Padre Pio), priest": (
        "pius_francesco_forgione_priest", "day_mass"
    ),
    "Saint Sharbel Makhluf, hermit": ("sharbel_makhluf_priest", "day_mass"),
    "Saints Jean de Brébeuf, Isaac Jogues, priests and martyrs; and their companions, martyrs": (
        "john_de_brebeuf_isaac_jogues_priests_and_companions_martyrs", "day_mass"
    ),
    "Saints John Fisher, bishop and martyr and Thomas More, martyr": (
        "john_fisher_bishop_and_thomas_more_martyrs", "day_mass"
    ),
}  # fmt: skip
KEY = re.compile(r"^(?P<season>AW|LW|EW|OW)(?P<week>\d\d)-(?P<dow>\d)(?P<day>[A-Z][a-z]{2})$")
CW = re.compile(
    r"^CW01-Dec(?P<d>\d\d)$|^CW02-Jan(?P<j>\d)$|^CW03-Day(?P<n>\d)$|^AW05-Dec(?P<a>\d\d)$"
)
TRAILING_CYCLE = re.compile(r"^(?P<key>.*?) (?P<cycle>[ABC12])$")


@dataclass
class ImportReport:
    """What an import kept and what it could not place."""

    rows: int = 0
    entries: int = 0
    skipped_days: list[str] = field(default_factory=list)
    skipped_refs: int = 0


class TamilImportError(ValueError):
    """The file is not a readings__list dump."""


def convert_citation(ref: str) -> str | None:
    """``திபா51:1-2.10-11`` -> ``Ps 51:3-4, 12-13``; ``None`` when it cites nothing."""
    text = ref.strip().replace("\\r\\n", "").strip()
    text = text.split("~", 1)[0].strip()  # "~OW19-1Mon": a note on where the row is used
    prefix = ""
    if CF in text:
        text, prefix = text.replace(CF, ""), "cf. "
    match = re.match(r"^(\d?[^\d:]+?)\s*:?\s*(\d.*)$", text)
    if not match or match.group(1) not in BOOKS:
        return None
    tamil, rest = match.group(1), match.group(2)
    book = BOOKS[tamil]
    greek = tamil == "தானி(இ)"
    if book in SINGLE_CHAPTER and ":" not in rest:
        return prefix + f"{book} " + _single_chapter(rest)
    sections: list[str] = []
    chapter = 0
    shown_chapter = 0
    # ';' starts a new chapter reference; '.' separates psalm strophes, ',' verses.
    for section in rest.split(";"):
        rendered: list[str] = []
        last_verse = ""
        for piece in re.split(r"[.,]", section.strip()):
            piece = LETTER_RANGE.sub(_letters, piece.strip())
            if not piece:
                continue
            if piece.isalpha() and piece.islower() and last_verse:
                piece = f"{last_verse}{piece}"  # "4a,c": verse 4, parts a and c
            match = PIECE.fullmatch(piece)
            if not match:
                return None
            chapter = int(match["c1"]) if match["c1"] else chapter
            if not chapter:
                return None
            c1, v1 = _nabre(book, chapter, int(match["v1"]), greek)
            text = f"{v1}{match['s1']}"
            end_chapter = c1
            last_verse = match["v2"] or match["v1"]
            if match["v2"]:
                chapter = int(match["c2"]) if match["c2"] else chapter
                end_chapter, v2 = _nabre(book, chapter, int(match["v2"]), greek)
                same = end_chapter == c1
                text += f"-{v2}{match['s2']}" if same else f"—{end_chapter}:{v2}{match['s2']}"
            if c1 != shown_chapter or (match["c1"] and not rendered):
                text = f"{c1}:{text}"
            shown_chapter = end_chapter
            rendered.append(text)
        sections.append(", ".join(rendered))
    return prefix + f"{book} " + "; ".join(sections)


def _letters(match: re.Match[str]) -> str:
    """``9a-c`` -> ``9abc``: a range of parts of one verse."""
    first, last = match["first"], match["last"]
    return match["verse"] + "".join(chr(c) for c in range(ord(first), ord(last) + 1))


def _single_chapter(rest: str) -> str:
    """Verses of a one-chapter book (Phlm, 2 Jn, 3 Jn, Jude), cited without a chapter."""
    return ", ".join(p.strip() for p in rest.split(",") if p.strip())


def _nabre(book: str, chapter: int, verse: int, greek: bool) -> tuple[int, int]:
    if greek:
        target, offset = GREEK_DANIEL.get(chapter, (chapter, 0))
        return target, verse + offset
    if book == "Ps":
        return chapter, verse + PSALM_TITLE_VERSES.get(chapter, 0)
    for rsv_chapter, first, last, target, offset in CHAPTER_SHIFTS.get(book, ()):
        if chapter == rsv_chapter and first <= verse <= last:
            return target, verse + offset
    return chapter, verse


def day_of(key: str, resolve_name: Callable[[str], str | None]) -> tuple[str, Cycle, str] | None:
    """A Tamil day key -> (romcal id, cycle, Mass), or ``None`` when it is not a day."""
    cycle: Cycle = ""
    base = key
    trailing = TRAILING_CYCLE.match(key)
    if trailing and not key.startswith(("Nativity of the Lord", "Saint", "Saints", "Blessed")):
        base = trailing["key"]
        cycle = {"1": "I", "2": "II"}.get(trailing["cycle"], trailing["cycle"])  # type: ignore[assignment]
    if base in NAMED:
        day, mass = NAMED[base]
        return day, cycle, mass
    special = CW.match(base)
    if special:
        if special["d"]:
            return f"christmas_octave_day_{int(special['d']) - 24}", cycle, "day_mass"
        if special["j"]:
            return f"christmas_time_january_{special['j']}", cycle, "day_mass"
        if special["n"]:
            return f"{DAYS[int(special['n'])]}_after_epiphany", cycle, "day_mass"
        mass = "morning_mass" if special["a"] == "24" else "day_mass"
        return f"advent_december_{special['a']}", cycle, mass
    match = KEY.match(base)
    if match:
        season, week, dow = SEASON_KEYS[match["season"]], int(match["week"]), int(match["dow"])
        weekday = DAYS[dow]
        if season == "lent" and week == 0:
            return f"{weekday}_after_ash_wednesday", cycle, "day_mass"
        if season == "easter_time" and week == 1:
            return f"easter_{weekday}", cycle, "day_mass"
        if season == "ordinary_time" and week == 3 and dow == 0:
            return "sunday_of_the_word_of_god", cycle, "day_mass"
        return f"{season}_{week}_{weekday}", cycle, "day_mass"
    if key.startswith(("_", "IN ")):
        return None
    found = resolve_name(base)
    return (found, cycle, "day_mass") if found else None


def parse_dump(text: str, names: dict[str, str], name: str = "tamil") -> tuple[Table, ImportReport]:
    """Read the dump; ``names`` maps normalised English celebration names to romcal ids."""
    rows = ROW.findall(text)
    if "readings__list" not in text or not rows:
        raise TamilImportError("not a readings__list dump: no (dayID, type, ref) rows found")
    report = ImportReport(rows=len(rows))
    resolve = resolver(names)

    grouped: dict[tuple[str, Cycle, str], dict[tuple[str, int | None], dict[str, object]]] = {}
    for key, type_text, ref in rows:
        placed = day_of(key, resolve)
        if placed is None:
            if not key.startswith("_") and key not in report.skipped_days:
                report.skipped_days.append(key)
            continue
        kind_code = int(float(type_text))
        if kind_code not in TYPE_SLOTS:
            continue
        citation = convert_citation(ref)
        if citation is None:
            report.skipped_refs += 1
            continue
        kind, number = TYPE_SLOTS[kind_code]
        fraction = type_text.split(".")[1] if "." in type_text else ""
        slots = grouped.setdefault(placed, {})
        slot = slots.get((kind, number))
        if slot is None:
            slots[(kind, number)] = {"kind": kind, "number": number, "citation": citation}
        elif len(fraction) >= 2 and fraction[1] != "0":
            slot.setdefault("shorter", citation)
        else:
            slot["alternatives"] = (*slot.get("alternatives", ()), citation)  # type: ignore[misc]
    entries = [
        LectionaryEntry(
            day=day,
            cycle=cycle,
            mass=mass,
            readings=tuple(Reading.model_validate(r) for r in slots.values()),
        )
        for (day, cycle, mass), slots in grouped.items()
    ]
    report.entries = len(entries)
    return Table(name=name, entries=entries), report


def celebration_names(calendar: LiturgicalCalendar) -> dict[str, str]:
    """Normalised English celebration names -> romcal ids, for placing sanctoral keys."""
    names: dict[str, str] = {}
    for year in (2026, 2027):
        for day in calendar.year(year).days.values():
            for celebration in day.celebrations:
                names.setdefault(normalise_name(celebration.name), celebration.id)
    for ident, entity in calendar.entities().items():
        if entity.get("fullname"):
            names.setdefault(normalise_name(str(entity["fullname"])), ident)
    return names


def resolver(names: dict[str, str]) -> Callable[[str], str | None]:
    """A sanctoral key's romcal id: a name we map by hand (``NAMED``), the same name,
    else a close one, else one whose distinctive words all appear in the other
    (``Saint Juan Diego``), else ``None``."""
    canonical: dict[str, str] = {}
    for name, ident in names.items():
        canonical.setdefault(_canonical(name), ident)
    choices = list(canonical)

    def resolve(label: str) -> str | None:
        if label in NAMED:
            return NAMED[label][0]
        wanted = _canonical(label)
        if wanted in canonical:
            return canonical[wanted]
        match = process.extractOne(wanted, choices, scorer=fuzz.token_sort_ratio, score_cutoff=90)
        if match:
            return canonical[match[0]]
        if len(set(wanted.split()) - GENERIC_WORDS) < 2:
            return None
        match = process.extractOne(wanted, choices, scorer=fuzz.token_set_ratio, score_cutoff=100)
        return canonical[match[0]] if match else None

    return resolve


def _canonical(name: str) -> str:
    """Accents off, "doctor of the Church" as "doctor", articles dropped."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    words = normalise_name(ascii_name).replace("doctor of the church", "doctor").split()
    return " ".join(w for w in words if w not in {"the", "his", "their"})


GENERIC_WORDS = frozenset(
    {
        *("saint", "saints", "blessed", "and", "of", "virgin", "virgins", "martyr", "martyrs"),
        *("priest", "priests", "bishop", "pope", "doctor", "religious", "abbot"),
        *("companions", "apostle", "evangelist", "deacon"),
    }
)


def _normalise(text: str) -> str:
    return re.sub(r"[^a-z0-9 ]", "", text.lower().replace(",", " ")).strip()


def normalise_name(text: str) -> str:
    return re.sub(r"\s+", " ", _normalise(text))
