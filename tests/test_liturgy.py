"""The liturgy skills end to end through /api/v1/a2a, and their engine parts:
the date parser against an injected today, romcal-backed days across year
boundaries, and the importers on the shared reference data."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest

from magisterium_a2a.server.clock import ManualClock
from magisterium_a2a.server.config import Settings
from magisterium_a2a.skills.liturgy.calendar import LiturgicalCalendar
from magisterium_a2a.skills.liturgy.dates import DateQueryParser
from magisterium_a2a.skills.liturgy.engine import (
    LiturgyEngine,
    builtin_table,
    save_lectionary,
    save_martyrology,
)
from magisterium_a2a.skills.liturgy.lectionary_format import parse_csv, to_csv
from magisterium_a2a.skills.liturgy.martyrology import MartyrologyImportError, import_martyrology
from magisterium_a2a.skills.liturgy.settings import LiturgySettings
from magisterium_a2a.skills.liturgy.tamil import convert_citation, normalise_name, parse_dump
from tests.support import SHARED, harness

BUILTINS = (
    "magisterium_a2a.skills.liturgical_readings:create",
    "magisterium_a2a.skills.saints_of_the_day:create",
    "magisterium_a2a.skills.saint_lookup:create",
)
REFDATA = SHARED / "refdata"
TAMIL = REFDATA / "lectionary-tamil" / "liturgy_lectionary_table_readings__list.sql"
# Thursday 26 November 2026, 10:00 UTC.
THURSDAY = datetime(2026, 11, 26, 10, tzinfo=UTC).timestamp()


def refdata(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} is absent (../shared/refdata is provided in CI)")
    return path


@pytest.fixture(scope="session")
def calendar() -> LiturgicalCalendar:
    return LiturgicalCalendar()


@pytest.fixture(scope="session")
def parser(calendar: LiturgicalCalendar) -> DateQueryParser:
    return DateQueryParser(calendar)


TODAY = date(2026, 11, 26)
PHRASES = {
    "2026-12-25": date(2026, 12, 25),
    "March 19": date(2026, 3, 19),
    "19 March 2027": date(2027, 3, 19),
    "today": TODAY,
    "tomorrow": date(2026, 11, 27),
    "yesterday": date(2026, 11, 25),
    "next Sunday": date(2026, 11, 29),
    "this Sunday": date(2026, 11, 29),
    "last Sunday": date(2026, 11, 22),
    "next Friday": date(2026, 11, 27),
    "next Thursday": date(2026, 12, 3),
    "Easter Sunday 2026": date(2026, 4, 5),
    "Easter 2027": date(2027, 3, 28),
    "Christmas": date(2026, 12, 25),
    "Ash Wednesday": date(2027, 2, 10),
    "Palm Sunday": date(2027, 3, 21),
    "Holy Thursday": date(2027, 3, 25),
    "Good Friday": date(2027, 3, 26),
    "Easter Vigil": date(2027, 3, 27),
    "Pentecost": date(2027, 5, 16),
    "Ascension": date(2027, 5, 9),
    "Trinity Sunday": date(2027, 5, 23),
    "Corpus Christi": date(2027, 5, 30),
    "Christ the King": date(2027, 11, 21),
    "All Saints": date(2027, 11, 1),
    "Assumption": date(2027, 8, 15),
    "Immaculate Conception": date(2026, 12, 8),
    "first Sunday of Advent 2026": date(2026, 11, 29),
    "3rd Sunday of Lent": date(2027, 2, 28),
    "21st Sunday in Ordinary Time 2027": date(2027, 8, 22),
    "Saint Kateri Tekakwitha": date(2027, 7, 14),
    "kateri_tekakwitha_virgin": date(2027, 7, 14),
    "Monday of the second week of Lent 2027": date(2027, 2, 22),
    # The fortieth day after Easter, though the US keeps the Ascension on the Sunday.
    "Ascension Thursday": date(2027, 5, 6),
    "Ascension Thursday 2026": date(2026, 5, 14),
    "readings for today please": TODAY,
    "what are today's readings?": TODAY,
    "the day after tomorrow": date(2026, 11, 28),
    "this weekend": date(2026, 11, 29),
    "Christmas Eve": date(2026, 12, 24),
    "New Year's Day": date(2027, 1, 1),
    "Thanksgiving": TODAY,  # the fourth Thursday of November 2026
    "Independence Day 2027": date(2027, 7, 4),
    "12/25/2026": date(2026, 12, 25),
    "25/12/2026": date(2026, 12, 25),
    "2026/12/25": date(2026, 12, 25),
    "St. Patrick's Day 2027": date(2027, 3, 17),
    "All Saints' Day": date(2027, 11, 1),
    "Good Shepherd Sunday 2027": date(2027, 4, 18),
    # A saint whose day is impeded answers for the date (St Scholastica: Ash Wednesday).
    "Saint Scholastica 2027": date(2027, 2, 10),
}


@pytest.mark.parametrize(("phrase", "expected"), PHRASES.items())
def test_parser_reads_every_phrase(parser: DateQueryParser, phrase: str, expected: date) -> None:
    assert parser.parse(phrase, TODAY) == expected


@pytest.mark.parametrize(
    "phrase",
    [
        "",
        "blah blah",
        "2026-02-30",
        "Saint Nobody",
        "next Funday",
        "Mother's Day",  # a "... Day" that is no celebration is not fuzzily matched
        "Labor Day",
        "12/08/2026",  # 8 December or 12 August: not read
        "2026/13/01",
        "1/32/2026",
    ],
)
def test_parser_gives_none_for_unreadable(parser: DateQueryParser, phrase: str) -> None:
    assert parser.parse(phrase, TODAY) is None


def test_this_sunday_on_a_sunday_is_today(parser: DateQueryParser) -> None:
    sunday = date(2026, 11, 29)
    assert parser.parse("this Sunday", sunday) == sunday
    assert parser.parse("next Sunday", sunday) == date(2026, 12, 6)


def test_liturgical_year_starts_in_advent(calendar: LiturgicalCalendar) -> None:
    before, advent = calendar.day(date(2026, 11, 28)), calendar.day(date(2026, 11, 29))
    assert (before.sunday_cycle, before.weekday_cycle, before.liturgical_year) == ("A", "II", 2026)
    assert (advent.sunday_cycle, advent.weekday_cycle, advent.liturgical_year) == ("B", "I", 2027)
    assert calendar.day(date(2027, 1, 1)).sunday_cycle == "B"
    assert calendar.day(date(2027, 12, 25)).sunday_cycle == "C"


def test_advent_sanctoral_is_restored(calendar: LiturgicalCalendar) -> None:
    assert calendar.day(date(2026, 12, 8)).principal.id == (
        "immaculate_conception_of_the_blessed_virgin_mary"
    )
    assert calendar.day(date(2026, 12, 26)).principal.id == "stephen_the_first_martyr"
    assert calendar.day(date(2026, 11, 30)).principal.id == "andrew_apostle"
    assert calendar.day(date(2026, 12, 27)).principal.id == "holy_family_of_jesus_mary_and_joseph"
    dec21 = calendar.day(date(2026, 12, 21))
    assert dec21.principal.id == "advent_december_21"
    assert [c.id for c in dec21.optional] == ["peter_canisius_priest"]


# Issue 19: days of the Table of Liturgical Days' rows 1-8 keep no memorial at all
# (GNLY 14, 60); romcal kept the memorial falling on them, as an optional memorial.
NO_MEMORIAL = {
    date(2027, 2, 10): "ash_wednesday",  # St Scholastica
    date(2027, 2, 14): "lent_1_sunday",  # Sts Cyril and Methodius
    date(2027, 3, 7): "lent_4_sunday",  # Sts Perpetua and Felicity
    date(2028, 4, 11): "holy_tuesday",  # St Stanislaus
    date(2027, 3, 23): "holy_tuesday",  # St Turibius of Mogrovejo
    date(2027, 4, 2): "easter_friday",  # St Francis of Paola
    date(2026, 12, 13): "advent_3_sunday",  # St Lucy
    date(2027, 7, 11): "ordinary_time_15_sunday",  # St Benedict
    date(2024, 12, 29): "holy_family_of_jesus_mary_and_joseph",  # St Thomas Becket
    date(2026, 11, 22): "our_lord_jesus_christ_king_of_the_universe",  # St Cecilia
}
# Row 9 (Lenten weekdays, 17-24 December, the Christmas Octave): only a commemoration.
COMMEMORATED = {
    date(2027, 2, 23): ("lent_2_tuesday", "polycarp_of_smyrna_bishop"),
    date(2027, 3, 17): ("lent_5_wednesday", "patrick_of_ireland_bishop"),
    date(2026, 12, 21): ("advent_december_21", "peter_canisius_priest"),
    date(2026, 12, 29): ("christmas_octave_day_5", "thomas_becket_bishop"),
}


@pytest.mark.parametrize("when", sorted(NO_MEMORIAL))
def test_no_memorial_on_the_weightier_days(calendar: LiturgicalCalendar, when: date) -> None:
    assert [c.id for c in calendar.day(when).celebrations] == [NO_MEMORIAL[when]]


@pytest.mark.parametrize("when", sorted(COMMEMORATED))
def test_memorials_on_privileged_weekdays_are_commemorated(
    calendar: LiturgicalCalendar, when: date
) -> None:
    weekday, saint = COMMEMORATED[when]
    day = calendar.day(when)
    assert [c.id for c in day.celebrations] == [weekday, saint]
    commemoration = day.celebrations[1]
    assert (commemoration.rank, commemoration.rank_name) == ("commemoration", "Commemoration")
    assert commemoration.optional


def test_memorials_are_kept_on_other_weekdays(calendar: LiturgicalCalendar) -> None:
    # An Easter weekday after the Octave, an Advent weekday before 17 December.
    assert calendar.day(date(2027, 4, 7)).principal.rank == "memorial"  # J. B. de la Salle
    assert calendar.day(date(2026, 12, 3)).principal.rank == "memorial"  # Francis Xavier
    saturday = calendar.day(date(2027, 1, 6))
    assert [c.rank for c in saturday.celebrations] == ["weekday", "optional_memorial"]


def test_impeded_solemnities_are_transferred(calendar: LiturgicalCalendar) -> None:
    # St Joseph on the Fourth Sunday of Lent 2023: the Monday after (GNLY 5).
    assert calendar.day(date(2023, 3, 19)).principal.id == "lent_4_sunday"
    assert calendar.day(date(2023, 3, 20)).principal.id == "joseph_spouse_of_mary"
    assert calendar.dates_of("joseph_spouse_of_mary", 2023) == (date(2023, 3, 20),)
    # The Nativity of St John the Baptist under the Sacred Heart (2022): the day before.
    assert calendar.day(date(2022, 6, 24)).principal.id == "most_sacred_heart_of_jesus"
    assert calendar.day(date(2022, 6, 23)).principal.id == "nativity_of_john_the_baptist"
    # The Immaculate Conception on the Second Sunday of Advent 2024: Monday 9 December,
    # where St Juan Diego then gives way.
    assert calendar.day(date(2024, 12, 8)).principal.id == "advent_2_sunday"
    assert [c.id for c in calendar.day(date(2024, 12, 9)).celebrations] == [
        "immaculate_conception_of_the_blessed_virgin_mary"
    ]
    # romcal's own transfers stand: the Annunciation after the Easter Octave.
    assert calendar.dates_of("annunciation_of_the_lord", 2027) == (date(2027, 4, 5),)


def test_memorials_of_mary_prevail_over_a_saints(calendar: LiturgicalCalendar) -> None:
    # CDW notification of 24 March 2018; romcal kept both, or only the saint.
    for when, marian in [
        (date(2025, 6, 28), "immaculate_heart_of_mary"),  # St Irenaeus omitted
        (date(2026, 6, 13), "immaculate_heart_of_mary"),  # St Anthony of Padua omitted
        (date(2020, 6, 1), "mary_mother_of_the_church"),  # St Justin omitted
    ]:
        assert [c.id for c in calendar.day(when).celebrations] == [marian]


def test_feasts_of_the_lord(calendar: LiturgicalCalendar) -> None:
    lateran = calendar.day(date(2025, 11, 9))  # a Sunday: the feast of the Lord wins
    assert (lateran.principal.id, lateran.principal.rank) == (
        "dedication_of_the_lateran_basilica",
        "feast",
    )
    assert lateran.temporal_id == "ordinary_time_32_sunday"
    baptism = calendar.day(date(2027, 1, 10)).principal
    assert (baptism.id, baptism.rank_name) == ("baptism_of_the_lord", "Feast")
    # A saint's feast gives way to a Sunday in Ordinary Time: St James, 2027.
    assert calendar.day(date(2027, 7, 25)).principal.id == "ordinary_time_17_sunday"
    assert calendar.dates_of("james_apostle", 2027) == (date(2027, 7, 25),)


def test_united_states_moves_epiphany_and_ascension(calendar: LiturgicalCalendar) -> None:
    assert calendar.day(date(2026, 1, 4)).principal.id == "epiphany_of_the_lord"
    assert calendar.day(date(2026, 5, 17)).principal.id == "ascension_of_the_lord"


def test_every_sunday_and_solemnity_2026_2027_is_complete_from_builtin(tmp_path: Path) -> None:
    engine = LiturgyEngine(LiturgySettings(_env_file=None, data_dir=tmp_path))  # type: ignore[call-arg]
    missing = []
    for year in (2026, 2027):
        for day in engine.calendar.year(year).days.values():
            weighty = day.principal.rank in {"sunday", "solemnity"} or day.date.weekday() == 6
            if weighty and not engine.readings(day.date).complete:
                missing.append((day.date, day.principal.id))
    assert missing == []


def test_builtin_days_are_romcal_ids(calendar: LiturgicalCalendar) -> None:
    known = set(calendar.definitions["temporal_cycle"].days_definitions)
    for definition in calendar.definitions.values():
        known.update(definition.days_definitions)
    for year in (2026, 2027):
        for day in calendar.year(year).days.values():
            known.add(day.temporal_id)
    unknown = {e.day for e in builtin_table().entries} - known - {"thanksgiving_day"}
    # Days that the United States calendar of these years never reaches.
    assert unknown <= {
        "advent_3_friday",
        "ordinary_time_9_sunday",
        "easter_time_7_sunday",
        "christmas_time_january_5",
        "christmas_time_january_6",
        "christmas_time_january_7",
    }


def test_csv_round_trip() -> None:
    table = builtin_table()
    again = parse_csv(to_csv(table), table.name)
    assert again.entries == table.entries


def test_tamil_versification() -> None:
    assert convert_citation("திபா51:1-2.10-11.12-13") == "Ps 51:3-4, 12-13, 14-15"
    assert convert_citation("மலா4:1-2a") == "Mal 3:19-20a"
    assert convert_citation("யோவே2:28-32") == "Jl 3:1-5"
    assert convert_citation("தானி(இ)1:29.30-31") == "Dn 3:52, 53-54"
    assert convert_citation("மத்9:35-10:1,6-8") == "Mt 9:35—10:1, 6-8"
    assert convert_citation("AW01-2Tue") is None


def _names(calendar: LiturgicalCalendar) -> dict[str, str]:
    names: dict[str, str] = {}
    for day in calendar.year(2026).days.values():
        for celebration in day.celebrations:
            names.setdefault(normalise_name(celebration.name), celebration.id)
    return names


def test_tamil_import_fills_ordinary_time(tmp_path: Path, calendar: LiturgicalCalendar) -> None:
    table, report = parse_dump(refdata(TAMIL).read_text(encoding="utf-8"), _names(calendar))
    assert report.rows == 4000 and report.entries > 1000
    settings = LiturgySettings(_env_file=None, data_dir=tmp_path)  # type: ignore[call-arg]
    save_lectionary(settings, table)
    engine = LiturgyEngine(settings)
    weekday = engine.readings(date(2026, 7, 16))  # Thursday, 15th week, cycle II
    assert weekday.complete
    first = weekday.masses[0].readings[0]
    assert first.citation.startswith("Is 26:")
    # The built-in table keeps precedence where it has the day.
    sunday = engine.readings(date(2026, 11, 29)).masses[0]
    assert sunday.readings[0].citation == "Is 63:16b-17, 19b; 64:2-7"


@pytest.mark.parametrize(
    ("folder", "count", "first_19_march"),
    [
        ("martyrology-crmedr", 4636, "Saint Joseph"),
        ("martyrology-1914-en-catholicos", 3023, "In Judea, the birthday of St. Joseph"),
        ("martyrology-divinum-officium-en", 3055, "In Judea, holy Joseph"),
    ],
)
def test_martyrology_importers(folder: str, count: int, first_19_march: str) -> None:
    imported = import_martyrology(refdata(REFDATA / folder))
    assert len(imported.entries) == count
    first = imported.of_day(3, 19)[0]
    assert (first.text or first.name or "").startswith(first_19_march)


def test_martyrology_importer_rejects_other_folders(tmp_path: Path) -> None:
    with pytest.raises(MartyrologyImportError):
        import_martyrology(tmp_path)


def _text(body: dict[str, Any]) -> str:
    task = body["result"]
    assert task["status"]["state"] == "completed"
    parts = task["artifacts"][0]["parts"]
    return str(parts[0]["text"])


async def _ask(
    settings: Settings, skill: str, text: str | None = None, **kw: Any
) -> dict[str, Any]:
    async with harness(settings, builtins=BUILTINS, clock=ManualClock(THURSDAY)) as h:
        token = await h.token()
        response = await h.send(token, text or "", skill, **kw)
        assert response.status_code == 200
        body: dict[str, Any] = response.json()
        return body


async def test_e2e_easter_sunday_2026(settings: Settings) -> None:
    body = await _ask(settings, "liturgical_readings", "Easter Sunday 2026")
    assert body["result"]["artifacts"][0]["name"] == "mass_readings"
    text = _text(body)
    assert "Sunday, April 5, 2026" in text and "Easter Vigil in the Holy Night" in text
    assert "First reading: Acts 10:34a, 37-43" in text and "Gospel: Jn 20:1-9" in text


async def test_e2e_christmas_four_masses(settings: Settings) -> None:
    text = _text(await _ask(settings, "liturgical_readings", "2026-12-25"))
    titles = ["Vigil Mass", "Mass during the Night", "Mass at Dawn", "Mass during the Day"]
    positions = [text.index(t) for t in titles]
    assert positions == sorted(positions)
    assert "Sunday cycle: Year B" in text and "Gospel: Lk 2:1-14" in text


async def test_e2e_next_sunday_with_a_fixed_clock(settings: Settings) -> None:
    text = _text(await _ask(settings, "liturgical_readings", "next Sunday"))
    assert text.startswith("Mass readings for Sunday, November 29, 2026")
    assert "First Sunday of Advent" in text and "First reading: Is 63:16b-17, 19b; 64:2-7" in text


async def test_e2e_ordinary_time_weekday(settings: Settings) -> None:
    builtin = _text(await _ask(settings, "liturgical_readings", "2026-07-16"))
    assert "Thursday of the fifteenth week of Ordinary Time" in builtin
    assert "First reading: Is 26:7-9, 12, 16-19" in builtin and "Gospel: Mt 11:28-30" in builtin
    table, _ = parse_dump(refdata(TAMIL).read_text(encoding="utf-8"), _names(LiturgicalCalendar()))
    save_lectionary(settings, table)
    imported = _text(await _ask(settings, "liturgical_readings", "2026-07-16"))
    # The day's Mass stays the built-in one; the import adds the memorial's readings.
    assert imported.split("Memorials:")[0] == builtin.split("Memorials:")[0]


async def test_e2e_unreadable_query(settings: Settings) -> None:
    body = await _ask(settings, "liturgical_readings", "the day my cat learns Latin")
    assert body["result"]["artifacts"][0]["parts"] == [
        {"kind": "text", "text": "No mass readings found."}
    ]


async def test_e2e_saints_with_a_data_date(settings: Settings) -> None:
    crmedr = import_martyrology(refdata(REFDATA / "martyrology-crmedr"))
    save_martyrology(settings, crmedr)
    parts = [{"kind": "data", "data": {"date": "2026-03-19"}}]
    body = await _ask(settings, "saints_of_the_day", parts=parts)
    assert body["result"]["artifacts"][0]["name"] == "martyrology"
    text = _text(body)
    assert "Saint Joseph, Spouse of the Blessed Virgin Mary (Solemnity" in text
    assert "Roman Martyrology (2004 edition" in text and "2. " in text


async def test_e2e_saints_with_a_text_date(settings: Settings) -> None:
    text = _text(await _ask(settings, "saints_of_the_day", "March 17 2027"))
    assert "In other particular calendars:" in text
    assert "Saint Patrick" in text


async def test_e2e_saints_list_the_celebrations_precedence_keeps(settings: Settings) -> None:
    # The celebrations of saints_of_the_day come from the same calendar: no memorial on
    # Ash Wednesday, a commemoration on a Lenten weekday (issue 19).
    ash = _text(await _ask(settings, "saints_of_the_day", "2027-02-10"))
    calendar_part = ash.split("\n\n")[1]
    assert calendar_part.splitlines()[1:] == ["- Ash Wednesday (Weekday)"]
    lent = _text(await _ask(settings, "saints_of_the_day", "2027-02-23"))
    assert "- Saint Polycarp, Bishop and Martyr (Commemoration" in lent


async def test_e2e_saints_with_a_missing_date(settings: Settings) -> None:
    body = await _ask(settings, "saints_of_the_day", parts=[{"kind": "data", "data": {}}])
    assert body["result"]["artifacts"][0]["parts"] == [
        {"kind": "text", "text": "No martyrology data found."}
    ]


async def test_e2e_saint_lookup(settings: Settings) -> None:
    body = await _ask(settings, "saint_lookup", "Kateri Tekakwitha")
    artifact = body["result"]["artifacts"][0]
    assert artifact["name"] == "saint"
    record = artifact["parts"][1]["data"]["saints"][0]
    assert record["id"] == "kateri_tekakwitha_virgin"
    assert {"date": "--07-14", "rank": "memorial", "calendars": ["united_states"]} in record[
        "feasts"
    ]
